//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/sandbox/sandboxtest"
)

// TestSandboxRefusedFailsClosed runs agate-cli where the kernel refuses
// user namespaces, each condition made for real (sandboxtest): `agate
// sandbox` does not run the command and exits 125 with the reason and
// what to change; `agate doctor` reports the sandbox unavailable with the
// reason, and says what to change. The control run, with no condition,
// runs the command.
func TestSandboxRefusedFailsClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real sandboxes")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed (apt install bubblewrap)")
	}
	bin := buildCLI(t)
	const config = "[tools]\nsandbox = true\n"
	script := []string{"sandbox", "--config", "CONFIG", "--", "sh", "-c", "echo ran > ran"}
	withConfig := func(args []string, cfg string) []string {
		out := append([]string(nil), args...)
		for i, a := range out {
			if a == "CONFIG" {
				out[i] = cfg
			}
		}
		return out
	}

	// The control: bwrap confines the command here.
	w := newMachineWorld(t, -1, config)
	cmd := exec.Command(bin, withConfig(script, w.config)...)
	cmd.Dir, cmd.Env = w.work, w.env("DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(w.dir, "no-bus"))
	if r := run(t, cmd, ""); r.code != 0 {
		t.Skipf("agate sandbox cannot run a command here even without a condition (status %d): %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.work, "ran")); err != nil {
		t.Fatalf("the control run did not run the command: %v", err)
	}

	for _, tc := range []struct {
		name      string
		condition sandboxtest.Condition
		uid       int
		reason    string // in the reason
		fix       string // in what to change
	}{
		{"seccomp", sandboxtest.Seccomp, -1, "clone: operation not permitted", "seccomp"},
		{"seccomp as nobody", sandboxtest.Seccomp, 65534, "clone: operation not permitted", "seccomp"},
		{"max_user_namespaces 0 as nobody", sandboxtest.MaxUserNS, 65534, "user namespaces are switched off (user.max_user_namespaces = 0)", "sysctl -w user.max_user_namespaces="},
		{"chroot", sandboxtest.Chroot, -1, "clone: operation not permitted", "chroot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.uid >= 0 && os.Getuid() != 0 {
				t.Skipf("running as uid %d needs root", tc.uid)
			}
			w := newMachineWorld(t, tc.uid, config)
			under := func(args ...string) *exec.Cmd {
				t.Helper()
				// A bus that is not there: this test is about the sandbox.
				env := w.env("DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(w.dir, "no-bus"))
				cmd, err := sandboxtest.Command(tc.condition, tc.uid, env, append([]string{bin}, args...)...)
				if err != nil {
					t.Skip(err)
				}
				cmd.Dir = w.work
				return cmd
			}

			r := run(t, under(withConfig(script, w.config)...), "")
			if _, err := os.Stat(filepath.Join(w.work, "ran")); err == nil {
				t.Errorf("the command ran under %s", sandboxtest.Describe(tc.condition))
			}
			if r.code != 125 || !strings.Contains(r.stderr, "no working sandbox") || !strings.Contains(r.stderr, tc.reason) ||
				!strings.Contains(r.stderr, "to change: ") || !strings.Contains(r.stderr, tc.fix) {
				t.Errorf("agate sandbox: status %d, stderr %q; want 125, the reason %q and what to change (%q)", r.code, r.stderr, tc.reason, tc.fix)
			}

			r = run(t, under("doctor", "--json", "--config", w.config), "")
			var rep Report
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("agate doctor --json: status %d, %v: %s %s", r.code, err, r.stdout, r.stderr)
			}
			s := rep.Sandbox
			if r.code != 1 || s.Available || !s.Enabled || !s.FailClosed || !strings.Contains(s.Reason, "bwrap: ") ||
				!strings.Contains(s.Reason, tc.reason) || !strings.Contains(s.Fix, tc.fix) || s.Install != "" {
				t.Errorf("agate doctor --json: status %d, sandbox %+v", r.code, s)
			}
			found := false
			for _, p := range rep.Problems {
				found = found || strings.Contains(p, "no launcher works") && strings.Contains(p, "to change: "+s.Fix)
			}
			if !found {
				t.Errorf("the problems do not say what to change: %q", rep.Problems)
			}

			r = run(t, under("doctor", "--config", w.config), "")
			if !strings.Contains(r.stdout, "available=false") || !strings.Contains(r.stdout, "to change: "+s.Fix) {
				t.Errorf("agate doctor:\n%s", r.stdout)
			}
			t.Logf("under %s, agate doctor says:\n%s", sandboxtest.Describe(tc.condition), r.stdout)
		})
	}
}
