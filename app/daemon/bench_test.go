package daemon

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// BenchmarkDecideSocket64 measures decisions per second through the unix
// socket with 64 concurrent clients, each decision fsync'd to the audit
// log before its answer (group commit).
func BenchmarkDecideSocket64(b *testing.B) {
	p := apptest.Paths(b, "")
	_, c := startDaemon(b, p)
	var n atomic.Int64
	b.SetParallelism(64 / max(1, runtimeProcs()))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := n.Add(1)
		r := apptest.Call("Bash", fmt.Sprintf("git status # client %d", i))
		r.Session = fmt.Sprintf("s%d", i)
		for pb.Next() {
			resp, err := c.Decide(context.Background(), r)
			if err != nil || resp.Decision != policy.Allow {
				b.Fatalf("%v %+v", err, resp)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}

// BenchmarkDecideInProcess is the same decision without the socket: the
// daemon's own cost, audit log included.
func BenchmarkDecideInProcess(b *testing.B) {
	p := apptest.Paths(b, "")
	d, _ := startDaemon(b, p)
	r := apptest.Call("Bash", "git status")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Decide(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// BenchmarkDecideExporting is BenchmarkDecideInProcess with the audit
// export running against a collector on this machine: the export reads
// the log after each line is on disk, off the decision's path, so the
// two should match (compare them in one run).
func BenchmarkDecideExporting(b *testing.B) {
	var got atomic.Int64
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got.Add(1)
		w.Write([]byte("{}"))
	}))
	defer col.Close()
	p := apptest.Paths(b, "[audit.export]\nendpoint = \""+col.URL+"\"\n")
	d, _ := startDaemon(b, p)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.exportAudit(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	r := apptest.Call("Bash", "git status")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Decide(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(got.Load()), "exports")
}
