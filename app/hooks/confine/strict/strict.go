// Package strict runs a confined call's line: the words the hook rewrote
// the call to (confine.Shell), `BIN sandbox --strict --work DIR [flags]
// -- bash -c COMMAND`. The profile is the line's alone (profile.Strict
// with what its flags add): no config file is read, no variable widens
// it, and the command never runs unconfined. agate-hook and `agate
// sandbox --strict` both run lines here; agate-hook starts once per
// confined command, so this links the sandbox and the policy's lists,
// never the policy engine.
package strict

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/hooks/confine"
	"github.com/agatehq/agate/app/machine/profile"
	"github.com/agatehq/agate/policy/shellquote"
	"github.com/agatehq/agate/sandbox"
)

// Exit statuses of the runner itself; otherwise it exits with the
// command's own status and prints nothing of its own.
const (
	ExitUsage       = 2                       // the line is not one confine.Shell writes
	ExitSetupFailed = sandbox.ExitSetupFailed // no working sandbox, or it could not start
)

// Stdio are the runner's standard streams.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Run runs the command of a line confine.Shell wrote, confined as the
// line says: args are the words after "sandbox" (--strict, the flags,
// "--" and the command). It returns the exit status: the command's, or
// ExitUsage or ExitSetupFailed with the reason on stdio.Stderr.
func Run(ctx context.Context, args []string, stdio Stdio, getenv func(string) string) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stdio.Stderr, "agate sandbox: %v\n", err)
		return code
	}
	fs := flag.NewFlagSet("agate sandbox --strict", flag.ContinueOnError)
	fs.SetOutput(stdio.Stderr)
	var s confine.Sandbox
	var launcher string
	var printOnly bool
	fs.BoolVar(&s.Strict, "strict", false, "the profile is only what the flags say, fail-closed, in the OS's own sandbox")
	fs.StringVar(&s.Config, "config", "", "agate's config `file` (for where its state is: hidden)")
	socket := fs.String("socket", "", "the daemon's socket `path` (hidden)")
	fs.StringVar(&s.Work, "work", "", "the work `dir`, absolute: writable unless --read-only")
	fs.BoolVar(&s.ReadOnly, "read-only", false, "nothing writable but a private /tmp (and --rw paths)")
	fs.BoolVar(&s.Net, "net", false, "open the network")
	fs.StringVar(&s.Cwd, "cwd", "", "start the command in `dir` (not made writable)")
	fs.StringVar(&s.Cache, "cache", "", "the toolchains' cache `dir` of confined builds, writable")
	fs.Var((*words)(&s.Writable), "rw", "another writable `path`; repeat for more")
	fs.Var((*words)(&s.Protected), "protect", "another protected `path` or pattern ([auto] protected_paths); repeat for more")
	fs.Var((*words)(&s.Secrets), "hide", "another secret `path` or pattern ([auto] secret_paths); repeat for more")
	fs.Var((*words)(&s.SecretEnv), "scrub-env", "a `variable` never passed on ([secrets]); repeat for more")
	fs.StringVar(&launcher, "launcher", "", "the OS's own sandbox to use: kernel, bwrap, landlock or sandbox-exec")
	fs.BoolVar(&printOnly, "print", false, "print the confining command line instead of running it")
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	argv := fs.Args()
	switch {
	case !s.Strict:
		return fail(ExitUsage, errors.New("this runner takes only the --strict form the hook writes"))
	case len(argv) == 0:
		return fail(ExitUsage, errors.New("no command to run (give it after --)"))
	case s.Work == "" || !filepath.IsAbs(s.Work):
		return fail(ExitUsage, fmt.Errorf("--strict needs --work, an absolute path (got %q): the work dir comes from the flags alone", s.Work))
	case s.Cwd != "" && !filepath.IsAbs(s.Cwd):
		return fail(ExitUsage, fmt.Errorf("--cwd %q is not an absolute path", s.Cwd))
	case s.Cache != "" && !filepath.IsAbs(s.Cache):
		return fail(ExitUsage, fmt.Errorf("--cache %q is not an absolute path", s.Cache))
	case slices.ContainsFunc(s.Writable, func(w string) bool { return !filepath.IsAbs(w) }):
		return fail(ExitUsage, fmt.Errorf("--rw %q: not an absolute path", s.Writable))
	case launcher != "" && !slices.Contains(kernelLaunchers, launcher):
		return fail(ExitUsage, fmt.Errorf("--strict runs only in the OS's own sandbox (%s), not %q", strings.Join(kernelLaunchers, ", "), launcher))
	}
	paths, err := api.ResolvePaths(s.Config, *socket)
	if err != nil {
		return fail(ExitUsage, err)
	}
	home, _ := api.HomeDir()
	work := filepath.Clean(s.Work)
	writable := slices.Clone(s.Writable)
	if s.Cache != "" {
		if err := os.MkdirAll(s.Cache, 0o700); err != nil {
			return fail(ExitSetupFailed, fmt.Errorf("the confined cache: %w", err))
		}
		writable = append([]string{filepath.Clean(s.Cache)}, writable...)
	}
	o := profile.Strict(paths, home, work, s.ReadOnly, writable, profile.Extra{Protected: s.Protected, Secrets: s.Secrets, SecretEnv: s.SecretEnv}, getenv)
	if launcher != "" {
		o.Launcher = launcher
	}
	o.Net = s.Net
	if s.Cache != "" {
		o.Env = CacheEnv(os.Environ(), s.Cache)
	}
	if s.Cwd != "" {
		o.Dir = filepath.Clean(s.Cwd)
	}

	p, err := sandbox.Prepare(ctx, o, argv)
	if err != nil {
		return fail(ExitSetupFailed, err)
	}
	if p.Note != "" {
		fmt.Fprintln(stdio.Stderr, p.Note)
	}
	if printOnly {
		line, err := shellquote.Join(p.Cmd.Args)
		if err != nil {
			return fail(ExitSetupFailed, err)
		}
		if len(p.Cmd.ExtraFiles) > 0 {
			line += " 3</dev/null" // the hidden files' content (bwrap --ro-bind-data 3)
		}
		fmt.Fprintln(stdio.Stdout, line)
		return 0
	}
	if stdio.Stdin == os.Stdin && stdio.Stdout == os.Stdout && stdio.Stderr == os.Stderr {
		// The launcher takes this process's place where it can: no process
		// and no wait of agate's stay around the command.
		if err := p.Exec(); !errors.Is(err, sandbox.ErrNoExec) {
			return fail(ExitSetupFailed, err)
		}
	}
	code, err := p.Run(ctx, stdio.Stdin, stdio.Stdout, stdio.Stderr)
	switch {
	case err != nil && ctx.Err() != nil && code >= 0:
		return code // interrupted: the command's status
	case err != nil:
		return fail(ExitSetupFailed, err)
	}
	return code
}

// kernelLaunchers are the launchers --strict may name: the OS's own.
var kernelLaunchers = []string{sandbox.LauncherKernel, sandbox.LauncherBwrap, sandbox.LauncherLandlock, sandbox.LauncherSandboxExec}

// CacheEnv points the toolchains' caches into dir: a build confined writes
// its cache there, and an unconfined build never reads it.
func CacheEnv(env []string, dir string) []string {
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

// words is a repeatable flag of non-empty words.
type words []string

func (w *words) String() string { return strings.Join(*w, ",") }

func (w *words) Set(v string) error {
	if v == "" {
		return errors.New("empty")
	}
	*w = append(*w, v)
	return nil
}
