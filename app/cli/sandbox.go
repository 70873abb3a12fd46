package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/hooks/confine/strict"
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
	if strictLine(args) {
		// The line a hook rewrote a call to: its profile is its flags
		// alone, run as agate-hook runs it.
		code := strict.Run(ctx, args, strict.Stdio{Stdin: e.Stdin, Stdout: e.Stdout, Stderr: e.Stderr}, os.Getenv)
		if code != 0 {
			return &exitError{code: code, err: errSilent}
		}
		return nil
	}
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
	fs.Bool("strict", false, "the profile is only what the flags say, fail-closed: no config file, no [sandbox] writable, fail_closed, launcher or "+
		"$AGATE_SANDBOX_CWD; the OS's own sandbox only (bwrap or Landlock, sandbox-exec), never a container, a wrapper or none; "+
		"of the home folder only the toolchains and git's config show. agate's hooks rewrite the calls they confine to it, "+
		"with --protect, --hide and --scrub-env for what the config adds; it takes neither --ask nor --ro")
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
	dir, err := sandboxWorkDir(*work)
	if err != nil {
		return usageErr(err)
	}
	o := machine.SandboxOptions(cfg, paths, dir)
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
		o.Env = strict.CacheEnv(os.Environ(), dir)
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

// strictLine reports whether args (after "sandbox") are a --strict
// line: --strict among the flags before "--".
func strictLine(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--strict", "-strict", "--strict=true", "-strict=true":
			return true
		}
	}
	return false
}

// sandboxWorkDir picks the work dir: --work, then AGATE_SANDBOX_CWD, then
// PEPE_SANDBOX_CWD (agate as Pepe's sandbox wrapper), then the current
// dir.
func sandboxWorkDir(flag string) (string, error) {
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
