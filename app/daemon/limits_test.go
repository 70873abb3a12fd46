package daemon

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/apptest"
)

// realDaemon is `agate-cli serve` running as its own process.
type realDaemon struct {
	cmd    *exec.Cmd
	paths  api.Paths
	client *api.Client
	stderr *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startRealDaemon starts the real daemon on p, prefixed by wrap (a
// command such as prlimit that runs it), and waits until it answers.
func startRealDaemon(t *testing.T, p api.Paths, wrap ...string) *realDaemon {
	t.Helper()
	argv := append(append([]string{}, wrap...), apptest.Binary(t, "agate-cli"), "serve", "--config", p.Config, "--socket", p.Socket)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "AGATE_STATE_DIR="+p.State)
	d := &realDaemon{cmd: cmd, paths: p, client: &api.Client{Socket: p.Socket, Timeout: 10 * time.Second}, stderr: &lockedBuffer{}}
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := d.client.Status(context.Background()); err == nil {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not start: %s", d.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pid is the daemon's own pid (the wrapper execs it).
func (d *realDaemon) pid() int { return d.cmd.Process.Pid }

// rss is the daemon's resident memory, in bytes.
func (d *realDaemon) rss(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.pid()))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// fds counts the daemon's open file descriptors.
func (d *realDaemon) fds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", d.pid()))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// hookCall runs one hook call through the real agate-hook against d and
// says whether it got the daemon's decision.
func (d *realDaemon) hookCall(t *testing.T, command string) (code int, out, errOut string) {
	t.Helper()
	return apptest.RunHookBinary(t, apptest.WithCommand(t, "claude-code/pretooluse-bash.json", command),
		"claude-code", "--socket", d.paths.Socket, "--config", d.paths.Config, "--agent-timeout", "60s")
}

// slowClient opens a connection that sends a request's headers and then
// one body byte every period, until ctx ends. It reports whether the
// daemon accepted it (the connection stayed open past the first write).
func slowClient(ctx context.Context, socket string, period time.Duration) (net.Conn, error) {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c, "POST /v1/decide HTTP/1.1\r\nHost: agate\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				c.Close()
				return
			case <-t.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					c.Close()
					return
				}
			}
		}
	}()
	return c, nil
}

// TestSlowClientsDoNotExhaustTheDaemon: thousands of connections from one
// process that send headers and then a body byte every few seconds, to a
// daemon whose file-descriptor limit is 1024. The daemon stays within its
// connection limits, status and a hook call are answered meanwhile, and
// the slow connections are cut at the body deadline.
func TestSlowClientsDoNotExhaustTheDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon process and waits out its deadlines")
	}
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit (util-linux) is not installed")
	}
	t.Parallel()
	p := apptest.Paths(t, "")
	d := startRealDaemon(t, p, "prlimit", "--nofile=1024:1024", "--")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 2000
	var conns []net.Conn
	for i := 0; i < n; i++ {
		c, err := slowClient(ctx, p.Socket, 2*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
	}
	time.Sleep(500 * time.Millisecond)
	if fds := d.fds(t); fds > maxConnsPerProcess+64 {
		t.Errorf("the daemon holds %d file descriptors for one slow process, want at most about %d", fds, maxConnsPerProcess)
	}
	code, out, errOut := d.hookCall(t, "rm -rf ~")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "guardrail") {
		t.Fatalf("a hook call while slow clients hold the daemon: exit %d %q %q", code, out, errOut)
	}
	// From another process: this one is at its limit.
	if out, err := exec.Command(apptest.Binary(t, "agate-cli"), "status", "--socket", p.Socket, "--config", p.Config).CombinedOutput(); err != nil {
		t.Fatalf("agate status while slow clients hold the daemon: %v\n%s", err, out)
	}
	// Past the body deadline the ones it took are cut.
	time.Sleep(bodyTimeout + 2*time.Second)
	if fds := d.fds(t); fds > 32 {
		t.Errorf("after the body deadline the daemon still holds %d file descriptors", fds)
	}
	if !strings.Contains(d.stderr.String(), "refused") {
		t.Errorf("the daemon's log says nothing of the refused connections: %s", d.stderr.String())
	}
	cancel()
	for _, c := range conns {
		c.Close()
	}
}

