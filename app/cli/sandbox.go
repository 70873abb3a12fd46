package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/policy/shellquote"
	"github.com/agatehq/agate/sandbox"
)

func init() {
	register(&command{
		name: "sandbox",
		args: "[--net] [--work DIR] [--read-only] [--cwd DIR] [--rw PATH]... [--ro PATH]... [--launcher NAME] [--strict] [--ask [--agent NAME]] [--print] " +
			"[--config FILE] [--socket PATH] -- CMD [ARGS...]",
		summary: "run a command confined: files read-only but the work dir, no network, no credentials",
		run:     cmdSandbox,
	})
}

// Exit statuses of `agate sandbox` itself. Otherwise it exits with the
// command's own status, printing nothing of its own.
const (
	exitSandboxFailed = sandbox.ExitSetupFailed // no working sandbox, or it could not start
	exitSandboxDenied = sandbox.ExitCannotRun   // --ask: the gate said no
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	if v == "" {
		return errors.New("empty path")
	}
	*s = append(*s, v)
	return nil
}

func cmdSandbox(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "sandbox")
	var cf configFlags
	cf.add(fs)
	net := fs.Bool("net", false, "allow the network")
	work := fs.String("work", "", "the writable work dir (default: $AGATE_SANDBOX_CWD, then $PEPE_SANDBOX_CWD, then the current dir)")
	var rw, ro stringList
	fs.Var(&rw, "rw", "another writable `path`; repeat for more")
	fs.Var(&ro, "ro", "a `path` to bind read-only where it would not show (containers, /tmp); repeat for more")
	launcher := fs.String("launcher", "", "the `launcher`: "+strings.Join(sandbox.LauncherNames, ", ")+" (default: [sandbox] launcher)")
	ask := fs.Bool("ask", false, "ask the gate about the command first; run it only if allowed")
	agent := fs.String("agent", "", "with --ask: the `agent` running the command, as [agents.NAME] names it")
	printOnly := fs.Bool("print", false, "print the confining command line instead of running it")
	cache := fs.String("cache", "", "give the command `dir` as its toolchains' cache (XDG_CACHE_HOME, GOCACHE, npm's and pip's), writable: "+
		"builds work confined, and what they write there never reaches an unconfined build's cache")
	readOnly := fs.Bool("read-only", false, "leave the work dir read-only: nothing is writable but a private /tmp (and --rw paths)")
	cwd := fs.String("cwd", "", "start the command in `dir` (default: the work dir); it is not made writable")
	strict := fs.Bool("strict", false, "the profile is only what the flags say, fail-closed: no [sandbox] writable, fail_closed, launcher or "+
		"$AGATE_SANDBOX_CWD; the OS's own sandbox only (bwrap or Landlock, sandbox-exec), never a container, a wrapper or none; "+
		"of the home folder only the toolchains and git's config show. agate's hooks rewrite the calls they confine to it")
	argv, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(argv) == 0 {
		fs.Usage()
		return usagef("no command to run (give it after --)")
	}
	if *agent != "" && !*ask {
		return usagef("--agent goes with --ask")
	}
	if *launcher != "" && !slices.Contains(sandbox.LauncherNames, *launcher) {
		return usagef("unknown launcher %q (want one of %s)", *launcher, strings.Join(sandbox.LauncherNames, ", "))
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	// Read, never write: this runs for every confined command.
	cfg, err := config.Read(paths)
	if err != nil {
		return usageErr(err)
	}
	if *strict && *work == "" {
		return usagef("--strict needs --work: the work dir comes from the flags alone")
	}
	if *strict && *launcher != "" && *launcher != sandbox.LauncherKernel && *launcher != sandbox.LauncherBwrap &&
		*launcher != sandbox.LauncherLandlock && *launcher != sandbox.LauncherSandboxExec {
		return usagef("--strict runs only in the OS's own sandbox, not %q", *launcher)
	}
	dir, err := sandboxWorkDir(*work, *strict)
	if err != nil {
		return usageErr(err)
	}
	o := machine.SandboxOptions(cfg, paths, dir)
	if *strict {
		// The whole profile is in the command line: what the config or
		// the environment say cannot widen it or let it run unconfined.
		o.Launcher, o.FailClosed, o.Writable, o.Env = sandbox.LauncherKernel, true, nil, nil
		// And of home, the toolchains and git's config alone (without
		// what can carry a credential, the project's own config too):
		// the stores no list names are out of reach too.
		home, _ := os.UserHomeDir()
		o.JudgedHome(home, dir, nil, os.Getenv)
	}
	if *launcher != "" {
		o.Launcher = *launcher
	}
	o.ReadOnlyWork = *readOnly
	if *cache != "" {
		dir, err := confinedCache(*cache)
		if err != nil {
			return usageErr(err)
		}
		o.Writable = append(o.Writable, dir)
		o.Env = cacheEnv(os.Environ(), dir)
	}
	if *cwd != "" {
		if o.Dir, err = filepath.Abs(*cwd); err != nil {
			return usageErr(err)
		}
	}
	o.Net = *net
	o.Writable = append(o.Writable, rw...)
	o.ReadOnly = append(o.ReadOnly, ro...)

	if *printOnly {
		p, err := sandbox.Prepare(ctx, o, argv)
		if err != nil {
			return &exitError{code: exitSandboxFailed, err: err}
		}
		if p.Note != "" {
			fmt.Fprintln(e.Stderr, p.Note)
		}
		line, err := shellquote.Join(p.Cmd.Args)
		if err != nil {
			return &exitError{code: exitSandboxFailed, err: err}
		}
		if len(p.Cmd.ExtraFiles) > 0 {
			line += " 3</dev/null" // the hidden files' content (bwrap --ro-bind-data 3)
		}
		fmt.Fprintln(e.Stdout, line)
		return nil
	}
	if *ask {
		if err := askFirst(ctx, paths, *agent, dir, argv); err != nil {
			return &exitError{code: exitSandboxDenied, err: err}
		}
	}
	p, err := sandbox.Prepare(ctx, o, argv)
	if err != nil {
		return &exitError{code: exitSandboxFailed, err: err}
	}
	if p.Note != "" {
		fmt.Fprintln(e.Stderr, p.Note)
	}
	if e.Stdin == os.Stdin && e.Stdout == os.Stdout && e.Stderr == os.Stderr {
		// The launcher takes this process's place where it can: no process
		// and no wait of agate's stay around the command.
		if err := p.Exec(); !errors.Is(err, sandbox.ErrNoExec) {
			return &exitError{code: exitSandboxFailed, err: err}
		}
	}
	code, err := p.Run(ctx, e.Stdin, e.Stdout, e.Stderr)
	switch {
	case err != nil && ctx.Err() != nil && code >= 0:
		return &exitError{code: code, err: errSilent} // interrupted: the command's status
	case err != nil:
		return &exitError{code: exitSandboxFailed, err: err}
	case code != 0:
		return &exitError{code: code, err: errSilent}
	}
	return nil
}

