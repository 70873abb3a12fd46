//go:build linux

package sandboxtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Condition is one way a machine differs from the test machine.
type Condition string

const (
	// Seccomp: a seccomp filter makes clone and unshare with
	// CLONE_NEWUSER fail with EPERM, and clone3 with ENOSYS, as the
	// default profiles of Docker and podman do for a process without
	// CAP_SYS_ADMIN. Any user can have it (it sets no_new_privs).
	Seccomp Condition = "seccomp"
	// MaxUserNS: a user namespace mapping uids and gids 0-65535 to
	// themselves, whose user.max_user_namespaces is 0: no process in it can
	// make another (ENOSPC), as with the sysctl set on the host. Needs root.
	MaxUserNS Condition = "max-userns"
	// Chroot: a private mount namespace whose root is a recursive bind of
	// / onto itself, entered with chroot: the kernel counts the process as
	// chrooted and refuses it user namespaces (EPERM), as in the chroot
	// of a fresh Debian that stands in for a clean machine. Needs root.
	Chroot Condition = "chroot"
	// Tmp0755: a private mount namespace whose /tmp is an empty tmpfs of
	// mode 0755, as on a machine where /tmp is not world-writable. Needs
	// root.
	Tmp0755 Condition = "tmp-0755"
)

// envSpec carries the condition and the command to the wrapper process.
const envSpec = "AGATE_SANDBOXTEST_SPEC"

type spec struct {
	Condition Condition `json:"condition"`
	UID       int       `json:"uid"` // -1: unchanged; the gid is the same number
	Argv      []string  `json:"argv"`
	// The caller's namespaces: the wrapper changes a sysctl or mounts
	// only in namespaces of its own, never in these.
	UserNS  string `json:"user_ns"`
	MountNS string `json:"mount_ns"`
}

// Command returns a command that runs argv (argv[0] a path, or a name
// looked up on PATH) under condition c, as uid (and the gid of the same
// number; -1 keeps the caller's), with environment env (nil: this
// process's). The test binary itself is the wrapper that makes the
// condition, then execs argv in its own place: the command's status is
// the wrapper's. A condition that needs root fails here for anyone else.
func Command(c Condition, uid int, env []string, argv ...string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandboxtest: no command")
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var attr *syscall.SysProcAttr
	switch c {
	case Seccomp:
		if _, err := seccompArch(); err != nil {
			return nil, err
		}
	case MaxUserNS:
		attr = &syscall.SysProcAttr{
			Cloneflags:                 syscall.CLONE_NEWUSER,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}},
			GidMappingsEnableSetgroups: true,
		}
	case Chroot, Tmp0755:
		attr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
	default:
		return nil, fmt.Errorf("sandboxtest: unknown condition %q", c)
	}
	if attr != nil && os.Getuid() != 0 {
		return nil, fmt.Errorf("sandboxtest: the %s condition needs root (uid %d here)", c, os.Getuid())
	}
	if uid >= 0 && uid != os.Getuid() && os.Getuid() != 0 {
		return nil, fmt.Errorf("sandboxtest: only root can run a command as uid %d", uid)
	}
	userNS, err1 := os.Readlink("/proc/self/ns/user")
	mountNS, err2 := os.Readlink("/proc/self/ns/mnt")
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	b, err := json.Marshal(spec{Condition: c, UID: uid, Argv: argv, UserNS: userNS, MountNS: mountNS})
	if err != nil {
		return nil, err
	}
	if env == nil {
		env = os.Environ()
	}
	cmd := exec.Command(self)
	cmd.Env = append(env[:len(env):len(env)], envSpec+"="+string(b))
	cmd.SysProcAttr = attr
	return cmd, nil
}

// Main makes the condition and execs the command when this process was
// started by Command; otherwise it returns at once. It never returns
// when it acts: a failure exits with status 120 and says why.
func Main() {
	raw, ok := os.LookupEnv(envSpec)
	if !ok {
		return
	}
	if err := wrap(raw); err != nil {
		fmt.Fprintf(os.Stderr, "sandboxtest: %v\n", err)
		os.Exit(120)
	}
}

