//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/sandbox/sandboxtest"
)

// The tests here run this package's tests, or agate's own checks, on
// machines unlike this one (sandboxtest): where the kernel refuses user
// namespaces, and where /tmp is not world-writable.

// nobody is the ordinary user the tests run as when they run as root.
const nobody = 65534

// envUnder marks a test binary run under a condition: the tests that make
// conditions do not make them again inside.
const envUnder = "AGATE_SANDBOX_TEST_UNDER"

// envExpect carries a refusalCase to TestRefusedHere.
const envExpect = "AGATE_SANDBOX_TEST_EXPECT"

// userWorld is what a test binary run as another user needs: a copy of
// the binary it may run (the original sits in a root-only dir), and a
// temp dir and a home of its own, made with the modes it needs, whatever
// the modes of /tmp and /var/tmp on this machine.
type userWorld struct {
	dir, bin, tmp, home string
}

func newUserWorld(t *testing.T, uid int) *userWorld {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/var/tmp", "agate-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	u := &userWorld{dir: dir, bin: filepath.Join(dir, "sandbox.test"), tmp: filepath.Join(dir, "tmp"), home: filepath.Join(dir, "home")}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(u.bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// The tests read testdata from their working dir, which is u.dir.
	if err := os.CopyFS(filepath.Join(dir, "testdata"), os.DirFS("testdata")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{u.tmp, u.home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	return u
}

// env is the environment of the test binary run in u, with extra added.
func (u *userWorld) env(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + u.home, "TMPDIR=" + u.tmp, "LANG=C.UTF-8",
		"GORACE=atexit_sleep_ms=0"}, extra...)
}

// runContext runs cmd and returns its combined output; it kills cmd when
// ctx ends first.
func runContext(ctx context.Context, cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.Bytes(), err
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return out.Bytes(), ctx.Err()
	}
}

// skipMessages are how launchersUnderTest says a launcher cannot run.
var skipMessages = map[string]string{"bwrap": "bwrap cannot run here: ", "landlock": "landlock launcher unavailable here: "}

// refusedFor returns why TestSandboxConfinement skipped every one of the
// launchers in a verbose test run's output, "" unless it skipped them all.
func refusedFor(out []byte, launchers ...string) string {
	var why []string
	for _, l := range launchers {
		if !bytes.Contains(out, []byte("--- SKIP: TestSandboxConfinement/"+l+" ")) {
			return ""
		}
		for _, line := range strings.Split(string(out), "\n") {
			if _, msg, ok := strings.Cut(line, skipMessages[l]); ok && !slices.Contains(why, l+": "+msg) {
				why = append(why, l+": "+msg)
			}
		}
	}
	return strings.Join(why, "; ")
}

// refusalCase is a condition that refuses user namespaces, and what the
// checks must say about it.
type refusalCase struct {
	Name      string                `json:"name"`
	Condition sandboxtest.Condition `json:"condition"`
	UID       int                   `json:"uid"`    // -1: whoever runs the tests
	Reason    []string              `json:"reason"` // in the reason
	Fix       []string              `json:"fix"`    // in what to change
	// BwrapCopes: bwrap run by root reads user.max_user_namespaces = 0
	// and does without a user namespace; the landlock launcher cannot.
	BwrapCopes bool `json:"bwrap_copes"`
}

// refusalCases are the conditions made for real here. A chroot's reason
// names the chroot only where nothing else may be the cause (no seccomp
// filter around these tests).
func refusalCases() []refusalCase {
	chrootReason, chrootFix := []string{"clone: operation not permitted"}, []string{}
	if !seccompFiltered() {
		chrootReason, chrootFix = append(chrootReason, "chroot"), []string{"outside the chroot"}
	}
	maxReason := []string{"user.max_user_namespaces = 0"}
	maxFix := []string{"sysctl -w user.max_user_namespaces=", "where that namespace is made"}
	return []refusalCase{
		{"seccomp", sandboxtest.Seccomp, -1, []string{"clone: operation not permitted"}, []string{"seccomp"}, false},
		{"seccomp as nobody", sandboxtest.Seccomp, nobody, []string{"clone: operation not permitted"}, []string{"seccomp"}, false},
		{"max_user_namespaces 0 as nobody", sandboxtest.MaxUserNS, nobody, maxReason, maxFix, false},
		{"max_user_namespaces 0 as root", sandboxtest.MaxUserNS, 0, maxReason, maxFix, true},
		{"chroot", sandboxtest.Chroot, -1, chrootReason, chrootFix, false},
	}
}

