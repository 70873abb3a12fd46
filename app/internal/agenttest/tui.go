package agenttest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TUI is an agent running interactively in a terminal: a detached tmux
// session on a private tmux server, typed into with send-keys and read
// with capture-pane, as a person at the terminal would.
type TUI struct {
	t    testing.TB
	tmux string
	sock string
	env  []string
}

// StartTUI starts c in a 200x50 terminal. It skips the test when tmux is
// not installed. The session and its server end with the test.
func (h *Home) StartTUI(t testing.TB, c Cmd) *TUI {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("agenttest: tmux is not installed (apt-get install tmux): it runs the agent's terminal UI")
	}
	if c.Dir == "" {
		c.Dir = h.Work
	}
	u := &TUI{t: t, tmux: tmux, sock: filepath.Join(h.Runtime, "tmux.sock"), env: c.Env}
	// The pane runs the program directly (no shell), in c.Dir, with c.Env:
	// a tmux server takes its environment from the client that starts it.
	args := append([]string{"new-session", "-d", "-s", "agent", "-x", "200", "-y", "50", "-c", c.Dir, "--", c.Bin}, c.Args...)
	if out, err := u.cmd(args...).CombinedOutput(); err != nil {
		t.Fatalf("agenttest: tmux new-session: %v: %s", err, out)
	}
	// Keep the pane after the program exits, to read its last screen.
	u.cmd("set-option", "-t", "agent", "remain-on-exit", "on").Run()
	pid := 0
	if out, err := u.cmd("display-message", "-p", "-t", "agent", "#{pane_pid}").Output(); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		u.cmd("kill-server").Run()
		// The program leads its pane's process group: end the group, and
		// wait for the program to be gone before its home is removed.
		if pid > 0 {
			syscall.Kill(-pid, syscall.SIGKILL)
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if syscall.Kill(pid, 0) != nil {
					break
				}
			}
		}
	})
	return u
}

func (u *TUI) cmd(args ...string) *exec.Cmd {
	c := exec.Command(u.tmux, append([]string{"-S", u.sock, "-f", "/dev/null"}, args...)...)
	c.Env = u.env
	return c
}

// Screen returns what the terminal shows now.
func (u *TUI) Screen() string {
	out, err := u.cmd("capture-pane", "-p", "-t", "agent").Output()
	if err != nil {
		return fmt.Sprintf("(capture-pane: %v)", err)
	}
	return string(out)
}

// Keys types keys, in tmux's send-keys names ("Enter", "Escape", "y").
func (u *TUI) Keys(keys ...string) {
	u.t.Helper()
	if out, err := u.cmd(append([]string{"send-keys", "-t", "agent"}, keys...)...).CombinedOutput(); err != nil {
		u.t.Fatalf("agenttest: tmux send-keys: %v: %s", err, out)
	}
}

// Type types text literally, then Enter.
func (u *TUI) Type(text string) {
	u.t.Helper()
	if out, err := u.cmd("send-keys", "-t", "agent", "-l", text).CombinedOutput(); err != nil {
		u.t.Fatalf("agenttest: tmux send-keys: %v: %s", err, out)
	}
	time.Sleep(200 * time.Millisecond)
	u.Keys("Enter")
}

// WaitFor waits up to timeout for the screen to contain text, and
// reports whether it did.
func (u *TUI) WaitFor(text string, timeout time.Duration) bool {
	return u.Until(func(screen string) bool { return strings.Contains(screen, text) }, timeout)
}

// Until waits up to timeout for ok to hold of the screen.
func (u *TUI) Until(ok func(screen string) bool, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if ok(u.Screen()) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// Exited reports whether the program in the pane has ended.
func (u *TUI) Exited() bool {
	out, err := u.cmd("display-message", "-p", "-t", "agent", "#{pane_dead}").Output()
	return err != nil || strings.TrimSpace(string(out)) == "1"
}

// Dump writes the screen to the test log.
func (u *TUI) Dump(label string) {
	u.t.Helper()
	u.t.Logf("%s: screen:\n%s", label, u.Screen())
}
