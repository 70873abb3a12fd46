package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/keystore"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

func init() {
	register(&command{
		name:    "run",
		args:    "[--secret ENV[=NAME]]... [--sandbox [--net]] -- COMMAND [ARGS...]",
		summary: "run your own command with the secrets you name in its environment and every other credential scrubbed",
		run:     cmdRun,
	})
}

// secretFlags collects the repeated --secret flag.
type secretFlags []string

// String is empty: flag defaults print nothing.
func (s *secretFlags) String() string { return "" }

// Set adds one --secret.
func (s *secretFlags) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// runSecret is one --secret: the variable to set and the reference to
// resolve for it.
type runSecret struct {
	env string
	ref keystore.Ref
	raw string // the reference as written, for the resolver
}

// cmdRun is `agate run`: it is the person's own command (say, starting an
// agent's CLI with its provider key), so it asks no gate and needs no
// daemon. The command gets agate's environment minus every credential (the
// variables the config names, those whose names say they are credentials,
// URLs with passwords), plus the secrets asked for with --secret. Its exit
// status is agate's.
func cmdRun(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "run")
	var cf configFlags
	cf.add(fs)
	var secrets secretFlags
	fs.Var(&secrets, "secret", "`ENV=NAME`: set ENV to the secret NAME, a key store name or a reference "+
		"(${VAR}, exec:COMMAND, file:/PATH, keystore:NAME); ENV alone takes its reference from [secrets] env. Repeatable")
	sandboxed := fs.Bool("sandbox", false, "run the command in agate's sandbox, as [sandbox] in the config says")
	netOn := fs.Bool("net", false, "with --sandbox: let the command reach the network")
	dash := slices.Index(args, "--")
	if dash < 0 {
		if _, err := parseFlags(fs, args); err != nil {
			return err // -h, or a bad flag
		}
		return usagef("put the command after --, as in: agate run --secret OPENAI_API_KEY=openai -- codex")
	}
	pos, err := parseFlags(fs, args[:dash])
	if err != nil {
		return err
	}
	argv := args[dash+1:]
	switch {
	case len(pos) > 0:
		return usagef("%d arguments before --: the command and its arguments go after --", len(pos))
	case len(argv) == 0:
		return usagef("no command after --")
	case *netOn && !*sandboxed:
		return usagef("--net goes with --sandbox")
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	cfg, err := config.Load(paths)
	if err != nil {
		return usageErr(err)
	}
	specs, err := parseRunSecrets(secrets, cfg)
	if err != nil {
		return err
	}
	values, err := resolveRunSecrets(ctx, e, paths, cfg, specs)
	if err != nil {
		return err
	}

	// Scrub what the config calls secrets and vault credentials, whatever
	// looks like a credential, and the variables the secrets asked for
	// come from (and go to: they are set again below).
	names := append(cfg.SecretEnvNames(), cfg.Secrets.VaultEnv...)
	for _, s := range specs {
		names = append(names, s.env)
		if s.ref.Kind == keystore.RefEnv {
			names = append(names, s.ref.Arg)
		}
	}
	env := sandbox.ScrubEnv(os.Environ(), names)

	if *sandboxed {
		return runSandboxed(ctx, e, paths, cfg, env, names, values, *netOn, argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(env, values...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.Stdin, e.Stdout, e.Stderr
	return runChild(cmd, argv[0], forwardSignals)
}

// parseRunSecrets reads the --secret flags.
func parseRunSecrets(flags []string, cfg *policy.Config) ([]runSecret, error) {
	var specs []runSecret
	seen := map[string]bool{}
	for _, f := range flags {
		env, ref, hasRef := strings.Cut(f, "=")
		if _, err := keystore.ParseRef("${" + env + "}"); err != nil {
			return nil, usagef("--secret: %q is not a variable name (want ENV=NAME)", env)
		}
		if seen[env] {
			return nil, usagef("--secret %s given twice", env)
		}
		seen[env] = true
		switch {
		case !hasRef:
			ref = cfg.Secrets.Env[env]
			if ref == "" {
				return nil, usagef("--secret %s: [secrets] env has no reference for it; write --secret %s=NAME", env, env)
			}
		case ref == "":
			return nil, usagef("--secret %s=: nothing after =", env)
		case !keystore.IsReference(ref):
			ref = "keystore:" + ref
		}
		p, err := keystore.ParseRef(ref)
		if err != nil {
			if strings.HasPrefix(ref, "keystore:") {
				// Do not quote it: a value pasted where a name goes is a secret.
				return nil, usagef("--secret %s: what follows = must be a key store name (agate keys list) or a reference (${VAR}, exec:COMMAND, file:/PATH), never the secret itself", env)
			}
			return nil, usagef("--secret %s: %v", env, err)
		}
		specs = append(specs, runSecret{env: env, ref: p, raw: ref})
	}
	return specs, nil
}

// resolveRunSecrets resolves each secret and returns "ENV=value" entries.
// A secret that does not resolve stops the run: the command is not
// started with a variable missing or empty.
func resolveRunSecrets(ctx context.Context, e *Env, p api.Paths, cfg *policy.Config, specs []runSecret) ([]string, error) {
	var store *keystore.Store
	if slices.ContainsFunc(specs, func(s runSecret) bool { return s.ref.Kind == keystore.RefKeystore }) {
		var err error
		if store, err = openKeyStore(e, p); err != nil {
			return nil, err
		}
	}
	r := keystore.NewResolver(store, cfg.Secrets.VaultEnv)
	var out []string
	for _, s := range specs {
		v, ok, err := r.Resolve(ctx, s.raw)
		if ok {
			out = append(out, s.env+"="+v)
			continue
		}
		if s.ref.Kind == keystore.RefKeystore && errors.Is(err, keystore.ErrUnset) {
			return nil, fmt.Errorf("--secret %s: no such key in the key store (agate keys list shows them)", s.env)
		}
		return nil, fmt.Errorf("--secret %s: %w", s.env, err)
	}
	return out, nil
}

// runSandboxed runs argv in agate's sandbox with env (already scrubbed)
// and the secrets' values.
func runSandboxed(ctx context.Context, e *Env, p api.Paths, cfg *policy.Config, env, secretNames, values []string, netOn bool, argv []string) error {
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working folder: %w", err)
	}
	o := machine.SandboxOptions(cfg, p, cwd)
	o.Net, o.Env = netOn, env
	o.SecretEnv = append(o.SecretEnv, secretNames...)
	prep, err := sandbox.Prepare(ctx, o, argv)
	if err != nil {
		return &exitError{code: sandbox.ExitSetupFailed, err: err}
	}
	if len(values) > 0 && (prep.Launcher == sandbox.LauncherDocker || prep.Launcher == sandbox.LauncherPodman) {
		// The container launchers pass variables by name (-e NAME) from
		// the environment they scrubbed: a value added here would not
		// reach the container.
		return &exitError{code: sandbox.ExitSetupFailed, err: fmt.Errorf("--secret with the %s launcher is not supported yet; use bwrap or landlock", prep.Launcher)}
	}
	// sandbox.Prepare scrubs every credential out of env; the secrets asked
	// for go in after it.
	prep.Cmd.Env = append(prep.Cmd.Env, values...)
	if prep.Note != "" {
		fmt.Fprintln(e.Stderr, prep.Note)
	}
	prep.Cmd.Stdin, prep.Cmd.Stdout, prep.Cmd.Stderr = e.Stdin, e.Stdout, e.Stderr
	// The sandbox stops the command itself when ctx ends (SIGTERM, then
	// SIGKILL): no signal to forward.
	return runChild(prep.Cmd, argv[0], nil)
}

// runChild runs cmd and turns its end into agate's: its exit status as
// agate's own, silently; 127 when the program is not found, 126 when it
// cannot run. forward, when set, passes termination signals on while it
// runs.
func runChild(cmd *exec.Cmd, name string, forward func(*exec.Cmd) (stop func())) error {
	if err := cmd.Start(); err != nil {
		code := sandbox.ExitCannotRun
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			code = sandbox.ExitNotFound
		}
		return &exitError{code: code, err: fmt.Errorf("start %s: %w", name, err)}
	}
	if forward != nil {
		defer forward(cmd)()
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		code := ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		return &exitError{code: code, err: errSilent}
	}
	return fmt.Errorf("run %s: %w", name, err)
}

// forwardSignals passes SIGTERM and SIGHUP sent to agate on to the
// command until stop is called. SIGINT is not passed: a Ctrl-C at the
// terminal reaches the command directly (it is in the terminal's
// foreground process group), and a second copy would read as a double
// Ctrl-C, which many agent CLIs take as "quit". agate itself does not stop
// on Ctrl-C while the command runs: it waits for the command's status.
func forwardSignals(cmd *exec.Cmd) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
