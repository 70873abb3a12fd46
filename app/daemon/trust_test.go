package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/apptest"
)

// impostor is a listener that is not agate's daemon: it answers allow to
// everything and reports what it was sent.
type impostor struct {
	socket string
	got    chan string // a line per request it received
}

// startImpostor serves a socket in dir. With uid < 0 this process makes
// the listener and hands it to a child of its own uid; otherwise a child
// running as uid makes its own listener in a folder it owns, and the test
// links that socket into dir and makes the link this user's: every check
// on the path passes, and only the peer's credentials tell.
func startImpostor(t *testing.T, dir string, uid int) *impostor {
	t.Helper()
	sock := filepath.Join(dir, "d.sock")
	bin := copyTestBinary(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "AGATE_TEST_ROLE=listener")
	var own string
	if uid >= 0 {
		theirs, err := os.MkdirTemp("", "agn")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(theirs) })
		os.Chown(theirs, uid, uid)
		own = filepath.Join(theirs, "s.sock")
		cmd.Env = append(cmd.Env, "AGATE_LISTEN="+own)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	} else {
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		f, err := l.(*net.UnixListener).File()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		defer l.Close() // the child holds it once started
		cmd.ExtraFiles = []*os.File{f}
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() || sc.Text() != "ready" {
		t.Fatalf("the impostor did not start: %q", sc.Text())
	}
	if own != "" {
		if err := os.Link(own, sock); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(sock, os.Getuid(), os.Getgid()); err != nil {
			t.Fatal(err)
		}
	}
	im := &impostor{socket: sock, got: make(chan string, 16)}
	go func() {
		for sc.Scan() {
			im.got <- sc.Text()
		}
		close(im.got)
	}()
	return im
}

// heard returns what the impostor received within a short wait.
func (im *impostor) heard() []string {
	var lines []string
	timeout := time.After(300 * time.Millisecond)
	for {
		select {
		case l, ok := <-im.got:
			if !ok {
				return lines
			}
			lines = append(lines, l)
		case <-timeout:
			return lines
		}
	}
}

// TestHookRefusesListenersThatAreNotAgate: a listener at the socket path
// that is not this user's daemon (the socket's folder open to others or
// someone else's, the socket someone else's, or the process behind it
// another user) answers "allow" for `rm -rf ~`. The hook must not send it
// the call, must not believe it, and must block as if no daemon ran.
func TestHookRefusesListenersThatAreNotAgate(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to play another user")
	}
	const nobody = 65534
	newDir := func(t *testing.T) string {
		dir, err := os.MkdirTemp("", "agi")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	cases := []struct {
		name  string
		setup func(t *testing.T) *impostor
		why   string
	}{
		{"the listener runs as another user", func(t *testing.T) *impostor {
			return startImpostor(t, newDir(t), nobody)
		}, "uid 65534"},
		{"the socket's folder is open to others", func(t *testing.T) *impostor {
			dir := newDir(t)
			os.Chmod(dir, 0o777)
			return startImpostor(t, dir, -1)
		}, "open to others"},
		{"the socket's folder belongs to another user", func(t *testing.T) *impostor {
			dir := newDir(t)
			im := startImpostor(t, dir, -1)
			os.Chmod(dir, 0o700)
			os.Chown(dir, nobody, nobody)
			return im
		}, "belongs to uid 65534"},
		{"the socket belongs to another user", func(t *testing.T) *impostor {
			im := startImpostor(t, newDir(t), -1)
			os.Chown(im.socket, nobody, nobody)
			return im
		}, "socket belongs to uid 65534"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			im := c.setup(t)
			p := apptest.Paths(t, "")
			t.Setenv("AGATE_CONFIG", p.Config)
			t.Setenv("AGATE_STATE_DIR", p.State)
			code, out, errOut := apptest.RunHookBinary(t, apptest.WithCommand(t, "claude-code/pretooluse-bash.json", "rm -rf ~"),
				"claude-code", "--socket", im.socket, "--agent-timeout", "30s")
			if code != 2 || strings.Contains(out, "allow") {
				t.Fatalf("exit %d, stdout %q, stderr %q: want the call blocked", code, out, errOut)
			}
			if !strings.Contains(errOut, "not agate's") || !strings.Contains(errOut, c.why) {
				t.Errorf("stderr %q does not say the socket is not agate's (%s)", errOut, c.why)
			}
			if got := im.heard(); len(got) > 0 {
				t.Fatalf("the impostor was sent the call: %q", got)
			}
		})
	}
	// The control: the same impostor, run as this user in a private
	// folder, is believed. Only what the hook checks tells them apart.
	t.Run("control", func(t *testing.T) {
		im := startImpostor(t, newDir(t), -1)
		code, out, _ := apptest.RunHookBinary(t, apptest.WithCommand(t, "claude-code/pretooluse-bash.json", "ls"),
			"claude-code", "--socket", im.socket, "--agent-timeout", "30s")
		if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) || len(im.heard()) != 1 {
			t.Fatalf("exit %d, %q: the control listener was not asked", code, out)
		}
	})
}