// underCondition returns the command running this test binary with args
// under rc's condition, as rc's user, and skips t where the condition
// cannot be made here.
func underCondition(t *testing.T, rc refusalCase, extraEnv []string, args ...string) *exec.Cmd {
	t.Helper()
	if os.Getenv(envUnder) != "" {
		t.Skip("already under a condition")
	}
	if rc.UID >= 0 && os.Getuid() != 0 {
		t.Skipf("running as uid %d needs root", rc.UID)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	dir := ""
	if rc.UID >= 0 && rc.UID != os.Getuid() {
		u := newUserWorld(t, rc.UID)
		self, env, dir = u.bin, u.env(), u.dir
	}
	env = append(env, append(extraEnv, envUnder+"="+string(rc.Condition))...)
	cmd, err := sandboxtest.Command(rc.Condition, rc.UID, env, append([]string{self}, args...)...)
	if err != nil {
		t.Skip(err)
	}
	cmd.Dir = dir
	return cmd
}

// TestUsernsRefused makes each condition for real and runs TestRefusedHere
// under it: the checks must name the cause and what to change, and agate
// must fail closed (the command does not run) and report the sandbox
// unavailable with that reason.
func TestUsernsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real sandboxes")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed (apt install bubblewrap)")
	}
	if e := usernsRefused(); e != nil {
		t.Skipf("user namespaces are refused here already (%v): the conditions would prove nothing", e)
	}
	// The control: without a condition TestRefusedHere fails, so a pass
	// under one means the condition was there.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(refusalCases()[0])
	ctl := exec.Command(self, "-test.run=^TestRefusedHere$", "-test.count=1")
	ctl.Env = append(os.Environ(), envExpect+"="+string(b), "GORACE=atexit_sleep_ms=0")
	if out, err := ctl.CombinedOutput(); err == nil || !bytes.Contains(out, []byte("user namespaces work here")) {
		t.Fatalf("with no condition, TestRefusedHere did not fail as it must: %v\n%s", err, out)
	}
	for _, rc := range refusalCases() {
		t.Run(rc.Name, func(t *testing.T) {
			b, err := json.Marshal(rc)
			if err != nil {
				t.Fatal(err)
			}
			cmd := underCondition(t, rc, []string{envExpect + "=" + string(b)}, "-test.run=^TestRefusedHere$", "-test.v", "-test.count=1")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := runContext(ctx, cmd)
			t.Logf("under %s:\n%s", sandboxtest.Describe(rc.Condition), out)
			if err != nil || !bytes.Contains(out, []byte("--- PASS: TestRefusedHere")) {
				t.Fatalf("TestRefusedHere under %s: %v", rc.Condition, err)
			}
		})
	}
}

