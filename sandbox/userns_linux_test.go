//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeKernel points the user namespace checks at sysctls and AppArmor
// files of the test's own, as uid, with tryUserns answering errno (and
// counting its calls). Each sysctl is "path=value", under /proc/sys.
func fakeKernel(t *testing.T, uid int, errno syscall.Errno, sysctls ...string) *int {
	t.Helper()
	dir := t.TempDir()
	oldSys, oldProfiles, oldPolicy, oldUID, oldTry := procSys, apparmorProfiles, apparmorPolicyDir, getuid, tryUserns
	t.Cleanup(func() {
		procSys, apparmorProfiles, apparmorPolicyDir, getuid, tryUserns = oldSys, oldProfiles, oldPolicy, oldUID, oldTry
	})
	procSys = filepath.Join(dir, "sys")
	apparmorProfiles = filepath.Join(dir, "apparmor-profiles")
	apparmorPolicyDir = filepath.Join(dir, "apparmor.d")
	getuid = func() int { return uid }
	calls := new(int)
	tryUserns = func() syscall.Errno { *calls++; return errno }
	for _, kv := range sysctls {
		k, v, _ := strings.Cut(kv, "=")
		writeFile(t, filepath.Join(procSys, k), v+"\n")
	}
	if err := os.MkdirAll(apparmorPolicyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return calls
}

func TestUsernsRefusedReasons(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	for _, tc := range []struct {
		name        string
		uid         int
		errno       syscall.Errno
		sysctls     []string
		reason, fix string // "" reason: allowed
		switchedOff bool
	}{
		{"allowed", 1000, 0, []string{"user/max_user_namespaces=15000"}, "", "", false},
		{"max_user_namespaces 0", 1000, 0, []string{"user/max_user_namespaces=0"}, "user.max_user_namespaces = 0", "sysctl -w user.max_user_namespaces=", true},
		{"max_user_namespaces 0 as root", 0, 0, []string{"user/max_user_namespaces=0"}, "user.max_user_namespaces = 0", "sysctl -w user.max_user_namespaces=", true},
		{"Debian's switch", 1000, 0, []string{"kernel/unprivileged_userns_clone=0"}, "kernel.unprivileged_userns_clone = 0", "sysctl -w kernel.unprivileged_userns_clone=1", false},
		{"Debian's switch spares root", 0, 0, []string{"kernel/unprivileged_userns_clone=0"}, "", "", false},
		{"the limit reached", 1000, syscall.ENOSPC, nil, "limit is reached", "sysctl -w user.max_user_namespaces=", false},
		{"no user namespaces in the kernel", 1000, syscall.EINVAL, nil, "CONFIG_USER_NS", "CONFIG_USER_NS=y", false},
		{"refused", 1000, syscall.EPERM, nil, "clone: operation not permitted", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeKernel(t, tc.uid, tc.errno, tc.sysctls...)
			e := usernsRefused()
			if tc.reason == "" {
				if e != nil {
					t.Fatalf("usernsRefused = %v, want nil", e)
				}
				return
			}
			if e == nil || !strings.Contains(e.reason, tc.reason) || !strings.Contains(e.fix, tc.fix) || e.fix == "" || e.switchedOff != tc.switchedOff {
				t.Fatalf("usernsRefused = %+v, want the reason %q, fix %q, switchedOff %v", e, tc.reason, tc.fix, tc.switchedOff)
			}
		})
	}
}

