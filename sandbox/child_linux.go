//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// MaybeReexec must be the first call in agate's main. When the process was
// started by the landlock launcher ("agate __sandbox-child SPEC"), it sets
// up the sandbox, runs the command and exits with its status, never
// returning. Otherwise it returns at once.
func MaybeReexec() {
	if len(os.Args) < 3 || os.Args[1] != childArg {
		return
	}
	os.Exit(runChild(os.Args[2]))
}

// devNodes are the host devices the private /dev offers.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// forwarded are the signals pid 1 passes on to the command.
var forwarded = []os.Signal{
	syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM,
}

// runChild is the landlock launcher's child: pid 1 of new namespaces. It
// returns the exit status to exit with.
func runChild(specJSON string) int {
	// Capabilities, no_new_privs and Landlock below belong to this thread,
	// and the command is forked from it: never unlock it.
	runtime.LockOSThread()
	fail := func(code int, err error) int {
		fmt.Fprintf(os.Stderr, "agate sandbox: %v\n", err)
		return code
	}
	var s childSpec
	if err := json.Unmarshal([]byte(specJSON), &s); err != nil {
		return fail(ExitSetupFailed, fmt.Errorf("bad spec: %w", err))
	}
	if len(s.Argv) == 0 || s.Work == "" {
		return fail(ExitSetupFailed, errors.New("bad spec: no command or no work dir"))
	}
	// The mounts below would change the caller's own mount namespace if
	// this were not a fresh one: a fresh pid namespace makes this pid 1.
	if os.Getpid() != 1 {
		return fail(ExitSetupFailed, errors.New("not started by the landlock launcher (not pid 1 of a new namespace)"))
	}
	if err := layout(&s); err != nil {
		return fail(ExitSetupFailed, fmt.Errorf("set up the mounts: %w", err))
	}
	if !s.Net {
		if err := loopbackUp(); err != nil {
			return fail(ExitSetupFailed, fmt.Errorf("bring loopback up: %w", err))
		}
	}
	if err := syscall.Chdir(s.Work); err != nil {
		return fail(ExitSetupFailed, fmt.Errorf("enter the work dir: %w", err))
	}
	path, err := exec.LookPath(s.Argv[0])
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return fail(ExitNotFound, fmt.Errorf("%s: command not found", s.Argv[0]))
	}
	if err := dropCapabilities(); err != nil {
		return fail(ExitSetupFailed, fmt.Errorf("drop capabilities: %w", err))
	}
	if err := restrictLandlock(&s); err != nil {
		return fail(ExitSetupFailed, fmt.Errorf("landlock: %w", err))
	}

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	pid, err := syscall.ForkExec(path, s.Argv, &syscall.ProcAttr{
		Dir:   s.Work,
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return fail(ExitCannotRun, fmt.Errorf("%s: %w", s.Argv[0], err))
	}
	go func() {
		for sig := range sigs {
			_ = syscall.Kill(pid, sig.(syscall.Signal))
		}
	}()
	// Reap everything (orphans come to pid 1) until the command ends; the
	// kernel kills what is left when pid 1 exits.
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return fail(ExitSetupFailed, fmt.Errorf("wait: %w", err))
		}
		if wpid != pid {
			continue
		}
		switch {
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
}

