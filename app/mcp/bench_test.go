package mcp_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/agatehq/agate/app/mcp"
)

// allowGate allows every call and keeps nothing: what is measured is the
// proxy.
type allowGate struct{}

func (allowGate) Start(context.Context, mcp.Session) error { return nil }
func (allowGate) Stop(context.Context, mcp.Session) error  { return nil }
func (allowGate) Decide(context.Context, mcp.Call) (mcp.Verdict, error) {
	return mcp.Verdict{Allow: true}, nil
}
func (allowGate) Pin(context.Context, mcp.Session, []mcp.ToolDef) ([]mcp.ToolChange, error) {
	return nil, nil
}
func (allowGate) Taint(context.Context, mcp.Session, string) error { return nil }

// pipeServer runs the fake server in process on two OS pipes, and
// returns its stdin and stdout.
func pipeServer(b *testing.B) (io.WriteCloser, *os.File) {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fakeServer(fakeConfig{}, inR, outW)
		outW.Close()
		inR.Close()
	}()
	b.Cleanup(func() {
		inW.Close()
		<-done
		outR.Close()
	})
	return inW, outR
}

const benchCallLine = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"path":"/home/me/project/README.md","limit":100}}}` + "\n"

// measure sends one tools/call at a time and reads its answer, and
// reports the median and the 99th percentile of the round trips.
func measure(b *testing.B, send io.Writer, recv io.Reader) {
	r := bufio.NewReaderSize(recv, 1<<20)
	line := []byte(benchCallLine)
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := send.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "median-ns/call")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns/call")
}

// BenchmarkCallDirect is a tools/call straight to the fake server.
func BenchmarkCallDirect(b *testing.B) {
	in, out := pipeServer(b)
	measure(b, in, out)
}

// BenchmarkCallProxied is the same call through the proxy, with a gate
// that allows it at once: decoded, decided, encoded again, its answer
// cleaned and the run tainted. The difference of the medians is the
// proxy's overhead per call.
func BenchmarkCallProxied(b *testing.B) {
	srvIn, srvOut := pipeServer(b)
	cinR, cinW, _ := os.Pipe()
	coutR, coutW, _ := os.Pipe()
	stop, err := mcp.ServeConnected(context.Background(), mcp.Options{
		Name: "bench", Command: []string{"in-process"}, Stdin: cinR, Stdout: coutW, Gate: allowGate{},
	}, srvIn, srvOut)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cinW.Close()
		stop()
		cinR.Close()
		coutW.Close()
		coutR.Close()
	})
	measure(b, cinW, coutR)
}