func wrap(raw string) error {
	var s spec
	if err := json.Unmarshal([]byte(raw), &s); err != nil || len(s.Argv) == 0 {
		return fmt.Errorf("bad spec %q", raw)
	}
	os.Unsetenv(envSpec)
	// Never in the caller's namespaces: there the sysctl or the mounts
	// would change the machine for every process on it.
	if err := ownNamespace(s); err != nil {
		return err
	}
	// The filter and no_new_privs are the calling thread's; the exec below
	// happens on the same thread and hands them to the command.
	runtime.LockOSThread()
	path, err := exec.LookPath(s.Argv[0])
	if err != nil {
		return err
	}
	switch s.Condition {
	case MaxUserNS:
		if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0\n"), 0); err != nil {
			return fmt.Errorf("switch user namespaces off in this one: %w", err)
		}
	case Chroot:
		if err := privateMounts(); err != nil {
			return err
		}
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		if err := unix.Mount("/", "/", "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind / onto itself: %w", err)
		}
		// "/" now names the new mount on top; chroot into it.
		if err := unix.Chdir("/"); err != nil {
			return err
		}
		if err := unix.Chroot("."); err != nil {
			return fmt.Errorf("chroot: %w", err)
		}
		if err := unix.Chdir(wd); err != nil {
			return err
		}
	case Tmp0755:
		if err := privateMounts(); err != nil {
			return err
		}
		if err := unix.Mount("agate-test-tmp", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=512m"); err != nil {
			return fmt.Errorf("mount a 0755 tmpfs on /tmp: %w", err)
		}
		fi, err := os.Stat("/tmp")
		if err != nil {
			return err
		}
		if fi.Mode()&(os.ModePerm|os.ModeSticky) != 0o755 {
			return fmt.Errorf("/tmp is %v, want 0755", fi.Mode())
		}
	}
	if s.UID >= 0 {
		if err := syscall.Setgroups(nil); err != nil {
			return fmt.Errorf("setgroups: %w", err)
		}
		if err := syscall.Setresgid(s.UID, s.UID, s.UID); err != nil {
			return fmt.Errorf("setresgid %d: %w", s.UID, err)
		}
		if err := syscall.Setresuid(s.UID, s.UID, s.UID); err != nil {
			return fmt.Errorf("setresuid %d: %w", s.UID, err)
		}
	}
	if s.Condition == Seccomp {
		if err := refuseUserns(); err != nil {
			return err
		}
	}
	return syscall.Exec(path, s.Argv, os.Environ())
}

// ownNamespace makes sure the wrapper runs in the namespace its condition
// changes, one of its own that Command made: a spec put in the
// environment by hand, or a clone flag lost, must not change the sysctl
// or the mounts of the machine.
func ownNamespace(s spec) error {
	var ns, was string
	switch s.Condition {
	case MaxUserNS:
		ns, was = "/proc/self/ns/user", s.UserNS
	case Chroot, Tmp0755:
		ns, was = "/proc/self/ns/mnt", s.MountNS
	default:
		return nil
	}
	now, err := os.Readlink(ns)
	if err != nil {
		return err
	}
	if was == "" || now == was {
		return fmt.Errorf("the %s condition is made only in a namespace of its own (%s is the caller's %s): start it with Command", s.Condition, ns, now)
	}
	return nil
}

// privateMounts keeps what follows to this mount namespace.
func privateMounts() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	return nil
}

// seccompArch is the audit arch the filter expects.
func seccompArch() (uint32, error) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, nil
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, nil
	}
	return 0, fmt.Errorf("sandboxtest: no seccomp filter for %s", runtime.GOARCH)
}

// refuseUserns puts a seccomp filter on this thread: clone and unshare
// with CLONE_NEWUSER fail with EPERM, clone3 (whose flags a filter cannot
// read) with ENOSYS, so that callers fall back to clone; anything else is
// allowed.
func refuseUserns() error {
	arch, err := seccompArch()
	if err != nil {
		return err
	}
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		nr    = 0  // offsetof(struct seccomp_data, nr)
		archo = 4  // offsetof(struct seccomp_data, arch)
		arg0  = 16 // offsetof(struct seccomp_data, args[0]), its low half on these little-endian arches
	)
	prog := []unix.SockFilter{
		/* 0 */ {Code: ld, K: archo},
		/* 1 */ {Code: jeq, K: arch, Jt: 0, Jf: 6}, // another arch: allow
		/* 2 */ {Code: ld, K: nr},
		/* 3 */ {Code: jeq, K: unix.SYS_CLONE3, Jt: 6, Jf: 0},
		/* 4 */ {Code: jeq, K: unix.SYS_UNSHARE, Jt: 1, Jf: 0},
		/* 5 */ {Code: jeq, K: unix.SYS_CLONE, Jt: 0, Jf: 2},
		/* 6 */ {Code: ld, K: arg0},
		/* 7 */ {Code: jset, K: unix.CLONE_NEWUSER, Jt: 1, Jf: 0},
		/* 8 */ {Code: ret, K: unix.SECCOMP_RET_ALLOW},
		/* 9 */ {Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		/* 10 */ {Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	runtime.KeepAlive(prog)
	return nil
}

// Describe says in a line what c is, for test logs.
func Describe(c Condition) string {
	switch c {
	case Seccomp:
		return "a seccomp filter refusing CLONE_NEWUSER (EPERM), as in a container"
	case MaxUserNS:
		return "a user namespace whose user.max_user_namespaces is 0"
	case Chroot:
		return "a chroot"
	case Tmp0755:
		return "a private /tmp of mode 0755"
	}
	return strings.TrimSpace(string(c))
}
