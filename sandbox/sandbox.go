package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// ErrUnavailable is returned when no launcher can confine the command and
// the options fail closed. The error wrapping it says why and what to
// install.
var ErrUnavailable = errors.New("no working sandbox")

// UnconfinedNote is what [Run] prints on stderr before running a command
// unconfined because no launcher works and the options allow it (eVi's
// note).
const UnconfinedNote = "(sandbox requested but no sandboxer on PATH — ran unsandboxed)"

// Exit statuses of the launchers' own failures, as docker and the shells
// use them: the sandbox could not be set up, the command could not be run,
// the command was not found.
const (
	ExitSetupFailed = 125
	ExitCannotRun   = 126
	ExitNotFound    = 127
)

// stopGrace is how long a command has to exit after SIGTERM when its
// context ends, before it is killed.
const stopGrace = 5 * time.Second

// launcher is one way of confining a command.
type launcher interface {
	// name is the launcher's name, as in the config.
	name() string
	// check tells quickly, without running the command, whether the
	// launcher can be tried here: its program is installed, the kernel has
	// what it needs, a container's image is on this machine (asked of the
	// engine). The error says what is missing.
	check(o Options) error
	// command builds the confined command. Stdin, stdout and stderr are
	// left for the caller.
	command(ctx context.Context, p *plan) (*exec.Cmd, error)
	// version names the launcher's version, "" when unknown.
	version(ctx context.Context, o Options) string
}

// byName returns the launcher called name on this platform, nil when there
// is none by that name here. It does not check that it works.
func byName(name string) launcher {
	switch name {
	case LauncherDocker:
		return &container{engine: LauncherDocker}
	case LauncherPodman:
		return &container{engine: LauncherPodman}
	case LauncherWrapper:
		return &wrapper{}
	}
	return platformLauncher(name)
}

// candidates returns the launchers to try for o, in order: the auto order,
// or the pinned one. For a pinned launcher this platform lacks, or "none",
// it returns no launcher and the reason.
func candidates(o Options) ([]launcher, string, error) {
	name := o.launcherName()
	if !slices.Contains(LauncherNames, name) {
		return nil, "", fmt.Errorf("unknown launcher %q (want one of %s)", name, strings.Join(LauncherNames, ", "))
	}
	switch name {
	case LauncherAuto, LauncherKernel:
		order := autoOrder
		if name == LauncherKernel {
			order = kernelOrder
		}
		var ls []launcher
		for _, n := range order {
			ls = append(ls, byName(n))
		}
		if len(ls) == 0 {
			return nil, "no sandbox of the OS's own on " + platform, nil
		}
		return ls, "", nil
	case LauncherNone:
		return nil, `launcher is "none"`, nil
	}
	l := byName(name)
	if l == nil {
		return nil, fmt.Sprintf("launcher %q does not exist on %s", name, platform), nil
	}
	return []launcher{l}, "", nil
}

// choose returns the first candidate whose quick check passes. With none,
// it returns a nil launcher, why each was passed over and, when the
// machine refuses what a launcher needs, what to change (see fixOf).
func choose(o Options) (l launcher, reason, fix string, err error) {
	ls, reason, err := candidates(o)
	if err != nil || len(ls) == 0 {
		return nil, reason, "", err
	}
	var why, fixes []string
	for _, l := range ls {
		if err := l.check(o); err != nil {
			why = append(why, fmt.Sprintf("%s: %v", l.name(), err))
			fixes = addFix(fixes, err)
			continue
		}
		return l, "", "", nil
	}
	return nil, strings.Join(why, "; "), strings.Join(fixes, "; or "), nil
}

// refusal is a launcher's check failure that is the machine's setting,
// not a missing program: user namespaces refused by a sysctl, AppArmor, a
// container or a chroot. Fix says what the person can change.
type refusal interface {
	error
	Fix() string
}

// addFix adds err's fix, when it has one not in fixes yet.
func addFix(fixes []string, err error) []string {
	var r refusal
	if errors.As(err, &r) && r.Fix() != "" && !slices.Contains(fixes, r.Fix()) {
		fixes = append(fixes, r.Fix())
	}
	return fixes
}

// errMissing marks a launcher's failure to build a command because
// something it needs is missing; in auto mode, or when the options allow
// running unconfined, it is not fatal.
var errMissing = errors.New("launcher unavailable")

// unavailable builds the ErrUnavailable error for reason: what to change
// when the machine refused a launcher (fix), else what to install.
func unavailable(reason, fix string) error {
	if fix != "" {
		return fmt.Errorf("%w: %s; to change: %s", ErrUnavailable, reason, fix)
	}
	return fmt.Errorf("%w: %s; %s", ErrUnavailable, reason, installHint)
}