// layout builds the sandbox's filesystem in the fresh mount namespace.
func layout(s *childSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	// Clone what is bound from the host before /tmp, /dev or a hidden dir
	// covers it.
	sources := map[string]int{}
	defer func() {
		for _, fd := range sources {
			unix.Close(fd)
		}
	}()
	for _, m := range s.Mounts {
		if m.Kind != mountBindRW && m.Kind != mountBindRO {
			continue
		}
		if _, dup := sources[m.Path]; dup {
			continue
		}
		fd, err := cloneTree(m.Path)
		if err != nil {
			return err
		}
		sources[m.Path] = fd
	}
	devs := map[string]int{}
	defer func() {
		for _, fd := range devs {
			unix.Close(fd)
		}
	}()
	for _, d := range devNodes {
		fd, err := cloneTree("/dev/" + d)
		if err == nil {
			devs[d] = fd
		}
	}

	if err := tmpfs("/tmp", "mode=1777"); err != nil {
		return err
	}
	if err := privateDev(devs); err != nil {
		return err
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	if err := rebind("/proc/sys", true); err != nil {
		return err
	}

	for _, m := range s.Mounts {
		var err error
		switch m.Kind {
		case mountBindRW, mountBindRO:
			fd, ok := sources[m.Path]
			if !ok {
				continue // bound already
			}
			if m.Kind == mountBindRO {
				if err := readOnly(fd, m.Path); err != nil {
					return err
				}
			}
			if err := ensureTarget(m.Path, m.Path); err != nil {
				return err
			}
			err = attach(fd, m.Path)
			delete(sources, m.Path) // attached: no longer ours to close
			unix.Close(fd)
		case mountEmptyDir:
			if err = ensureDir(m.Path); err == nil {
				err = tmpfs(m.Path, "mode=0755")
			}
		case mountHideDir:
			// Read-only and mode 0000: entering it is "permission denied",
			// and nothing can chmod it open.
			if err = ensureDir(m.Path); err == nil {
				err = denyTmpfs(m.Path)
			}
		case mountHideFile:
			if err = ensureFile(m.Path); err == nil {
				err = bindDenied(m.Path)
			}
		case mountView:
			if err = ensureFile(m.Path); err == nil {
				err = bindView(m.Path, m.Data)
			}
		case mountPin:
			err = rebind(m.Path, false)
		case mountProtect:
			err = rebind(m.Path, true)
		default:
			err = fmt.Errorf("unknown mount kind %d", m.Kind)
		}
		if err != nil {
			return err
		}
	}
	// The binds hold the hidden files' inode; the name goes.
	if err := os.Remove(deniedFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", deniedFile, err)
	}
	return nil
}

// cloneTree clones the mount tree at path into a detached mount.
func cloneTree(path string) (int, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return -1, fmt.Errorf("clone %s: %w", path, err)
	}
	return fd, nil
}

// readOnly makes a detached mount tree read-only, all of it.
func readOnly(fd int, path string) error {
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, attr); err != nil {
		return fmt.Errorf("make %s read-only: %w", path, err)
	}
	return nil
}

// attach mounts a detached tree at target.
func attach(fd int, target string) error {
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("mount at %s: %w", target, err)
	}
	return nil
}

// bindFrom binds src at target, read-only if ro.
func bindFrom(src, target string, ro bool) error {
	fd, err := cloneTree(src)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if ro {
		if err := readOnly(fd, target); err != nil {
			return err
		}
	}
	return attach(fd, target)
}

// rebind binds path onto itself, read-only if ro: a writable self-bind
// makes a directory a mount point, which cannot be renamed or removed.
func rebind(path string, ro bool) error { return bindFrom(path, path, ro) }

// deniedFile is an empty file of mode 0000 in the sandbox's private /tmp,
// bound read-only over each hidden file, then removed (the binds keep
// it).
const deniedFile = "/tmp/.agate-denied"

// bindDenied binds an empty, mode-0000 file read-only over target: reading
// it is "permission denied".
func bindDenied(target string) error {
	if _, err := os.Lstat(deniedFile); err != nil {
		f, err := os.OpenFile(deniedFile, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("make the file hidden files show: %w", err)
		}
		f.Close()
	}
	return bindFrom(deniedFile, target, true)
}

// viewFile is where a view's content is written in the sandbox's private
// /tmp before it is bound over its file; the name then goes.
const viewFile = "/tmp/.agate-view"

// bindView binds a read-only file of mode 0444 holding data over target.
func bindView(target string, data []byte) error {
	if err := os.WriteFile(viewFile, data, 0o444); err != nil {
		return fmt.Errorf("write the view of %s: %w", target, err)
	}
	err := bindFrom(viewFile, target, true)
	if rerr := os.Remove(viewFile); err == nil && rerr != nil {
		err = fmt.Errorf("remove %s: %w", viewFile, rerr)
	}
	return err
}

// denyTmpfs mounts an empty tmpfs of mode 0000, read-only, at path.
func denyTmpfs(path string) error {
	if err := unix.Mount("tmpfs", path, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_RDONLY, "mode=0000"); err != nil {
		return fmt.Errorf("mount tmpfs at %s: %w", path, err)
	}
	return nil
}

