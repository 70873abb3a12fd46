package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agatehq/agate/app/mcp"
	"github.com/agatehq/agate/app/mcp/mcptest"
)

// harness runs one proxy in front of a server, and talks to it as a
// client.
type harness struct {
	t      *testing.T
	gate   *mcptest.Gate
	in     *os.File // the proxy's stdin, our end
	lines  chan []byte
	queue  []map[string]json.RawMessage
	done   chan runResult
	stderr *syncBuffer
	cancel context.CancelFunc
	closed bool
}

type runResult struct {
	code int
	err  error
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// fakeCommand runs the test binary as the fake server.
func fakeCommand() []string { return []string{os.Args[0], "-test.run=^$"} }

// start runs a proxy in front of the fake server (env adds to its
// environment) unless opts sets another Command.
func start(t *testing.T, gate *mcptest.Gate, opts func(*mcp.Options), env ...string) *harness {
	t.Helper()
	return startWith(t, gate, opts, mcp.Run, env...)
}

// startRemote runs a proxy in front of the remote server r.
func startRemote(t *testing.T, gate *mcptest.Gate, r mcp.Remote, opts func(*mcp.Options)) *harness {
	t.Helper()
	return startWith(t, gate, func(o *mcp.Options) {
		o.Command, o.Env = nil, nil
		if opts != nil {
			opts(o)
		}
	}, func(ctx context.Context, o mcp.Options) (int, error) { return mcp.RunRemote(ctx, o, r) })
}

// startWith is start with the proxy run by run.
func startWith(t *testing.T, gate *mcptest.Gate, opts func(*mcp.Options), run func(context.Context, mcp.Options) (int, error), env ...string) *harness {
	t.Helper()
	if gate == nil {
		gate = &mcptest.Gate{}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, gate: gate, in: inW, lines: make(chan []byte, 1000), done: make(chan runResult, 1), stderr: &syncBuffer{}}
	o := mcp.Options{
		Name:      "fake",
		Command:   fakeCommand(),
		Env:       append(os.Environ(), append([]string{"AGATE_MCP_FAKE_SERVER=1"}, env...)...),
		Stdin:     inR,
		Stdout:    outW,
		Stderr:    h.stderr,
		Gate:      gate,
		StopGrace: 2 * time.Second,
	}
	if opts != nil {
		opts(&o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() {
		code, err := run(ctx, o)
		outW.Close()
		inR.Close()
		h.done <- runResult{code, err}
	}()
	go func() {
		r := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				h.lines <- line
			}
			if err != nil {
				close(h.lines)
				outR.Close()
				return
			}
		}
	}()
	t.Cleanup(func() {
		if !h.closed {
			h.in.Close()
			h.cancel()
			select {
			case <-h.done:
			case <-time.After(10 * time.Second):
				t.Errorf("the proxy did not end")
			}
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", h.stderr.String())
		}
	})
	return h
}

// send writes one raw line to the proxy.
func (h *harness) send(line string) {
	h.t.Helper()
	if _, err := h.in.WriteString(line + "\n"); err != nil {
		h.t.Fatalf("write to the proxy: %v", err)
	}
}

// request sends a request built from method and params (a JSON text).
func (h *harness) request(id, method, params string) {
	h.t.Helper()
	if params == "" {
		h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method))
		return
	}
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params))
}