// Prepared is a command ready to start, and how it will be confined.
type Prepared struct {
	// Cmd is the command to start; Stdin, Stdout and Stderr are the
	// caller's to set.
	Cmd *exec.Cmd
	// Launcher is the launcher that confines it, "none" when unconfined.
	Launcher string
	// Confined is false only when the options allowed running unconfined
	// and no launcher worked.
	Confined bool
	// Note is [UnconfinedNote] when the command is not confined, for the
	// caller to show.
	Note string
}

// Prepare builds the confined command for argv with the first launcher
// that passes its quick check (see [Probe] for the real test). When none
// does, it returns an error wrapping [ErrUnavailable], unless the options
// allow running unconfined (an explicit launcher and FailClosed false):
// then the command runs directly, still with the scrubbed environment,
// and Note says so. Bad options (an unknown launcher, a missing work dir)
// are errors whatever FailClosed says.
func Prepare(ctx context.Context, o Options, argv []string) (*Prepared, error) {
	p, err := newPlan(o, argv)
	if err != nil {
		return nil, err
	}
	l, reason, fix, err := choose(o)
	if err != nil {
		return nil, err
	}
	if l != nil {
		cmd, err := l.command(ctx, p)
		if err == nil {
			setStop(cmd)
			return &Prepared{Cmd: cmd, Launcher: l.name(), Confined: true}, nil
		}
		if !errors.Is(err, errMissing) {
			return nil, fmt.Errorf("%s: %w", l.name(), err)
		}
		reason = fmt.Sprintf("%s: %v", l.name(), err)
	}
	if !o.mayRunUnconfined() {
		return nil, unavailable(reason, fix)
	}
	cmd := exec.CommandContext(ctx, p.argv[0], p.argv[1:]...)
	cmd.Env, cmd.Dir = p.env, p.start()
	setStop(cmd)
	return &Prepared{Cmd: cmd, Launcher: LauncherNone, Note: UnconfinedNote}, nil
}

// Command builds the confined command for argv; see [Prepare], whose Cmd it
// returns. A caller that may run unconfined (FailClosed false) should use
// Prepare to learn whether the command is confined.
func Command(ctx context.Context, o Options, argv []string) (*exec.Cmd, error) {
	p, err := Prepare(ctx, o, argv)
	if err != nil {
		return nil, err
	}
	return p.Cmd, nil
}

// Run runs argv confined, with the given stdin, stdout and stderr, and
// returns its exit status: the command's own, or 128+n when signal n ended
// it. err is nil whenever the command ran, whatever its status; it is
// non-nil when it could not be started (wrapping [ErrUnavailable] when no
// launcher works) or when ctx ended it. When the options allow running
// unconfined and it does, [UnconfinedNote] is written to stderr first.
func Run(ctx context.Context, o Options, argv []string, stdin io.Reader, stdout, stderr io.Writer) (exitCode int, err error) {
	p, err := Prepare(ctx, o, argv)
	if err != nil {
		return -1, err
	}
	if p.Note != "" && stderr != nil {
		fmt.Fprintln(stderr, p.Note)
	}
	return p.Run(ctx, stdin, stdout, stderr)
}

// Run starts the prepared command with the given streams and waits for
// it; see the package's [Run], whose status and errors it returns. It
// does not print the Note. ctx must be the one given to Prepare.
func (p *Prepared) Run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) (exitCode int, err error) {
	p.Cmd.Stdin, p.Cmd.Stdout, p.Cmd.Stderr = stdin, stdout, stderr
	err = p.Cmd.Run()
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := exitStatus(ee.ProcessState)
		if ctx.Err() != nil {
			return code, fmt.Errorf("%s: %w", p.Launcher, ctx.Err())
		}
		return code, nil
	}
	return -1, fmt.Errorf("run under %s: %w", p.Launcher, err)
}

// ErrNoExec is returned by [Prepared.Exec] when the command cannot replace
// the current process: the landlock launcher and sandbox-exec need their
// own process set up, and some OSes have no exec. Nothing was done; use
// [Prepared.Run].
var ErrNoExec = errors.New("the launcher cannot run in place of this process")

// Exec replaces the current process with the prepared command, which
// inherits the process's stdin, stdout and stderr and whose status becomes
// the process's. This saves a process and the wait for it on every
// confined command. It returns only on failure: [ErrNoExec] when the
// launcher cannot run in place (nothing was done), or the exec's error.
func (p *Prepared) Exec() error {
	if p.Cmd.SysProcAttr != nil {
		return ErrNoExec
	}
	if p.Cmd.Err != nil {
		return p.Cmd.Err
	}
	return execInPlace(p.Cmd.Path, p.Cmd.Args, p.Cmd.Env, p.Cmd.Dir, p.Cmd.ExtraFiles)
}

// exitStatus is the exit code, or 128+n for a death by signal n.
func exitStatus(ps interface {
	ExitCode() int
	Sys() any
}) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// setStop makes the command get SIGTERM when its context ends, and SIGKILL
// stopGrace later.
func setStop(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return terminate(cmd.Process) }
	cmd.WaitDelay = stopGrace
}
