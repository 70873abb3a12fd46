//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Both Linux launchers need the kernel to give this process new user
// namespaces (bwrap as root can do without, see usernsRefused). Where it
// does not, they fail at their first step: bwrap with "No permissions to
// create new namespace", the landlock launcher's child with EPERM. The
// kernel refuses them
//
//   - when a sysctl switches them off: user.max_user_namespaces = 0 (in
//     this process's user namespace), or Debian's older
//     kernel.unprivileged_userns_clone = 0 for ordinary users;
//   - under Ubuntu's AppArmor restriction of unprivileged user namespaces
//     (kernel.apparmor_restrict_unprivileged_userns = 1, the default since
//     Ubuntu 23.10), for programs without a profile that allows them: the
//     namespace is made, but without capabilities, so bwrap fails on its
//     uid map;
//   - inside a container whose seccomp profile forbids clone and unshare
//     with CLONE_NEWUSER (Docker's and podman's defaults do), and inside a
//     chroot (EPERM for any chrooted process).
//
// The quick checks look for each, so that a command is refused with the
// reason (and `agate sandbox` exits 125) rather than started under a
// launcher that cannot start.

// Where the checks read the kernel's settings, and who asks; tests change
// them.
var (
	getuid            = os.Getuid
	procSys           = "/proc/sys"
	apparmorProfiles  = "/sys/kernel/security/apparmor/profiles"
	apparmorPolicyDir = "/etc/apparmor.d"
)

// usernsError is why this process gets no user namespaces, and what the
// person can change.
type usernsError struct {
	reason string
	fix    string
	// switchedOff is user.max_user_namespaces = 0 here, which bwrap run
	// as root reads and then does without a user namespace.
	switchedOff bool
}

func (e *usernsError) Error() string { return e.reason }

// Fix says what to change for user namespaces to work here.
func (e *usernsError) Fix() string { return e.fix }

const fixMaxUserNS = "allow user namespaces: sysctl -w user.max_user_namespaces=15000 " +
	"(and the same line in /etc/sysctl.d/ to keep it); the limit belongs to each user namespace, so inside a " +
	"container or another user namespace set it where that namespace is made (the host, for a container)"

// usernsRefused reports why this process cannot make a user namespace, or
// nil when it can: the sysctls first, then a real attempt (a fork into a
// new user namespace that execs nothing, well under a millisecond).
func usernsRefused() *usernsError { return usernsCheck(false) }

// usernsQuick is usernsRefused for the launchers' quick checks, which run
// before every confined command: the fork costs more than the rest of
// preparing a command together, so a success is remembered (see
// rememberUserns) and a refusal never is. A stale success costs nothing
// but the reason: the launcher then fails at its start, and the command
// still does not run.
func usernsQuick() *usernsError { return usernsCheck(true) }

