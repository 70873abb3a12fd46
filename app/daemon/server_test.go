package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

func TestSocketModes(t *testing.T) {
	p := apptest.Paths(t, "")
	startDaemon(t, p)
	st, err := os.Stat(p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v", st.Mode().Perm())
	}
	dst, _ := os.Stat(filepath.Dir(p.Socket))
	if dst.Mode().Perm() != 0o700 {
		t.Errorf("socket folder mode %v", dst.Mode().Perm())
	}
}

func TestBrowserOriginRefused(t *testing.T) {
	p := apptest.Paths(t, "")
	startDaemon(t, p)
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", p.Socket)
	}}}
	for _, h := range []string{"Origin", "Sec-Fetch-Site", "Sec-Fetch-Mode"} {
		req, _ := http.NewRequest("POST", "http://agate/v1/decide", strings.NewReader(`{"tool":"Bash","args":{"command":"ls"},"cwd":"/tmp","interactive":true}`))
		req.Header.Set(h, "http://evil.example")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", h, resp.StatusCode)
		}
	}
}

func TestSecondDaemonAndStaleSocket(t *testing.T) {
	p := apptest.Paths(t, "")
	startDaemon(t, p)
	if _, err := Listen(p.Socket); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second listen: %v, want ErrAlreadyRunning", err)
	}
	// A stale socket (nobody listening) is replaced.
	stale := filepath.Join(filepath.Dir(p.Socket), "stale.sock")
	l, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if _, err := os.Stat(stale); err != nil {
		t.Fatal("stale socket not left behind:", err)
	}
	l2, err := Listen(stale)
	if err != nil {
		t.Fatalf("listen over a stale socket: %v", err)
	}
	l2.Close()
	// A file that is not a socket is not removed without a failed dial:
	// it is, since nobody answers; but a live daemon's is never.
	if _, err := os.Stat(p.Socket); err != nil {
		t.Fatal("the live daemon's socket was removed")
	}
}

func TestDaemonDownIsErrDaemonDown(t *testing.T) {
	c := &api.Client{Socket: filepath.Join(t.TempDir(), "none.sock")}
	_, err := c.Status(context.Background())
	if !errors.Is(err, api.ErrDaemonDown) {
		t.Fatalf("err = %v, want ErrDaemonDown", err)
	}
}

// TestOtherUserRefused runs a client as another user against a socket
// opened up to everyone: the peer-credential check must still refuse it.
func TestOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	p := apptest.Paths(t, "")
	_, c := startDaemon(t, p)
	// Open the folder and the socket to everyone: only the uid check is left.
	os.Chmod(filepath.Dir(p.Socket), 0o755)
	os.Chmod(p.Socket, 0o666)
	bin := copyTestBinary(t)
	run := func(uid uint32) (string, int) {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "AGATE_TEST_ROLE=dial", "AGATE_SOCKET="+p.Socket)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	if out, code := run(65534); code != 3 || !strings.Contains(out, "refused") {
		t.Fatalf("another user: exit %d, %q; want refused", code, out)
	}
	if out, code := run(0); code != 0 {
		t.Fatalf("the same user: exit %d, %q", code, out)
	}
	// The daemon is still fine (and the client trusts it again once its
	// folder is private).
	os.Chmod(filepath.Dir(p.Socket), 0o700)
	if _, err := c.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// copyTestBinary copies the test binary where any user can run it.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "agate-bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "agate.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestConcurrentWithPendingApprovals: 1,000 concurrent requests while 100
