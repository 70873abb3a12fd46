package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agatehq/agate/app/mcp"
	"github.com/agatehq/agate/app/mcp/mcptest"
)

// sseServer is a small server of the HTTP+SSE transport: GET /sse opens
// the stream, whose first event names /message?sessionId=s1; each POST
// there is taken (202) and answered on the stream.
type sseServer struct {
	endpoint string // what the endpoint event says; default /message?sessionId=s1

	mu    sync.Mutex
	out   chan string
	auth  []string
	calls []string
	gone  chan struct{} // closed: the stream ends
}

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse":
		w.Header().Set("Content-Type", "text/event-stream")
		ep := s.endpoint
		if ep == "" {
			ep = "/message?sessionId=s1"
		}
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", ep)
		w.(http.Flusher).Flush()
		for {
			select {
			case m := <-s.out:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
				w.(http.Flusher).Flush()
			case <-s.gone:
				return
			case <-r.Context().Done():
				return
			}
		}
	case r.Method == http.MethodPost && r.URL.Path == "/message" && r.URL.Query().Get("sessionId") == "s1":
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &m)
		w.WriteHeader(http.StatusAccepted)
		switch m.Method {
		case "initialize":
			s.out <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"sse","version":"1"}}}`, m.ID)
		case "tools/list":
			s.out <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"wipe","inputSchema":{"type":"object"}}]}}`, m.ID)
		case "tools/call":
			s.mu.Lock()
			s.calls = append(s.calls, m.Params.Name)
			s.mu.Unlock()
			s.out <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"echo: hi"}]}}`, m.ID)
		}
	default:
		http.Error(w, "no", http.StatusNotFound)
	}
}

func newSSEServer() *sseServer {
	return &sseServer{out: make(chan string, 16), gone: make(chan struct{})}
}

// TestRemoteSSE: a server of the older HTTP+SSE transport behind the
// proxy is gated as any: its listing pinned, an allowed call answered
// from the stream, a denied one never posted, the person's header on
// every request; and when its stream ends the proxy ends.
func TestRemoteSSE(t *testing.T) {
	srv := newSSEServer()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	u, _ := url.Parse(ts.URL + "/sse")
	gate := &mcptest.Gate{Policy: func(ctx context.Context, c mcp.Call) (mcp.Verdict, error) {
		if c.Tool == "wipe" {
			return mcp.Verdict{Reason: "it wipes"}, nil
		}
		return mcp.Verdict{Allow: true}, nil
	}}
	h := startRemote(t, gate, mcp.Remote{URL: u, SSE: true, Header: http.Header{"Authorization": {"Bearer tok-sse-123"}}}, func(o *mcp.Options) { o.Name = "old" })
	h.initialize()
	if tools := h.listAll(); len(tools) != 2 {
		t.Fatalf("tools: %v", tools)
	}
	if _, ok := gate.Pinned("old", "echo"); !ok {
		t.Error("echo is not pinned")
	}
	h.call(`1`, "echo", `{}`)
	if r := h.result(`1`); r.IsError || r.text() != "echo: hi" {
		t.Errorf("echo: %+v", r)
	}
	h.call(`2`, "wipe", `{}`)
	if r := h.result(`2`); !r.IsError || !strings.Contains(r.text(), "it wipes") {
		t.Errorf("wipe: %+v", r)
	}
	close(srv.gone)
	select {
	case <-h.done:
		h.closed = true
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end with the server's stream")
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if strings.Join(srv.calls, ",") != "echo" {
		t.Errorf("the server was sent calls %q, want echo alone", srv.calls)
	}
	for i, a := range srv.auth {
		if a != "Bearer tok-sse-123" {
			t.Errorf("request %d carried Authorization %q", i, a)
		}
	}
}

// TestRemoteSSEEndpointElsewhere: an endpoint event naming another origin
// is not posted to: the requests are answered with an error, and the
// other host sees nothing.
func TestRemoteSSEEndpointElsewhere(t *testing.T) {
	hit := make(chan string, 10)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit <- r.Header.Get("Authorization") }))
	defer other.Close()
	for _, ep := range []string{other.URL + "/message?sessionId=s1", "//" + strings.TrimPrefix(other.URL, "http://") + "/message", "https://" + strings.TrimPrefix(other.URL, "http://") + "/m"} {
		t.Run(ep, func(t *testing.T) {
			srv := newSSEServer()
			srv.endpoint = ep
			ts := httptest.NewServer(srv)
			defer ts.Close()
			u, _ := url.Parse(ts.URL + "/sse")
			h := startRemote(t, nil, mcp.Remote{URL: u, SSE: true, Header: http.Header{"Authorization": {"Bearer tok-sse-123"}}}, func(o *mcp.Options) { o.Name = "old" })
			h.request("0", "initialize", `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"h","version":"1"}}`)
			if m := h.answer("0"); m["error"] == nil {
				t.Errorf("initialize: %s", mustJSON(m))
			}
			close(srv.gone)
			h.close()
			if !strings.Contains(h.stderr.String(), "another origin") {
				t.Errorf("stderr: %s", h.stderr.String())
			}
		})
	}
	if len(hit) > 0 {
		t.Errorf("the other host was sent %d requests", len(hit))
	}
}

// TestRealRemoteEverythingSSE runs the reference everything server in its
// SSE mode, as npm publishes it, behind the proxy.
func TestRealRemoteEverythingSSE(t *testing.T) {
	u := startEverything(t, "sse", "/sse")
	checkEverything(t, mcp.Remote{URL: u, SSE: true})
}
