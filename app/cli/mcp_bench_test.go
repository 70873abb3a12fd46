package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon/daemontest"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/app/mcp"
)

const benchTools = `[{"name":"echo","description":"says it back","inputSchema":{"type":"object"}}]`

const benchCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"the file's text","path":"/home/me/project/README.md"}}}` + "\n"

// benchMeasure sends one tools/call at a time and reads its answer, and
// reports the median and the 99th percentile of the round trips.
func benchMeasure(b *testing.B, send io.Writer, recv *bufio.Reader) {
	line := []byte(benchCall)
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := send.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := recv.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "median-ns/call")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns/call")
}

func benchHandshake(b *testing.B, send io.Writer, recv *bufio.Reader) {
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		io.WriteString(send, l+"\n")
		if _, err := recv.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDefs(b *testing.B) []string {
	defs := filepath.Join(b.TempDir(), "tools.json")
	if err := os.WriteFile(defs, []byte(benchTools), 0o600); err != nil {
		b.Fatal(err)
	}
	return append(os.Environ(), "FAKE_MCP_TOOLS="+defs)
}

// BenchmarkMCPCallDirect is a tools/call straight to a server process
// (this test binary playing the fake server).
func BenchmarkMCPCallDirect(b *testing.B) {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = benchDefs(b)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	r := bufio.NewReaderSize(out, 1<<20)
	benchHandshake(b, in, r)
	benchMeasure(b, in, r)
}

// BenchmarkMCPCallDaemon is the same call through `agate mcp run`'s
// proxy and a real daemon on its socket, which decides it (an allow
// rule), writes it to the audit log and is told of the result. The
// difference of the medians is the proxy's overhead per call.
func BenchmarkMCPCallDaemon(b *testing.B) {
	p := apptest.Paths(b, "[auto]\nmode = \"ask\"\nrules = [\"allow mcp__bench__echo\"]\n")
	daemontest.Start(b, p)
	self, _ := os.Executable()
	cinR, cinW, _ := os.Pipe()
	coutR, coutW, _ := os.Pipe()
	cwd, _ := os.Getwd()
	gate := newDaemonGate(&api.Client{Socket: p.Socket}, cwd, io.Discard)
	done := make(chan struct{})
	go func() {
		defer close(done)
		mcp.Run(context.Background(), mcp.Options{Name: "bench", Command: []string{self}, Env: benchDefs(b),
			Stdin: cinR, Stdout: coutW, Gate: gate, Secrets: &resultSecrets{g: gate}})
	}()
	b.Cleanup(func() {
		cinW.Close()
		<-done
		cinR.Close()
		coutW.Close()
		coutR.Close()
	})
	r := bufio.NewReaderSize(coutR, 1<<20)
	benchHandshake(b, cinW, r)
	benchMeasure(b, cinW, r)
}