// TestClientUntrustedIsDaemonDown: a socket in a folder open to others is
// refused by the client with ErrUntrusted, which is also ErrDaemonDown.
func TestClientUntrustedIsDaemonDown(t *testing.T) {
	p := apptest.Paths(t, "")
	startDaemon(t, p)
	if err := os.Chmod(filepath.Dir(p.Socket), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := (&api.Client{Socket: p.Socket}).Status(context.Background())
	if !errors.Is(err, api.ErrDaemonDown) || !errors.Is(err, api.ErrUntrusted) {
		t.Fatalf("err = %v, want ErrUntrusted and ErrDaemonDown", err)
	}
}

// TestListenLeavesOtherFilesAlone: a socket path that names a file, a
// folder or a folder open to others is an error naming it, and nothing is
// removed or changed.
func TestListenLeavesOtherFilesAlone(t *testing.T) {
	dir, err := os.MkdirTemp("", "agl")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o600)
	if _, err := Listen(notes); err == nil || !strings.Contains(err.Error(), notes) || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("listen on a file: %v", err)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Fatalf("the file was touched: %q %v", b, err)
	}
	sub := filepath.Join(dir, "folder")
	os.Mkdir(sub, 0o700)
	if _, err := Listen(sub); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("listen on a folder: %v", err)
	}
	if st, err := os.Stat(sub); err != nil || !st.IsDir() {
		t.Fatal("the folder was removed")
	}
	open := filepath.Join(dir, "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	if _, err := Listen(filepath.Join(open, "a.sock")); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Fatalf("listen in a folder open to others: %v", err)
	}
	if st, _ := os.Stat(open); st.Mode().Perm() != 0o755 {
		t.Fatalf("the folder's mode was changed to %v", st.Mode().Perm())
	}
}

// TestDuplicateKeysRefused: a request body or a hook input that names a
// member twice ("tool" twice, "command" and "Command") is refused whole,
// never decided as the last (or the first) of the two.
func TestDuplicateKeysRefused(t *testing.T) {
	p := apptest.Paths(t, "")
	startDaemon(t, p)
	for _, body := range []string{
		`{"tool":"Read","agent":"a","cwd":"/tmp","tool":"Bash","args":{"command":"rm -rf ~"}}`,
		`{"tool":"Bash","agent":"a","cwd":"/tmp","args":{"command":"ls","Command":"rm -rf ~"}}`,
	} {
		c, err := net.Dial("unix", p.Socket)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /v1/decide HTTP/1.1\r\nHost: agate\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
		b, _ := io.ReadAll(c)
		c.Close()
		if !strings.HasPrefix(string(b), "HTTP/1.1 400") || !strings.Contains(string(b), "duplicate key") {
			t.Errorf("%s: %q, want 400 naming the duplicate key", body, b)
		}
	}
	t.Setenv("AGATE_SOCKET", p.Socket)
	for _, in := range []string{
		`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`,
		`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf ~"}}`,
	} {
		code, out, errOut := apptest.RunHookBinary(t, in, "claude-code", "--agent-timeout", "30s")
		if code != 2 || out != "" || !strings.Contains(errOut, "duplicate key") {
			t.Errorf("%s: exit %d %q %q, want blocked naming the duplicate key", in, code, out, errOut)
		}
	}
}