// TestBwrapCheckAsRoot: root's bwrap does without a user namespace when
// user.max_user_namespaces is 0 (it reads the sysctl itself); anyone
// else's cannot start, nor can the landlock launcher.
func TestBwrapCheckAsRoot(t *testing.T) {
	if err := (&bwrap{}).check(Options{}); err != nil {
		t.Skip(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	fakeKernel(t, 0, syscall.ENOSPC, "user/max_user_namespaces=0")
	if err := (&bwrap{}).check(Options{}); err != nil {
		t.Errorf("root: bwrap check = %v, want nil", err)
	}
	if err := (&landlockLauncher{}).check(Options{}); err == nil {
		t.Error("root: the landlock launcher's check passed with user namespaces off")
	}
	fakeKernel(t, 1000, syscall.ENOSPC, "user/max_user_namespaces=0")
	if err := (&bwrap{}).check(Options{}); err == nil || !strings.Contains(err.Error(), "user.max_user_namespaces = 0") {
		t.Errorf("uid 1000: bwrap check = %v, want the sysctl named", err)
	}
	fakeKernel(t, 0, syscall.EPERM)
	if err := (&bwrap{}).check(Options{}); err == nil {
		t.Error("root: bwrap check passed with user namespaces refused (bwrap as root asks for one unless the sysctl is 0)")
	}
}

func TestApparmorRefuses(t *testing.T) {
	const restrict = "kernel/apparmor_restrict_unprivileged_userns=1"
	t.Run("not restricted", func(t *testing.T) {
		fakeKernel(t, 1000, 0, "kernel/apparmor_restrict_unprivileged_userns=0")
		if e := apparmorRefuses("bwrap"); e != nil {
			t.Errorf("apparmorRefuses = %v", e)
		}
	})
	t.Run("root is not restricted", func(t *testing.T) {
		fakeKernel(t, 0, 0, restrict)
		if e := apparmorRefuses("agate"); e != nil {
			t.Errorf("apparmorRefuses = %v", e)
		}
	})
	t.Run("no profile for bwrap", func(t *testing.T) {
		fakeKernel(t, 1000, 0, restrict)
		e := apparmorRefuses("bwrap")
		if e == nil || !strings.Contains(e.reason, "kernel.apparmor_restrict_unprivileged_userns = 1") ||
			!strings.Contains(e.fix, "bwrap-userns-restrict") || !strings.Contains(e.fix, "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0") {
			t.Errorf("apparmorRefuses = %+v", e)
		}
		if e := apparmorRefuses("agate"); e == nil || !strings.Contains(e.fix, "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0") {
			t.Errorf("apparmorRefuses(agate) = %+v", e)
		}
	})
	t.Run("a loaded profile for bwrap", func(t *testing.T) {
		fakeKernel(t, 1000, 0, restrict)
		writeFile(t, apparmorProfiles, "unprivileged_userns (enforce)\nbwrap (enforce)\nunpriv_bwrap (enforce)\n")
		if e := apparmorRefuses("bwrap"); e != nil {
			t.Errorf("apparmorRefuses = %v", e)
		}
		if e := apparmorRefuses("agate"); e == nil {
			t.Error("the landlock launcher has no profile of its own")
		}
	})
	t.Run("the loaded list lacks bwrap, whatever the files say", func(t *testing.T) {
		fakeKernel(t, 1000, 0, restrict)
		writeFile(t, apparmorProfiles, "unprivileged_userns (enforce)\n")
		writeFile(t, filepath.Join(apparmorPolicyDir, "bwrap-userns-restrict"), "# not loaded\n")
		if e := apparmorRefuses("bwrap"); e == nil {
			t.Error("apparmorRefuses = nil, want the restriction")
		}
	})
	t.Run("a policy file for bwrap, the list unreadable", func(t *testing.T) {
		fakeKernel(t, 1000, 0, restrict)
		writeFile(t, filepath.Join(apparmorPolicyDir, "bwrap-userns-restrict"), "profile bwrap /usr/bin/bwrap {}\n")
		if e := apparmorRefuses("bwrap"); e != nil {
			t.Errorf("apparmorRefuses = %v", e)
		}
	})
}

// TestUsernsRemembered: the quick check forks once per fingerprint and
// remembers only a success, in the user's runtime dir; a probe that fails
// afterwards forgets it and says why.
func TestUsernsRemembered(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	calls := fakeKernel(t, 1000, 0)
	for range 3 {
		if e := usernsQuick(); e != nil {
			t.Fatal(e)
		}
	}
	if *calls != 1 {
		t.Errorf("the quick check forked %d times, want 1", *calls)
	}
	cache := filepath.Join(run, "agate-userns-ok")
	b, err := os.ReadFile(cache)
	if err != nil || string(b) != usernsFingerprint() {
		t.Fatalf("remembered %q (%v), want the fingerprint %q", b, err, usernsFingerprint())
	}
	if usernsRefused(); *calls != 2 {
		t.Error("usernsRefused did not ask the kernel")
	}
	writeFile(t, cache, "uid=1000 another world\n")
	if usernsQuick(); *calls != 3 {
		t.Error("a fingerprint that differs was taken for this one")
	}

	// Refused now, though remembered: the quick check trusts the memory,
	// the probe's diagnosis does not and forgets it.
	tryUserns = func() syscall.Errno { *calls++; return syscall.EPERM }
	if e := usernsQuick(); e != nil {
		t.Errorf("usernsQuick = %v, want the remembered success", e)
	}
	if err := refusedNow(&bwrap{}); err == nil || !strings.Contains(err.Error(), "operation not permitted") {
		t.Errorf("refusedNow = %v", err)
	}
	if _, err := os.Stat(cache); err == nil {
		t.Error("the success is still remembered")
	}
	if e := usernsQuick(); e == nil {
		t.Error("usernsQuick = nil after the refusal")
	}
	if _, err := os.Stat(cache); err == nil {
		t.Error("a refusal was remembered")
	}

	// No runtime dir: nothing remembered, a fork each time.
	t.Setenv("XDG_RUNTIME_DIR", "")
	tryUserns = func() syscall.Errno { *calls++; return 0 }
	n := *calls
	usernsQuick()
	usernsQuick()
	if *calls != n+2 {
		t.Errorf("%d forks with no runtime dir, want 2", *calls-n)
	}
}

// TestTryUserns asks the real kernel, and util-linux's unshare for a
// second opinion: both make a user namespace, or neither.
func TestTryUserns(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare (util-linux) is missing")
	}
	out, err := exec.Command(unshare, "--user", "true").CombinedOutput()
	errno := tryUserns()
	if (err == nil) != (errno == 0) {
		t.Errorf("tryUserns = %v, unshare --user true = %v (%s)", errno, err, out)
	}
}