// call sends a tools/call.
func (h *harness) call(id, tool, args string) {
	h.t.Helper()
	if args == "" {
		args = "{}"
	}
	h.request(id, "tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
}

// next returns the next line from the proxy, raw.
func (h *harness) next(timeout time.Duration) ([]byte, bool) {
	h.t.Helper()
	select {
	case line, ok := <-h.lines:
		return line, ok
	case <-time.After(timeout):
		return nil, false
	}
}

// recv returns the next message.
func (h *harness) recv() map[string]json.RawMessage {
	h.t.Helper()
	if len(h.queue) > 0 {
		m := h.queue[0]
		h.queue = h.queue[1:]
		return m
	}
	return h.read()
}

func (h *harness) read() map[string]json.RawMessage {
	h.t.Helper()
	line, ok := h.next(10 * time.Second)
	if !ok {
		h.t.Fatalf("no message from the proxy")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		h.t.Fatalf("the proxy wrote a line that is not one JSON object (%v): %.300s", err, line)
	}
	return m
}

// answer returns the message answering id (its JSON text), keeping the
// others for recv.
func (h *harness) answer(id string) map[string]json.RawMessage {
	h.t.Helper()
	for i, m := range h.queue {
		if string(m["id"]) == id && m["method"] == nil {
			h.queue = append(h.queue[:i], h.queue[i+1:]...)
			return m
		}
	}
	for {
		m := h.read()
		if string(m["id"]) == id && m["method"] == nil {
			return m
		}
		h.queue = append(h.queue, m)
	}
}

// quiet checks that the proxy writes nothing for d.
func (h *harness) quiet(d time.Duration) {
	h.t.Helper()
	if len(h.queue) > 0 {
		h.t.Fatalf("unexpected message: %s", mustJSON(h.queue[0]))
	}
	if line, ok := h.next(d); ok {
		h.t.Fatalf("unexpected message: %s", line)
	}
}

// initialize runs the handshake.
func (h *harness) initialize() {
	h.t.Helper()
	h.request("0", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"harness","version":"9"}}`)
	m := h.answer("0")
	if m["result"] == nil {
		h.t.Fatalf("initialize: %s", mustJSON(m))
	}
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// listAll lists the tools, both pages.
func (h *harness) listAll() []map[string]any {
	h.t.Helper()
	var tools []map[string]any
	cursor := ""
	for i := 0; ; i++ {
		id := fmt.Sprintf(`"list-%d"`, i)
		if cursor == "" {
			h.request(id, "tools/list", "")
		} else {
			h.request(id, "tools/list", fmt.Sprintf(`{"cursor":%q}`, cursor))
		}
		m := h.answer(id)
		var res struct {
			Tools      []map[string]any `json:"tools"`
			NextCursor string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(m["result"], &res); err != nil {
			h.t.Fatalf("tools/list: %v: %s", err, mustJSON(m))
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			return tools
		}
		cursor = res.NextCursor
	}
}

// result decodes the CallToolResult answering id.
func (h *harness) result(id string) callResult {
	h.t.Helper()
	m := h.answer(id)
	var r callResult
	if m["result"] == nil {
		h.t.Fatalf("no result for %s: %s", id, mustJSON(m))
	}
	if err := json.Unmarshal(m["result"], &r); err != nil {
		h.t.Fatalf("result %s: %v", id, err)
	}
	r.raw = m
	return r
}

type callResult struct {
	Content []struct {
		Type     string         `json:"type"`
		Text     string         `json:"text"`
		Data     string         `json:"data"`
		Resource map[string]any `json:"resource"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
	raw               map[string]json.RawMessage
}

func (r callResult) text() string {
	var b []string
	for _, c := range r.Content {
		b = append(b, c.Text)
	}
	return strings.Join(b, "\n")
}

// seen asks the fake server which calls it got.
func (h *harness) seen() (calls, cancels string) {
	h.t.Helper()
	h.call(`"seen"`, "seen", "")
	r := h.result(`"seen"`)
	s, _ := r.StructuredContent["seen"].(string)
	c, _ := r.StructuredContent["cancels"].(string)
	return s, c
}

// close closes the proxy's stdin and waits for it to end.
func (h *harness) close() runResult {
	h.t.Helper()
	h.in.Close()
	return h.wait()
}

func (h *harness) wait() runResult {
	h.t.Helper()
	select {
	case r := <-h.done:
		h.closed = true
		checkNoLeaks(h.t)
		return r
	case <-time.After(15 * time.Second):
		h.t.Fatalf("the proxy did not end")
	}
	return runResult{}
}

// checkNoLeaks fails when a goroutine of the proxy outlives Run.
func checkNoLeaks(t *testing.T) {
	t.Helper()
	var stacks string
	for i := 0; i < 100; i++ {
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		leaked := false
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "agate/app/mcp.(*proxy)") || strings.Contains(g, "agate/app/mcp.Run") || strings.Contains(g, "os/exec.(*Cmd)") {
				leaked = true
			}
		}
		if !leaked {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("goroutines of the proxy still run after Run returned:\n%s", stacks)
}
