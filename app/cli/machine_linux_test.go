//go:build linux

package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests here and in sandbox_refused_linux_test.go run the real
// agate-cli binary on machines unlike this one: where there is no D-Bus
// session bus, and where the kernel refuses user namespaces.

// machineWorld is a home for agate-cli runs as a user: a home, a work dir,
// a state dir, a temp dir and a config, all the user's own, in a dir
// anyone may enter.
type machineWorld struct {
	dir, home, work, state, tmp, config string
}

func newMachineWorld(t *testing.T, uid int, config string) *machineWorld {
	t.Helper()
	dir, err := os.MkdirTemp("", "agate-machine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w := &machineWorld{dir: dir, home: filepath.Join(dir, "home"), work: filepath.Join(dir, "work"),
		state: filepath.Join(dir, "state"), tmp: filepath.Join(dir, "tmp"), config: filepath.Join(dir, "home", "config.toml")}
	for _, d := range []string{w.home, w.work, w.state, w.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(w.config, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		for _, p := range []string{w.home, w.work, w.state, w.tmp, w.config} {
			if err := os.Chown(p, uid, uid); err != nil {
				t.Fatal(err)
			}
		}
	}
	return w
}

// env is agate-cli's environment in w: no session bus, no display, no
// runtime dir.
func (w *machineWorld) env(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "TMPDIR=" + w.tmp,
		"AGATE_STATE_DIR=" + w.state, "XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"), "LANG=C.UTF-8"}, extra...)
}

// result is how an agate-cli run ended.
type result struct {
	code           int
	stdout, stderr string
}

// run runs cmd for at most two minutes.
func run(t *testing.T, cmd *exec.Cmd, stdin string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	r := result{code: 0, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return r
}

// busDaemons are the session services a keychain call may start: the
// bus, through D-Bus autolaunch (dbus-launch), and on it the Secret
// Service. /proc/PID/comm holds at most 15 bytes.
var busDaemons = []string{"dbus-daemon", "gnome-keyring-d"}

// markedDaemons returns the bus daemons whose environment holds mark: the
// ones a test's own commands started, whoever else runs on this machine.
func markedDaemons(mark string) map[int]string {
	found := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil {
			continue
		}
		name := strings.TrimSpace(string(comm))
		isDaemon := false
		for _, d := range busDaemons {
			isDaemon = isDaemon || name == d
		}
		if !isDaemon {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && (bytes.Contains(env, []byte("\x00"+mark+"\x00")) || bytes.HasPrefix(env, []byte(mark+"\x00"))) {
			found[pid] = name
		}
	}
	return found
}

// TestNoSessionBusStartsNoDaemons runs agate-cli's keychain commands
// where there is no session bus (DBUS_SESSION_BUS_ADDRESS unset, no
// runtime dir: a server, an SSH login, cron) and counts the dbus-daemon
// and gnome-keyring-daemon processes they leave: none. Left alone, D-Bus
// autolaunch (dbus-launch, from dbus-x11) starts a bus per command, and
// the bus a gnome-keyring-daemon, and both outlive agate. Each command's
// environment carries a mark, so only the processes they started count.
func TestNoSessionBusStartsNoDaemons(t *testing.T) {
	if _, err := exec.LookPath("dbus-launch"); err != nil {
		t.Skip("dbus-launch (dbus-x11) is not installed: there is no autolaunch to start a bus (.ci/deps.sh test installs it)")
	}
	runUser := "/run/user/" + strconv.Itoa(os.Getuid())
	for _, f := range []string{"bus", "dbus-session"} {
		if _, err := os.Stat(filepath.Join(runUser, f)); err == nil {
			t.Skipf("%s/%s exists: this user has a session bus, so a machine without one cannot be played here", runUser, f)
		}
	}
	bin := buildCLI(t)
	w := newMachineWorld(t, -1, "")
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	mark := "AGATE_TEST_BUS_MARK=" + hex.EncodeToString(b)
	t.Cleanup(func() {
		for pid := range markedDaemons(mark) {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	})
	if n := len(markedDaemons(mark)); n != 0 {
		t.Fatalf("%d marked daemons before any command", n)
	}
	env := w.env(mark, "AGATE_PASSPHRASE=a passphrase for the test")

	runs := [][]string{
		{"doctor", "--config", w.config},
		{"doctor", "--config", w.config},
		{"doctor", "--json", "--config", w.config},
		{"keys", "backend", "--config", w.config},
		{"keys", "list", "--config", w.config},
		{"keys", "set", "openai", "--config", w.config},
		{"keys", "list", "--config", w.config},
		{"keys", "get", "openai", "--config", w.config},
	}
	start := time.Now()
	var rs []result
	for _, args := range runs {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = w.work, env
		r := run(t, cmd, "sk-value-for-the-test-0123456789")
		rs = append(rs, r)
		if n := len(markedDaemons(mark)); n != 0 {
			t.Errorf("after agate %s: %d bus daemons left running", strings.Join(args[:2], " "), n)
		}
	}
	t.Logf("%d commands in %s", len(runs), time.Since(start).Round(time.Millisecond))
	time.Sleep(200 * time.Millisecond) // anything still starting shows by now
	if left := markedDaemons(mark); len(left) != 0 {
		t.Errorf("the commands left %d session services running: %v", len(left), left)
	}

	// doctor says what a missing bus means, not a D-Bus error.
	if !strings.Contains(rs[0].stdout, "no D-Bus session bus") || !strings.Contains(rs[0].stdout, "keys use the passphrase") {
		t.Errorf("agate doctor does not say the keychain is out of reach for want of a bus:\n%s", rs[0].stdout)
	}
	var rep Report
	if err := json.Unmarshal([]byte(rs[2].stdout), &rep); err != nil || !rep.Keychain.NoSessionBus {
		t.Errorf("agate doctor --json: keychain %+v (%v)", rep.Keychain, err)
	}
	if rs[5].code != 0 || !strings.Contains(rs[5].stderr, "(passphrase)") || rs[7].stdout != "sk-value-for-the-test-0123456789" {
		t.Errorf("the key store did not fall back to the passphrase: set %+v, get %+v", rs[5], rs[7])
	}
}
