//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
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
	if p.net || networkCut() {
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
	nextFD := 3
	if hidesFile(p) {
		nextFD++ // fd 3 is /dev/null, for the hidden files
	}
	for _, m := range p.mounts {
		switch m.kind {
		case mountView:
			// The view's content comes from its own pipe (bwrapFiles).
			a = append(a, "--perms", "0444", "--ro-bind-data", strconv.Itoa(nextFD), m.path)
			nextFD++
		case mountBindRW, mountPin:
			a = append(a, "--bind", m.path, m.path)
		case mountBindRO, mountProtect:
			a = append(a, "--ro-bind", m.path, m.path)
		case mountEmptyDir:
			a = append(a, "--tmpfs", m.path)
		case mountHideDir:
			a = append(a, "--perms", "0000", "--tmpfs", m.path, "--remount-ro", m.path)
		case mountHideFile:
			// An empty file, mode 0000, read-only: the data comes from fd 3,
			// which is /dev/null (bwrapFiles).
			a = append(a, "--perms", "0000", "--ro-bind-data", "3", m.path)
		}
	}
	a = append(a, "--chdir", p.start(), "--")
	return append(a, p.argv...)
}

// hidesFile reports whether p hides a file (bwrap then reads /dev/null
// from fd 3 for all of them).
func hidesFile(p *plan) bool {
	for _, m := range p.mounts {
		if m.kind == mountHideFile {
			return true
		}
	}
	return false
}

// bwrapFiles are the files bwrap reads by descriptor, from fd 3 on, in the
// order bwrapArgs numbers them: /dev/null, the content of every hidden
// file, when there is one; then a memory file holding each view's
// content, read from its start.
func bwrapFiles(p *plan) (files []*os.File, err error) {
	defer func() {
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			files = nil
		}
	}()
	if hidesFile(p) {
		f, err := os.Open(os.DevNull)
		if err != nil {
			return nil, fmt.Errorf("open %s for the hidden files: %w", os.DevNull, err)
		}
		files = append(files, f)
	}
	for _, m := range p.mounts {
		if m.kind != mountView {
			continue
		}
		fd, err := unix.MemfdCreate("agate-view", unix.MFD_CLOEXEC)
		if err != nil {
			return files, fmt.Errorf("a memory file for the view of %s: %w", m.path, err)
		}
		f := os.NewFile(uintptr(fd), "agate-view")
		files = append(files, f)
		if _, err := f.Write(p.views[m.path]); err != nil {
			return files, fmt.Errorf("the view of %s: %w", m.path, err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return files, fmt.Errorf("the view of %s: %w", m.path, err)
		}
	}
	return files, nil
}

func (b *bwrap) command(ctx context.Context, p *plan) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, "bwrap", bwrapArgs(p)...)
	if cmd.Err != nil {
		return nil, fmt.Errorf("%w: bwrap is not installed", errMissing)
	}
	files, err := bwrapFiles(p)
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = files
	cmd.Env = p.env // bwrap passes its environment on
	cmd.Dir = p.start()
	return cmd, nil
}

func (*bwrap) version(ctx context.Context, _ Options) string {
	return firstLine(ctx, "bwrap", "--version")
}

// networkCut reports whether this process can open no network socket at
// all: every IPv4 and IPv6 socket, and the netlink one bwrap needs to
// bring up loopback in a new network namespace, are refused (EPERM or
// EACCES). That is a seccomp filter or a security module of an enclosing
// sandbox (Codex's workspace-write), which every child inherits and none
// can drop: there bwrap keeps the network namespace, which has no network
// it can use, instead of failing to make one.
var networkCut = sync.OnceValue(func() bool {
	for _, s := range []struct{ domain, typ, proto int }{
		{syscall.AF_INET, syscall.SOCK_STREAM, 0},
		{syscall.AF_INET, syscall.SOCK_DGRAM, 0},
		{syscall.AF_INET6, syscall.SOCK_STREAM, 0},
		{syscall.AF_INET6, syscall.SOCK_DGRAM, 0},
		{syscall.AF_NETLINK, syscall.SOCK_RAW, syscall.NETLINK_ROUTE},
	} {
		fd, err := syscall.Socket(s.domain, s.typ|syscall.SOCK_CLOEXEC, s.proto)
		if err == nil {
			syscall.Close(fd)
			return false
		}
		if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EACCES) {
			return false // no such family here, or out of descriptors: not a refusal
		}
	}
	return true
})
