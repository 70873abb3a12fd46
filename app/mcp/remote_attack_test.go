package mcp_test

// The remote bridge attacked: a hostile server (or a client that spells
// a member as JSON-RPC does not) against what the bridge must hold.

import (
	"context"
	"encoding/json"
	"fmt"
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

// answerWithin is h.answer with a timeout: ok is false when no answer to
// id came within d.
func answerWithin(h *harness, id string, d time.Duration) (map[string]json.RawMessage, bool) {
	h.t.Helper()
	for i, m := range h.queue {
		if string(m["id"]) == id && m["method"] == nil {
			h.queue = append(h.queue[:i], h.queue[i+1:]...)
			return m, true
		}
	}
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, false
		}
		line, ok := h.next(left)
		if !ok {
			return nil, false
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if string(m["id"]) == id && m["method"] == nil {
			return m, true
		}
		h.queue = append(h.queue, m)
	}
}

// TestCaseFoldedMemberRefused: a message whose method member is spelled
// "Method", carrying a "result" or an "error", is refused, not forwarded
// as a response: a server that decodes members case-insensitively
// (encoding/json, mcp-go) would run it as a tools/call the gate never
// saw.
func TestCaseFoldedMemberRefused(t *testing.T) {
	srv := &streamable{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	u, _ := url.Parse(ts.URL + "/mcp")
	gate := &mcptest.Gate{Policy: func(ctx context.Context, c mcp.Call) (mcp.Verdict, error) {
		return mcp.Verdict{Reason: "nothing is allowed"}, nil
	}}
	h := startRemote(t, gate, mcp.Remote{URL: u}, func(o *mcp.Options) { o.Name = "remote" })
	h.initialize()
	h.call(`1`, "wipe", `{}`)
	if r := h.result(`1`); !r.IsError {
		t.Fatalf("the plain call was not denied: %+v", r)
	}
	h.send(`{"jsonrpc":"2.0","id":2,"Method":"tools/call","params":{"name":"wipe","arguments":{}},"error":{"code":0,"message":"x"}}`)
	h.send(`{"jsonrpc":"2.0","id":3,"Method":"tools/call","params":{"name":"wipe","arguments":{}},"result":null}`)
	time.Sleep(500 * time.Millisecond)
	h.close()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.calls) > 0 {
		t.Errorf("tools/call reached the server without the gate deciding it: %q (the gate decided %d calls)", srv.calls, len(gate.Calls()))
	}
}

// TestRemoteHeldNotificationEnds: a server that holds a notification's
// POST open does not keep the proxy running after the client closed its
// stdin: the bridge keeps reading the proxy's lines whatever the server
// is slow to take.
func TestRemoteHeldNotificationEnds(t *testing.T) {
	s := &scripted{override: func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method == "notifications/initialized" {
			<-r.Context().Done()
			return true
		}
		return false
	}}
	h, _ := startScripted(t, s, nil)
	h.initialize()
	h.request(`1`, "tools/list", "")
	time.Sleep(200 * time.Millisecond)
	h.in.Close()
	select {
	case <-h.done:
		h.closed = true
	case <-time.After(8 * time.Second):
		t.Error("the proxy did not end 8s after the client closed stdin (StopGrace is 2s)")
	}
}

