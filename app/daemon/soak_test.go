package daemon

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/internal/apptest"
)

// TestSoak runs the real daemon under slow, huge, malformed and
// concurrent clients for AGATE_SOAK (a duration; unset skips the test:
// `make test-soak` runs it for a minute), while agents' hook calls go on
// through the real agate-hook. Then a hook call must be answered in under
// a second, the daemon's memory must be back below twice its idle figure
// within 30 s, and the audit log's chain must verify. The figures are
// logged for the README.
func TestSoak(t *testing.T) {
	dur, err := time.ParseDuration(os.Getenv("AGATE_SOAK"))
	if err != nil || dur <= 0 {
		t.Skip("set AGATE_SOAK=1m (make test-soak) to run the soak test")
	}
	p := apptest.Paths(t, "")
	d := startRealDaemon(t, p)
	time.Sleep(time.Second)
	idle := d.rss(t)

	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var wg sync.WaitGroup
	var slowOpen, hugeSent, hugeOK, junkSent, flood atomic.Int64
	var peak atomic.Int64
	run := func(n int, f func(i int)) {
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					f(i)
				}
			}()
		}
	}
	// Slow: connections that send headers, then a byte every two seconds,
	// opened faster than the daemon's deadlines cut them.
	run(8, func(int) {
		if _, err := slowClient(ctx, p.Socket, 2*time.Second); err == nil {
			slowOpen.Add(1)
		}
		time.Sleep(50 * time.Millisecond)
	})
	// Huge: bodies of nearly 40 MiB.
	run(4, func(int) {
		hugeSent.Add(1)
		if s, err := bigDecide(p.Socket, maxBody-1024); err == nil && s == 200 {
			hugeOK.Add(1)
		}
	})
	// Malformed: garbage, broken HTTP, bad JSON, duplicate keys, chunked
	// bodies, headers too large.
	junk := []string{
		"\x00\x01\x02garbage\r\n\r\n",
		"GET /v1/status HTTP/9.9\r\n\r\n",
		"POST /v1/decide HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n{\"tool\":\"Ba",
		"POST /v1/decide HTTP/1.1\r\nHost: a\r\nContent-Length: 30\r\n\r\n{\"tool\":\"Bash\",\"tool\":\"Write\"}",
		"POST /v1/decide HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n0\r\n\r\n",
		"GET /v1/status HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("x", 200<<10) + "\r\n\r\n",
		"POST /v1/approvals/answer HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n[]",
		"GET /v1/events HTTP/1.1\r\nHost: a\r\nOrigin: http://evil.example\r\n\r\n",
	}
	run(4, func(i int) {
		c, err := net.Dial("unix", p.Socket)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			return
		}
		junkSent.Add(1)
		c.SetDeadline(time.Now().Add(2 * time.Second))
		c.Write([]byte(junk[rand.IntN(len(junk))]))
		c.Read(make([]byte, 512))
		c.Close()
	})
	// Concurrent: ordinary decisions in a tight loop.
	run(16, func(i int) {
		c := &api.Client{Socket: p.Socket, Timeout: 5 * time.Second}
		if _, err := c.Decide(ctx, apptest.Call("Bash", fmt.Sprintf("echo soak %d", i))); err == nil {
			flood.Add(1)
		}
	})
	// Memory, sampled.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if r := d.rss(t); r > peak.Load() {
				peak.Store(r)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	// Agents' hook calls, each its own process, as agents run them.
	var lat []time.Duration
	var hookFail int
	for ctx.Err() == nil {
		start := time.Now()
		code, out, _ := d.hookCall(t, "git status")
		if code != 0 || !strings.Contains(out, "permissionDecision") {
			hookFail++
		}
		lat = append(lat, time.Since(start))
		time.Sleep(200 * time.Millisecond)
	}
	wg.Wait()

	start := time.Now()
	code, out, errOut := d.hookCall(t, "ls")
	after := time.Since(start)
	if code != 0 || !strings.Contains(out, "permissionDecision") {
		t.Fatalf("a hook call after the soak: exit %d %q %q", code, out, errOut)
	}
	if after > time.Second {
		t.Errorf("a hook call after the soak took %v, want under a second", after)
	}
	var now int64
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if now = d.rss(t); now < 2*idle {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if now >= 2*idle {
		t.Errorf("RSS %.1f MiB 30 s after the soak, want under twice the idle %.1f MiB", mib(now), mib(idle))
	}
	d.cmd.Process.Signal(os.Interrupt)
	d.cmd.Wait()
	vr, err := audit.Verify(p.AuditLog())
	if err != nil || vr.Problem != "" {
		t.Fatalf("the audit log after the soak: %+v %v", vr, err)
	}
	slices.Sort(lat)
	q := func(f float64) time.Duration {
		return lat[min(len(lat)-1, int(f*float64(len(lat))))].Round(time.Millisecond)
	}
	if hookFail > 0 {
		t.Errorf("%d of %d hook calls during the soak got no decision", hookFail, len(lat))
	}
	t.Logf("soak %v: %d slow connections, %d huge bodies (%d decided), %d malformed requests, %d decisions from one flooding process; "+
		"%d hook calls meanwhile, median %v, p90 %v, max %v; after: a hook call in %v; RSS idle %.1f MiB, peak %.1f MiB, after %.1f MiB; audit log %d lines, the chain holds",
		dur, slowOpen.Load(), hugeSent.Load(), hugeOK.Load(), junkSent.Load(), flood.Load(),
		len(lat), q(0.5), q(0.9), lat[len(lat)-1].Round(time.Millisecond), after.Round(time.Millisecond),
		mib(idle), mib(peak.Load()), mib(now), vr.Lines)
}
