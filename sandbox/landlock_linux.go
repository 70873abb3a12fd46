//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// minLandlockABI is the oldest Landlock ABI the landlock launcher accepts:
// ABI 3 (Linux 6.2) is the first to control truncate(2), without which a
// confined command could empty files it may not write.
const minLandlockABI = 3

// childArg is the first argument that makes [MaybeReexec] act as the
// landlock launcher's child.
const childArg = "__sandbox-child"

// landlockLauncher confines without any helper program: it re-executes
// agate (which must call [MaybeReexec] first thing) into new user, pid,
// mount, ipc, uts and cgroup namespaces, and a new network namespace with
// only loopback unless the network is allowed. The child lays out the
// mounts (private /tmp and /dev, fresh /proc with /proc/sys read-only,
// hidden dirs, pinned and protected paths), drops every capability, sets
// no_new_privs, applies Landlock (writes only under the work dir, the
// writable paths, /tmp and a few devices) and runs the command as its only
// child, reaping and forwarding signals as pid 1.
//
// Landlock alone does not cut UDP or unix sockets at ABI 7; the network
// namespace does. It is applied in the child because applying it in the Go
// parent before starting the child breaks the user namespace's setup.
type landlockLauncher struct{}

var _ launcher = (*landlockLauncher)(nil)

func (*landlockLauncher) name() string { return LauncherLandlock }

// landlockABI returns the kernel's Landlock ABI version, 0 when it has none.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// readSysctl returns a /proc/sys value, "" when it cannot be read.
func readSysctl(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (*landlockLauncher) check(o Options) error {
	switch abi := landlockABI(); {
	case abi == 0:
		return errors.New("the kernel has no Landlock (or it is not enabled at boot)")
	case abi < minLandlockABI:
		return fmt.Errorf("the kernel's Landlock ABI %d is too old (need %d: Linux 6.2 or later)", abi, minLandlockABI)
	}
	exe, err := executable(o)
	if err != nil {
		return err
	}
	if _, err := os.Stat(exe); err != nil {
		return fmt.Errorf("agate's executable: %w", err)
	}
	if e := usernsQuick(); e != nil {
		return e
	}
	if e := apparmorRefuses("agate"); e != nil {
		return e
	}
	return nil
}

// executable returns the agate binary to re-execute.
func executable(o Options) (string, error) {
	if o.Executable != "" {
		return o.Executable, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find agate's own executable: %w", err)
	}
	return exe, nil
}

// childSpec is what the parent tells the child, as JSON in its arguments.
type childSpec struct {
	Work   string       `json:"work"`
	Roots  []string     `json:"roots"` // writable roots, the work dir first
	Mounts []childMount `json:"mounts"`
	Net    bool         `json:"net,omitempty"`
	Argv   []string     `json:"argv"`
}

// childMount is one step of the layout.
type childMount struct {
	Kind mountKind `json:"k"`
	Path string    `json:"p"`
	Data []byte    `json:"d,omitempty"` // a view's content
}

// spec builds the child's spec for p.
func spec(p *plan) childSpec {
	s := childSpec{Work: p.start(), Roots: p.roots(), Net: p.net, Argv: p.argv}
	for _, m := range p.mounts {
		s.Mounts = append(s.Mounts, childMount{Kind: m.kind, Path: m.path, Data: p.views[m.path]})
	}
	return s
}

// Capabilities the child keeps through exec in its user namespace, to lay
// out its mounts, bring loopback up and then drop the bounding set.
const (
	capNetAdmin = 12
	capSetPCap  = 8
	capSysAdmin = 21
)

func (*landlockLauncher) command(ctx context.Context, p *plan) (*exec.Cmd, error) {
	exe, err := executable(p.opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errMissing, err)
	}
	js, err := json.Marshal(spec(p))
	if err != nil {
		return nil, fmt.Errorf("encode the child's spec: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, childArg, string(js))
	cmd.Env = p.env
	cmd.Dir = p.start()
	flags := syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
		syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP
	if !p.net {
		flags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  uintptr(flags),
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{capSysAdmin, capSetPCap, capNetAdmin},
		Setsid:      true,
		Pdeathsig:   syscall.SIGKILL,
	}
	return cmd, nil
}

func (*landlockLauncher) version(context.Context, Options) string {
	if abi := landlockABI(); abi > 0 {
		return "Landlock ABI " + strconv.Itoa(abi)
	}
	return ""
}