// TestRefusedHere is run by TestUsernsRefused under a condition.
func TestRefusedHere(t *testing.T) {
	raw := os.Getenv(envExpect)
	if raw == "" {
		t.Skip("run by TestUsernsRefused, under a condition")
	}
	var rc refusalCase
	if err := json.Unmarshal([]byte(raw), &rc); err != nil {
		t.Fatal(err)
	}
	e := usernsRefused()
	if e == nil {
		t.Fatal("user namespaces work here: the condition was not made")
	}
	t.Logf("uid %d: %s\nto change: %s", os.Getuid(), e.reason, e.fix)
	for _, s := range rc.Reason {
		if !strings.Contains(e.reason, s) {
			t.Errorf("reason %q lacks %q", e.reason, s)
		}
	}
	for _, s := range rc.Fix {
		if !strings.Contains(e.fix, s) {
			t.Errorf("fix %q lacks %q", e.fix, s)
		}
	}
	if err := (&landlockLauncher{}).check(Options{}); err == nil || err.Error() != e.reason {
		t.Errorf("the landlock launcher's check = %v, want %q", err, e.reason)
	}
	berr := (&bwrap{}).check(Options{})
	switch {
	case rc.BwrapCopes && berr != nil:
		t.Errorf("bwrap's check = %v; as root, bwrap does without a user namespace", berr)
	case !rc.BwrapCopes && (berr == nil || berr.Error() != e.reason):
		t.Errorf("bwrap's check = %v, want %q", berr, e.reason)
	}

	// Fail closed: the command does not run, and the error says why and
	// what to change (agate sandbox turns it into status 125).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	work := t.TempDir()
	marker := filepath.Join(work, "ran")
	o := Options{Launcher: LauncherAuto, FailClosed: true, Enabled: true, WorkDir: work,
		Env: []string{"PATH=/usr/bin:/bin"}}
	var stdout, stderr bytes.Buffer
	code, err := Run(ctx, o, []string{"sh", "-c", "echo ran > " + marker}, nil, &stdout, &stderr)
	_, statErr := os.Stat(marker)
	if rc.BwrapCopes {
		if err != nil || code != 0 || statErr != nil {
			t.Errorf("under bwrap as root: status %d, err %v, ran: %v (stderr %q)", code, err, statErr == nil, stderr.String())
		}
	} else {
		if !errors.Is(err, ErrUnavailable) || code != -1 || statErr == nil {
			t.Errorf("Run = %d, %v, ran: %v; want ErrUnavailable and the command not run", code, err, statErr == nil)
		}
		if err != nil && (!strings.Contains(err.Error(), e.reason) || !strings.Contains(err.Error(), "to change: "+e.fix)) {
			t.Errorf("the error %q lacks the reason or what to change", err)
		}
	}

	d := Probe(ctx, o)
	if rc.BwrapCopes {
		if !d.Available || d.Launcher != LauncherBwrap {
			t.Errorf("Probe = %+v; want bwrap available", d)
		}
		return
	}
	if d.Available || !d.FailClosed || d.Install != "" || d.Fix != e.fix ||
		!strings.Contains(d.Reason, "bwrap: "+e.reason) || !strings.Contains(d.Reason, "landlock: "+e.reason) {
		t.Errorf("Probe = %+v\nwant unavailable, the reason for bwrap and landlock, and fix %q", d, e.fix)
	}
}

// TestSandboxTestsSkipWhereRefused runs this package's tests under each
// condition: where user namespaces are refused, the tests that start real
// sandboxes say why and skip, and none fails.
func TestSandboxTestsSkipWhereRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real sandboxes")
	}
	if e := usernsRefused(); e != nil {
		t.Skipf("user namespaces are refused here already (%v): the other tests skip by themselves", e)
	}
	for _, rc := range refusalCases() {
		if rc.BwrapCopes {
			continue // bwrap runs there: nothing to skip
		}
		t.Run(rc.Name, func(t *testing.T) {
			cmd := underCondition(t, rc, nil, "-test.v", "-test.count=1", "-test.timeout=5m")
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
			defer cancel()
			start := time.Now()
			out, err := runContext(ctx, cmd)
			if err != nil || bytes.Contains(out, []byte("--- FAIL")) {
				t.Fatalf("the tests under %s: %v\n%s", sandboxtest.Describe(rc.Condition), err, out)
			}
			why := refusedFor(out, "bwrap", "landlock")
			if why == "" {
				t.Fatalf("under %s, TestSandboxConfinement did not skip bwrap and landlock:\n%s", rc.Condition, out)
			}
			for _, s := range rc.Reason {
				if !strings.Contains(why, s) {
					t.Errorf("the skips %q do not say %q", why, s)
				}
			}
			t.Logf("under %s (%s): passed, the sandboxes skipped: %s", sandboxtest.Describe(rc.Condition),
				time.Since(start).Round(time.Millisecond), why)
		})
	}
}