// TestSlowHeadersAreCut: a connection that sends its headers a byte at a
// time is closed at the header deadline.
func TestSlowHeadersAreCut(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the header deadline")
	}
	t.Parallel()
	p := apptest.Paths(t, "")
	startDaemon(t, p)
	c, err := net.Dial("unix", p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	closed := false
	for time.Since(start) < headerTimeout+5*time.Second {
		if _, err := c.Write([]byte("G")); err != nil {
			closed = true
			break
		}
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err != nil && !isTimeout(err) {
			closed = true
			break
		}
	}
	if !closed {
		t.Fatalf("a connection sending its headers a byte at a time was held for %v", time.Since(start))
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// bigDecide sends one decide request whose body is about size bytes (a
// Write whose content is that big) and reads the answer. The daemon may
// answer before it has read the body (a 503 when the bodies in flight hold
// their share of memory) and close the connection, so the answer is read
// while the body is still being written, as net/http's client does, and a
// write cut short by that answer is no error.
func bigDecide(socket string, size int) (int, error) {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	head := `{"tool":"Write","agent":"claude-code","cwd":"/tmp","interactive":true,"args":{"file_path":"/tmp/x","content":"`
	tail := `"}}`
	n := size - len(head) - len(tail)
	wrote := make(chan error, 1)
	go func() {
		fmt.Fprintf(c, "POST /v1/decide HTTP/1.1\r\nHost: agate\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", len(head)+n+len(tail))
		w := bufio.NewWriterSize(c, 1<<20)
		w.WriteString(head)
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for left := n; left > 0; left -= len(chunk) {
			if left < len(chunk) {
				chunk = chunk[:left]
			}
			if _, err := w.Write(chunk); err != nil {
				wrote <- err
				return
			}
		}
		w.WriteString(tail)
		wrote <- w.Flush()
	}()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		if werr := <-wrote; werr != nil {
			return 0, fmt.Errorf("writing the body: %w (reading the answer: %v)", werr, err)
		}
		return 0, err
	}
	var status int
	fmt.Sscanf(line, "HTTP/1.1 %d", &status)
	io.Copy(io.Discard, c)
	if werr := <-wrote; werr != nil && status == http.StatusOK {
		return status, fmt.Errorf("the daemon answered 200 to a body it did not read whole: %w", werr)
	}
	return status, nil
}

// TestBigBodiesAreBoundedAndGivenBack: eight concurrent bodies of nearly
// 40 MiB. The daemon's memory stays bounded while they are in flight (the
// body limit alone would let it hold all eight at once), the calls are
// answered (or told to try again), and within 30 s its resident memory is
// back below twice the idle figure.
func TestBigBodiesAreBoundedAndGivenBack(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 320 MiB to a daemon process")
	}
	t.Parallel()
	p := apptest.Paths(t, "")
	d := startRealDaemon(t, p)
	time.Sleep(time.Second)
	idle := d.rss(t)
	var peak int64
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
				if r := d.rss(t); r > peak {
					peak = r
				}
			}
		}
	}()
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := bigDecide(p.Socket, maxBody-1024)
			if err != nil {
				t.Errorf("body %d: %v", i, err)
			}
			statuses[i] = s
		}(i)
	}
	wg.Wait()
	close(done)
	answered := 0
	for _, s := range statuses {
		switch s {
		case 200:
			answered++
		case 503:
		default:
			t.Errorf("a big body got status %d", s)
		}
	}
	if answered == 0 {
		t.Errorf("none of the big bodies was decided: %v", statuses)
	}
	code, out, _ := d.hookCall(t, "ls")
	if code != 0 || !strings.Contains(out, "permissionDecision") {
		t.Fatalf("a hook call after the flood: exit %d %q", code, out)
	}
	// 8 bodies of 40 MiB held at once would need well over 320 MiB.
	if limit := int64(300 << 20); peak > limit {
		t.Errorf("peak RSS %d MiB during the flood, want under %d MiB", peak>>20, limit>>20)
	}
	deadline := time.Now().Add(30 * time.Second)
	var now int64
	for time.Now().Before(deadline) {
		if now = d.rss(t); now < 2*idle {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("RSS idle %.1f MiB, peak %.1f MiB, after %.1f MiB; %d of 8 decided", mib(idle), mib(peak), mib(now), answered)
	if now >= 2*idle {
		t.Errorf("RSS %.1f MiB 30 s after the flood, want under twice the idle %.1f MiB", mib(now), mib(idle))
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