// approvals wait; nothing deadlocks, no audit line is lost, the chain
// holds.
func TestConcurrentWithPendingApprovals(t *testing.T) {
	p := apptest.Paths(t, "[approvals]\ntimeout = \"60s\"\nmax_pending = 100\n")
	d, c := startDaemon(t, p)
	// All the clients here are this one process: lift the per-process
	// bound (TestSlowClientsDoNotExhaustTheDaemon tests it).
	liftConnLimits(t, d)
	d.SetPrompter(&apptest.Prompter{Hold: true}, "tray")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	asked := make(chan *api.DecideResponse, 100)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := apptest.Call("Bash", fmt.Sprintf("curl https://example.org/%d", i))
			r.Agent = fmt.Sprintf("agent%d", i%5)
			resp, err := c.Decide(ctx, r)
			if err != nil {
				t.Error(err)
				return
			}
			asked <- resp
		}(i)
	}
	for d.broker.count() < 100 {
		if ctx.Err() != nil {
			t.Fatal("approvals never reached 100")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var allowed atomic.Int64
	var quick sync.WaitGroup
	for i := 0; i < 900; i++ {
		quick.Add(1)
		go func(i int) {
			defer quick.Done()
			r := apptest.Call("Bash", fmt.Sprintf("ls dir%d", i))
			r.Session = fmt.Sprintf("s%d", i%7)
			resp, err := c.Decide(ctx, r)
			if err != nil {
				t.Error(err)
				return
			}
			if resp.Decision == policy.Allow {
				allowed.Add(1)
			}
		}(i)
	}
	quick.Wait()
	if allowed.Load() != 900 {
		t.Fatalf("%d of 900 risk-free calls allowed", allowed.Load())
	}
	// One more ask from an agent already at the largest share: refused at once.
	extra := apptest.Call("Bash", "curl https://extra.example")
	extra.Agent = "agent0"
	over, err := c.Decide(ctx, extra)
	if err != nil {
		t.Fatal(err)
	}
	if over.Decision != policy.Deny || over.By != api.ByOverflow {
		t.Fatalf("past the bound: %+v", over)
	}
	// api.Answer the 100 in one batch.
	ids := []string{}
	for _, a := range d.Pending() {
		ids = append(ids, a.ID)
	}
	res, err := c.Answer(ctx, &api.AnswerRequest{IDs: ids, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}})
	if err != nil || len(res.Answered) != 100 {
		t.Fatalf("batch answer: %+v %v", res, err)
	}
	wg.Wait()
	close(asked)
	n := 0
	for r := range asked {
		if r.Decision != policy.Allow || r.By != api.ByPerson {
			t.Fatalf("asked call: %+v", r)
		}
		n++
	}
	if n != 100 {
		t.Fatalf("%d asked calls returned", n)
	}
	vr, err := audit.Verify(p.AuditLog())
	if err != nil || vr.Problem != "" {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	// 900 quick decisions, 1 overflow, and per asked call: requested,
	// granted, decision.
	if want := 900 + 1 + 300; vr.Lines != want {
		t.Fatalf("%d audit lines, want %d", vr.Lines, want)
	}
}

func TestFairEviction(t *testing.T) {
	p := apptest.Paths(t, "[approvals]\nmax_pending = 4\n")
	d, c := startDaemon(t, p)
	d.SetPrompter(&apptest.Prompter{Hold: true}, "tray")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	results := make(chan *api.DecideResponse, 10)
	ask := func(agent, cmd string) {
		r := apptest.Call("Bash", cmd)
		r.Agent = agent
		go func() {
			resp, err := c.Decide(ctx, r)
			if err != nil {
				t.Error(err)
			}
			results <- resp
		}()
	}
	for i := 0; i < 4; i++ {
		ask("flood", fmt.Sprintf("curl https://f%d.example", i))
		for d.broker.count() < i+1 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	ask("quiet", "curl https://q.example")
	// The flood's newest gives way to the quiet agent's call.
	r := <-results
	if r.Decision != policy.Deny || r.By != api.ByOverflow {
		t.Fatalf("evicted: %+v", r)
	}
	for d.broker.count() < 4 {
		time.Sleep(2 * time.Millisecond)
	}
	var order []string
	for _, a := range d.Pending() {
		order = append(order, a.Agent+":"+a.Subject)
	}
	want := "flood:curl https://f0.example quiet:curl https://q.example flood:curl https://f1.example flood:curl https://f2.example"
	if strings.Join(order, " ") != want {
		t.Fatalf("order %v, want %s", order, want)
	}
	// The flooding agent's next call is refused; the quiet one's isn't evicted.
	ask("flood", "curl https://f9.example")
	if r := <-results; r.By != api.ByOverflow {
		t.Fatalf("flood past its share: %+v", r)
	}
	d.broker.closeAll()
	for i := 0; i < 4; i++ {
		<-results
	}
}

// TestKilledDaemonKeepsAcknowledgedLines kills the daemon process with
// SIGKILL while calls are in flight: every call that got an answer has its
// line in the log, and the chain verifies.
func TestKilledDaemonKeepsAcknowledgedLines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon process")
	}
	p := apptest.Paths(t, "")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "AGATE_TEST_ROLE=daemon", "AGATE_CONFIG="+p.Config, "AGATE_STATE_DIR="+p.State, "AGATE_SOCKET="+p.Socket)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	c := &api.Client{Socket: p.Socket}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := c.Status(context.Background()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon did not start: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				cmdline := fmt.Sprintf("echo w%d-%d", w, i)
				resp, err := c.Decide(context.Background(), apptest.Call("Bash", cmdline))
				if err != nil {
					return // the daemon is gone
				}
				if resp.Decision == policy.Allow {
					mu.Lock()
					acked[cmdline] = true
					mu.Unlock()
				}
			}
		}(w)
	}
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 200 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	close(stop)
	wg.Wait()

	logged := map[string]bool{}
	if err := audit.Read(p.AuditLog(), func(r *audit.Record) error {
		logged[r.Subject] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for s := range acked {
		if !logged[s] {
			t.Errorf("acknowledged call %q has no audit line", s)
		}
	}
	// Reopening cuts a torn last line, and the chain holds.
	l, err := audit.Open(p.AuditLog(), 10<<20, 5)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	vr, err := audit.Verify(p.AuditLog())
	if err != nil || vr.Problem != "" {
		t.Fatalf("verify after kill: %+v %v", vr, err)
	}
	t.Logf("%d calls acknowledged before the kill, %d lines in the log", len(acked), vr.Lines)
}

var _ = io.Discard

// liftConnLimits lets one process (the test) hold as many connections as
// it likes.
func liftConnLimits(t *testing.T, d *Daemon) {
	t.Helper()
	var pl *peerListener
	apptest.WaitFor(t, "the daemon to serve", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		pl, _ = d.listener.(*peerListener)
		return pl != nil
	})
	pl.mu.Lock()
	pl.perProcess, pl.total = 1<<20, 1<<20
	pl.mu.Unlock()
}