// TestRemoteMalformedAnswer: what the proxy drops (an "ID", no result or
// error, both, a member twice) is not taken as the request's answer: the
// request is answered with an error.
func TestRemoteMalformedAnswer(t *testing.T) {
	cases := map[string]string{
		"ID":        `{"jsonrpc":"2.0","ID":%s,"result":{"tools":[]}}`,
		"no result": `{"jsonrpc":"2.0","id":%s}`,
		"both":      `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]},"error":{"code":1,"message":"x"}}`,
		"doubled":   `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]},"result":{}}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			s := &scripted{override: func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
				if method != "tools/list" {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, body, id)
				return true
			}}
			h, _ := startScripted(t, s, nil)
			h.initialize()
			h.request(`7`, "tools/list", "")
			if _, ok := answerWithin(h, `7`, 3*time.Second); !ok {
				t.Errorf("no answer to 7: the client is left waiting")
			}
			h.close()
		})
	}
}

// TestRemoteQueryHidden: a key in the URL's query is cut out of results
// and of stderr, as a header's value is.
func TestRemoteQueryHidden(t *testing.T) {
	const key = "query-secret-42"
	s := &scripted{override: func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		switch method {
		case "tools/list":
			http.Error(w, "unknown key "+r.URL.Query().Get("key"), http.StatusUnauthorized)
			return true
		case "tools/call":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"you called %s"}]}}`, id, r.URL.String())
			return true
		}
		return false
	}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	u, _ := url.Parse(ts.URL + "/mcp?key=" + key)
	h := startRemote(t, nil, mcp.Remote{URL: u}, func(o *mcp.Options) { o.Name = "remote" })
	h.initialize()
	h.request(`1`, "tools/list", "")
	h.answer(`1`)
	h.call(`2`, "echo", `{}`)
	if r := h.result(`2`); strings.Contains(r.text(), key) {
		t.Errorf("the model sees the URL's query: %s", r.text())
	}
	h.close()
	if strings.Contains(h.stderr.String(), key) {
		t.Errorf("stderr shows the URL's query: %s", h.stderr.String())
	}
}

// TestRemoteProxyLogHidesHeader: a server that answers with the person's
// token as an id does not get it written on stderr by the proxy's own
// log lines.
func TestRemoteProxyLogHidesHeader(t *testing.T) {
	const token = "tok-0123456789abcdef"
	s := &scripted{override: func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method != "tools/list" {
			return false
		}
		auth, _ := json.Marshal(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"jsonrpc":"2.0","id":%s,"result":{}},{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}]`, auth, id)
		return true
	}}
	h, _ := startScripted(t, s, http.Header{"Authorization": {"Bearer " + token}})
	h.initialize()
	h.request(`1`, "tools/list", "")
	h.answer(`1`)
	h.close()
	if strings.Contains(h.stderr.String(), token) {
		t.Errorf("stderr shows the header: %s", h.stderr.String())
	}
}

// sessions is a Streamable HTTP server whose sessions can be ended, and
// which offers the GET stream.
type sessions struct {
	mu      sync.Mutex
	n       int
	current string
	gets    []string
	streams []chan struct{}
}

func (s *sessions) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.current = ""
	for _, c := range s.streams {
		close(c)
	}
	s.streams = nil
}

func (s *sessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodDelete:
		return
	case http.MethodGet:
		s.mu.Lock()
		s.gets = append(s.gets, sid)
		if sid == "" || sid != s.current {
			s.mu.Unlock()
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		end := make(chan struct{})
		s.streams = append(s.streams, end)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-end:
		case <-r.Context().Done():
		}
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.NewDecoder(r.Body).Decode(&m)
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.Method == "initialize" {
		s.n++
		s.current = fmt.Sprintf("s-%d", s.n)
		w.Header().Set("Mcp-Session-Id", s.current)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"remote","version":"1"}}}`, m.ID)
		return
	}
	if sid == "" || sid != s.current {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	if len(m.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
}

// TestRemoteStreamPerSession: the GET stream belongs to a session: after
// the server ends one and the client initializes again, the new session
// opens its own.
func TestRemoteStreamPerSession(t *testing.T) {
	s := &sessions{}
	ts := httptest.NewServer(s)
	defer ts.Close()
	u, _ := url.Parse(ts.URL + "/mcp")
	h := startRemote(t, nil, mcp.Remote{URL: u}, func(o *mcp.Options) { o.Name = "remote" })
	h.initialize()
	h.request(`1`, "tools/list", "")
	h.answer(`1`)
	s.expire()
	h.request(`2`, "tools/list", "")
	h.answer(`2`) // the 404's error
	h.request("10", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}`)
	h.answer("10")
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.request(`3`, "tools/list", "")
	h.answer(`3`)
	deadline := time.Now().Add(3 * time.Second)
	for {
		s.mu.Lock()
		gets := append([]string(nil), s.gets...)
		s.mu.Unlock()
		if strings.Contains(strings.Join(gets, ","), "s-2") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("no GET stream for the new session s-2 (GETs carried %q)", gets)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.close()
}