// sandboxWorkDir picks the work dir: --work, then (unless strict)
// AGATE_SANDBOX_CWD, then PEPE_SANDBOX_CWD (agate as Pepe's sandbox
// wrapper), then the current dir.
func sandboxWorkDir(flag string, strict bool) (string, error) {
	if strict {
		return filepath.Abs(flag)
	}
	for _, d := range []string{flag, os.Getenv(sandbox.EnvWorkDir), os.Getenv(sandbox.EnvPepeWorkDir)} {
		if d != "" {
			return filepath.Abs(d)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("work dir: %w", err)
	}
	return wd, nil
}

// askFirst asks the daemon about argv as a shell call from agent in cwd,
// and returns an error saying why when it may not run: denied, the daemon
// unreachable, or any other failure. A person attached to agate (the tray,
// a terminal approver) may be asked; with nobody there, what the policy
// does not allow outright is denied.
func askFirst(ctx context.Context, p api.Paths, agent, cwd string, argv []string) error {
	if agent == "" {
		agent = "sandbox"
	}
	cmd, err := shellCommand(argv)
	if err != nil {
		return fmt.Errorf("denied: the command cannot be written for the gate to read: %w", err)
	}
	resp, err := (&api.Client{Socket: p.Socket}).Decide(ctx, &api.DecideRequest{
		Tool: "bash", Args: map[string]any{"command": cmd},
		Agent: agent, Cwd: cwd, Interactive: true,
	})
	switch {
	case err != nil:
		return fmt.Errorf("denied: could not ask the gate: %w", err)
	case resp.Decision != policy.Allow:
		return fmt.Errorf("denied: %s", resp.Reason)
	}
	return nil
}

// shellCommand renders argv as the shell command the gate judges: the
// script itself for `sh -c SCRIPT` (as Pepe hands commands to its
// wrapper), else the words quoted for bash.
func shellCommand(argv []string) (string, error) {
	if len(argv) == 3 && argv[1] == "-c" {
		switch filepath.Base(argv[0]) {
		case "sh", "bash", "dash", "zsh", "ksh":
			return argv[2], nil
		}
	}
	return shellquote.Join(argv)
}

// confinedCache makes the toolchains' cache of confined commands (a
// folder private to this user) and returns it, absolute.
func confinedCache(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("the confined cache: %w", err)
	}
	return dir, nil
}

// cacheEnv points the toolchains' caches into dir: a build confined writes
// its cache there, and an unconfined build never reads it.
func cacheEnv(env []string, dir string) []string {
	set := map[string]string{
		"XDG_CACHE_HOME":   dir,
		"GOCACHE":          filepath.Join(dir, "go-build"),
		"npm_config_cache": filepath.Join(dir, "npm"),
		"PIP_CACHE_DIR":    filepath.Join(dir, "pip"),
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}