func usernsCheck(remember bool) *usernsError {
	if readSysctl(filepath.Join(procSys, "user/max_user_namespaces")) == "0" {
		return &usernsError{
			reason:      "user namespaces are switched off (user.max_user_namespaces = 0)",
			fix:         fixMaxUserNS,
			switchedOff: true,
		}
	}
	if getuid() != 0 && readSysctl(filepath.Join(procSys, "kernel/unprivileged_userns_clone")) == "0" {
		return &usernsError{
			reason: "unprivileged user namespaces are switched off (kernel.unprivileged_userns_clone = 0)",
			fix: "allow them: sysctl -w kernel.unprivileged_userns_clone=1 (and the same line in /etc/sysctl.d/ " +
				"to keep it)",
		}
	}
	fp := ""
	if remember {
		if fp = usernsFingerprint(); fp != "" && rememberedUserns(fp) {
			return nil
		}
	}
	errno := tryUserns()
	if errno == 0 {
		if fp != "" {
			rememberUserns(fp)
		}
		return nil
	}
	e := &usernsError{reason: fmt.Sprintf("the kernel refused a new user namespace (clone: %v)", errno)}
	switch {
	case errno == syscall.ENOSPC:
		e.reason += ": the user namespace limit is reached (user.max_user_namespaces, here or in a parent namespace)"
		e.fix = fixMaxUserNS
	case errno == syscall.EINVAL:
		e.reason += ": this kernel has no user namespaces (CONFIG_USER_NS)"
		e.fix = "run a kernel built with user namespaces (CONFIG_USER_NS=y), or use a container launcher " +
			"([sandbox] launcher = \"podman\" or \"docker\")"
	case seccompFiltered() && inContainer() != "":
		e.reason += ": the seccomp filter of the container agate runs in (" + inContainer() + ") forbids them"
		e.fix = "let the container make user namespaces: run it with --security-opt seccomp=unconfined (or a " +
			"seccomp profile that allows clone and unshare with CLONE_NEWUSER) and, where AppArmor confines it, " +
			"--security-opt apparmor=unconfined (or --privileged); or run agate on the host"
	case seccompFiltered():
		e.reason += ": a seccomp filter on agate's process forbids them (a container's, or its service's)"
		e.fix = "lift the filter where agate is started: in a container, run it with --security-opt seccomp=unconfined " +
			"(or a seccomp profile that allows clone and unshare with CLONE_NEWUSER); for a systemd service, " +
			"RestrictNamespaces= and SystemCallFilter=; or run agate outside it"
	default:
		e.reason += ": agate runs in a chroot (the kernel gives a chrooted process none) or a security module " +
			"(SELinux, AppArmor) forbids them"
		e.fix = "run agate outside the chroot (a container or a mount namespace in its place), or allow user " +
			"namespaces in the security module's policy"
	}
	return e
}

// apparmorRefuses reports why AppArmor keeps the launcher named who
// (the bwrap program, or agate itself) from using user namespaces, or nil.
// Root is not restricted; an ordinary user is when
// kernel.apparmor_restrict_unprivileged_userns is 1, unless a profile lets
// the program make them, which is looked for only for bwrap (Ubuntu has
// bwrap-userns-restrict; agate has no profile of its own).
func apparmorRefuses(who string) *usernsError {
	if !apparmorRestricts() || who == "bwrap" && bwrapProfile() {
		return nil
	}
	return apparmorError(who, " and bwrap has no AppArmor profile that allows them")
}

// apparmorRestricts reports whether AppArmor restricts this user's user
// namespaces.
func apparmorRestricts() bool {
	return getuid() != 0 && readSysctl(filepath.Join(procSys, "kernel/apparmor_restrict_unprivileged_userns")) == "1"
}

// apparmorError is the AppArmor restriction as the reason who cannot
// start, with more said about bwrap (bwrapWhy).
func apparmorError(who, bwrapWhy string) *usernsError {
	e := &usernsError{reason: "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)"}
	if who == "bwrap" {
		e.reason += bwrapWhy
		e.fix = "give bwrap an AppArmor profile that allows user namespaces: on Ubuntu 24.04, apt install " +
			"apparmor-profiles, copy /usr/share/apparmor/extra-profiles/bwrap-userns-restrict into /etc/apparmor.d/ " +
			"and load it with apparmor_parser -r /etc/apparmor.d/bwrap-userns-restrict (later Ubuntus ship it in " +
			"/etc/apparmor.d); or lift the restriction for everyone: sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
	} else {
		e.fix = "use bwrap with an AppArmor profile that allows user namespaces (apt install bubblewrap, then its " +
			"profile: see the bwrap launcher), or lift the restriction: sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
	}
	return e
}

// bwrapProfile reports whether AppArmor has, or is given at boot, a
// profile for bwrap: one is loaded (when the list can be read), or a
// policy file is named for it.
func bwrapProfile() bool {
	if b, err := os.ReadFile(apparmorProfiles); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			name, _, _ := strings.Cut(line, " (")
			if name == "bwrap" || strings.HasSuffix(name, "/bwrap") || strings.HasPrefix(name, "bwrap-") {
				return true
			}
		}
		return false
	}
	m, _ := filepath.Glob(filepath.Join(apparmorPolicyDir, "*bwrap*"))
	return len(m) > 0
}