// tmpfs mounts an empty tmpfs at path.
func tmpfs(path, opts string) error {
	if err := unix.Mount("tmpfs", path, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mount tmpfs at %s: %w", path, err)
	}
	return nil
}

// privateDev mounts a small /dev: the host's null, zero, full, random,
// urandom and tty, a private devpts and /dev/shm, and the usual links.
func privateDev(devs map[string]int) error {
	if err := tmpfs("/dev", "mode=0755"); err != nil {
		return err
	}
	for _, d := range devNodes {
		fd, ok := devs[d]
		if !ok {
			continue
		}
		target := "/dev/" + d
		if err := ensureFile(target); err != nil {
			return err
		}
		if err := attach(fd, target); err != nil {
			return err
		}
		delete(devs, d)
		unix.Close(fd)
	}
	if err := os.Mkdir("/dev/pts", 0o755); err != nil {
		return fmt.Errorf("make /dev/pts: %w", err)
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC,
		"newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mount /dev/pts: %w", err)
	}
	if err := os.Mkdir("/dev/shm", 0o755); err != nil {
		return fmt.Errorf("make /dev/shm: %w", err)
	}
	if err := tmpfs("/dev/shm", "mode=1777"); err != nil {
		return err
	}
	links := [][2]string{
		{"pts/ptmx", "/dev/ptmx"}, {"/proc/self/fd", "/dev/fd"},
		{"/proc/self/fd/0", "/dev/stdin"}, {"/proc/self/fd/1", "/dev/stdout"},
		{"/proc/self/fd/2", "/dev/stderr"},
	}
	for _, l := range links {
		if err := os.Symlink(l[0], l[1]); err != nil {
			return fmt.Errorf("link %s: %w", l[1], err)
		}
	}
	return nil
}

// ensureTarget makes sure a mount point exists at target for a bind of
// src: a directory for a directory, a file otherwise. It creates one only
// where nothing is (inside a fresh tmpfs).
func ensureTarget(src, target string) error {
	if _, err := os.Lstat(target); err == nil {
		return nil
	}
	fi, err := os.Stat(src)
	if err == nil && !fi.IsDir() {
		return ensureFile(target)
	}
	return ensureDir(target)
}

// ensureDir creates the directory path if nothing is there.
func ensureDir(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("make mount point %s: %w", path, err)
	}
	return nil
}

// ensureFile creates an empty file at path if nothing is there.
func ensureFile(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("make mount point %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("make mount point %s: %w", path, err)
	}
	return f.Close()
}

// loopbackUp brings up lo in the new network namespace, so the command
// can use localhost among its own processes.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// dropCapabilities empties this thread's bounding, ambient, effective,
// permitted and inheritable sets, so the command has no capability even
// when it runs as root.
func dropCapabilities() error {
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the last capability
			}
			return fmt.Errorf("bounding set: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("ambient set: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// restrictLandlock sets no_new_privs and applies Landlock to this thread:
// read and execute everywhere, write only under the writable roots, /tmp,
// /dev/shm, /dev/pts and the harmless devices. It fails when the kernel
// enforces nothing.
func restrictLandlock(s *childSpec) error {
	if abi := landlockABI(); abi < minLandlockABI {
		return fmt.Errorf("kernel Landlock ABI %d, need %d", abi, minLandlockABI)
	}
	cfg := landlock.Config{
		HandledAccessFS: landlock.V11.HandledAccessFS,
		Scoped:          landlock.V11.Scoped,
	}.BestEffort()
	devFiles := make([]string, 0, len(devNodes))
	for _, d := range devNodes {
		devFiles = append(devFiles, "/dev/"+d)
	}
	fd, flags, err := cfg.NewRulesetFD(
		landlock.RODirs("/"),
		landlock.RWDirs(s.Roots...).WithRefer(),
		landlock.RWDirs("/tmp", "/dev/shm").WithRefer(),
		landlock.RWDirs("/dev/pts").WithIoctlDev(),
		landlock.RWFiles(devFiles...).WithIoctlDev().IgnoreIfMissing(),
	)
	if err != nil {
		return err
	}
	if fd < 0 {
		return errors.New("the kernel enforces no Landlock rule")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("restrict: %w", err)
	}
	return nil
}
