//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
)

// bwrap confines with bubblewrap. Every namespace is unshared (user, pid,
// net, ipc, uts, cgroup), every capability dropped, / bound read-only with a
// private /dev, a fresh /proc whose /proc/sys is read-only, and an empty
// /tmp; bwrap dies with its parent and starts the command in a new session,
// so it cannot push keystrokes into the caller's terminal. Root keeps no
// capability inside, so it cannot remount / read-write.
type bwrap struct{}

var _ launcher = (*bwrap)(nil)

func (*bwrap) name() string { return LauncherBwrap }

// check finds bwrap and makes sure this process may have user namespaces
// (see usernsRefused): where it may not, bwrap is installed but cannot
// start. As root with user.max_user_namespaces = 0, bwrap does without one.
func (*bwrap) check(Options) error {
	if _, err := exec.LookPath("bwrap"); err != nil {
		return errors.New("bwrap is not installed")
	}
	if e := usernsQuick(); e != nil && (getuid() != 0 || !e.switchedOff) {
		return e
	}
	if e := apparmorRefuses("bwrap"); e != nil {
		return e
	}
	return nil
}

// bwrapArgs returns bwrap's arguments for p.
func bwrapArgs(p *plan) []string {
	a := make([]string, 0, 32+3*len(p.mounts)+len(p.argv))
	a = append(a, "--unshare-all")
	if p.net {
		a = append(a, "--share-net")
	}
	a = append(a,
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--ro-bind", "/proc/sys", "/proc/sys",
		"--tmpfs", "/tmp",
	)
	for _, m := range p.mounts {
		switch m.kind {
		case mountBindRW, mountPin:
			a = append(a, "--bind", m.path, m.path)
		case mountBindRO, mountProtect:
			a = append(a, "--ro-bind", m.path, m.path)
		case mountHideDir:
			a = append(a, "--tmpfs", m.path)
		case mountHideFile:
			a = append(a, "--ro-bind", "/dev/null", m.path)
		}
	}
	a = append(a, "--chdir", p.work, "--")
	return append(a, p.argv...)
}

func (b *bwrap) command(ctx context.Context, p *plan) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, "bwrap", bwrapArgs(p)...)
	if cmd.Err != nil {
		return nil, fmt.Errorf("%w: bwrap is not installed", errMissing)
	}
	cmd.Env = p.env // bwrap passes its environment on
	cmd.Dir = p.work
	return cmd, nil
}

func (*bwrap) version(ctx context.Context, _ Options) string {
	return firstLine(ctx, "bwrap", "--version")
}