// tryUserns forks into a new user namespace and has the child exec a path
// that cannot exist (/dev/null is no directory). An ENOTDIR from the exec
// means the namespace was made; an errno from the fork itself is the
// kernel's refusal. Tests count its calls.
var tryUserns = func() syscall.Errno {
	cmd := exec.Command("/dev/null/agate-userns-probe")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
	err := cmd.Start()
	if err == nil { // cannot happen; do not leave it behind
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return 0
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) || errno == syscall.ENOTDIR || errno == syscall.ENOENT {
		return 0
	}
	return errno
}

// refusedNow is why the machine refuses l what it needs, asked afresh
// after l failed its probe though its quick check passed (a success
// remembered, a bwrap AppArmor profile that does not allow enough), or
// nil. What was remembered is forgotten.
func refusedNow(l launcher) error {
	name := l.name()
	if name != LauncherBwrap && name != LauncherLandlock {
		return nil
	}
	e := usernsRefused()
	if e != nil {
		if p := usernsCache(); p != "" {
			os.Remove(p)
		}
		if name != LauncherBwrap || getuid() != 0 || !e.switchedOff {
			return e
		}
	}
	if apparmorRestricts() {
		return apparmorError(name, ", and bwrap failed to start under it: its AppArmor profile does not allow user namespaces")
	}
	return nil
}

// usernsCache is where a user namespace made for this user is
// remembered: the user's runtime dir, which is private, gone at reboot,
// and hidden from sandboxed commands. "" when there is none.
func usernsCache() string {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" || !filepath.IsAbs(dir) || !ownDir(dir) {
		return ""
	}
	return filepath.Join(dir, "agate-userns-ok")
}

// usernsFingerprint names what decides whether this process gets user
// namespaces, beyond the sysctls read each time: the user, its user and
// mount namespaces, the root dir (a chroot), and the seccomp filter and
// no_new_privs state. "" when it cannot be told.
func usernsFingerprint() string {
	userNS, err1 := os.Readlink("/proc/self/ns/user")
	mntNS, err2 := os.Readlink("/proc/self/ns/mnt")
	var root syscall.Stat_t
	err3 := syscall.Stat("/", &root)
	status, err4 := os.ReadFile("/proc/self/status")
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return ""
	}
	var filters []string
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "Seccomp") || strings.HasPrefix(line, "NoNewPrivs") {
			filters = append(filters, strings.Join(strings.Fields(line), ""))
		}
	}
	return fmt.Sprintf("uid=%d %s %s root=%d:%d %s\n", getuid(), userNS, mntNS, root.Dev, root.Ino, strings.Join(filters, " "))
}

// rememberedUserns reports whether a user namespace was made under fp.
func rememberedUserns(fp string) bool {
	p := usernsCache()
	if p == "" {
		return false
	}
	b, err := os.ReadFile(p)
	return err == nil && string(b) == fp
}

// rememberUserns notes that a user namespace was made under fp. It is a
// hint: failing to write it costs a probe next time.
func rememberUserns(fp string) {
	p := usernsCache()
	if p == "" {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".agate-userns-*")
	if err != nil {
		return
	}
	_, err = f.WriteString(fp)
	if cerr := f.Close(); err == nil && cerr == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// inContainer names the container agate seems to run in, "" for none.
func inContainer() string {
	if v := os.Getenv("container"); v != "" { // systemd-nspawn, podman, LXC
		return v
	}
	if _, err := os.Stat("/.dockerenv"); err == nil {
		return "docker"
	}
	if _, err := os.Stat("/run/.containerenv"); err == nil {
		return "podman"
	}
	return ""
}

// seccompFiltered reports whether a seccomp filter is on this process.
func seccompFiltered() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Seccomp:"); ok {
			return strings.TrimSpace(v) == "2"
		}
	}
	return false
}
