package mcp_test

import (
	"bytes"
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

// scripted is the streamable server with some messages answered by
// override instead (when it returns true).
type scripted struct {
	streamable
	override func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool

	mu       sync.Mutex
	gets     []string // the session each GET carried
	initSess []string // the session each initialize carried
	listSess []string // the session each tools/list carried
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		s.mu.Lock()
		s.gets = append(s.gets, r.Header.Get("Mcp-Session-Id"))
		s.mu.Unlock()
	}
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &m)
	s.mu.Lock()
	switch m.Method {
	case "initialize":
		s.initSess = append(s.initSess, r.Header.Get("Mcp-Session-Id"))
	case "tools/list":
		s.listSess = append(s.listSess, r.Header.Get("Mcp-Session-Id"))
	}
	s.mu.Unlock()
	if s.override != nil && r.Method == http.MethodPost && s.override(w, r, m.Method, m.ID) {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.streamable.ServeHTTP(w, r)
}

func startScripted(t *testing.T, s *scripted, header http.Header) (*harness, *httptest.Server) {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	u, _ := url.Parse(ts.URL + "/mcp")
	return startRemote(t, nil, mcp.Remote{URL: u, Header: header}, func(o *mcp.Options) { o.Name = "remote" }), ts
}

// TestRemoteSlowCallHoldsUpNothing: a call whose answer the server holds
// back (headers and all) does not hold up the client's next request, nor
// the cancellation of the call itself.
func TestRemoteSlowCallHoldsUpNothing(t *testing.T) {
	release := make(chan struct{})
	cancelled := make(chan struct{}, 1)
	s := &scripted{override: func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		switch method {
		case "tools/call":
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return true
		case "notifications/cancelled":
			cancelled <- struct{}{}
		}
		return false
	}}
	h, _ := startScripted(t, s, nil)
	defer close(release)
	h.initialize()
	h.call(`1`, "echo", `{}`)
	time.Sleep(50 * time.Millisecond)
	h.request(`2`, "tools/list", "")
	if m := h.answer(`2`); m["result"] == nil {
		t.Fatalf("tools/list behind a held call: %s", mustJSON(m))
	}
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the cancellation did not reach the server while the call was held")
	}
}

// TestRemoteUnansweredRequest: a request whose POST ends without its
// answer (202, an empty body, a stream that ends first, an answer to
// another id) is answered with an error, never left waiting.
func TestRemoteUnansweredRequest(t *testing.T) {
	cases := map[string]func(w http.ResponseWriter, id json.RawMessage){
		"202": func(w http.ResponseWriter, id json.RawMessage) { w.WriteHeader(http.StatusAccepted) },
		"empty JSON": func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
		},
		"stream ends": func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		},
		"another id": func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":999,"result":{}}`)
		},
	}
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			s := &scripted{override: func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
				if method != "tools/list" {
					return false
				}
				answer(w, id)
				return true
			}}
			h, _ := startScripted(t, s, nil)
			h.initialize()
			h.request(`7`, "tools/list", "")
			m := h.answer(`7`)
			if m["error"] == nil || !strings.Contains(string(m["error"]), "without answering") {
				t.Errorf("got %s, want an error answering 7", mustJSON(m))
			}
			h.close()
		})
	}
}

// TestRemoteHeaderNeverShown: the person's header never reaches the
// client or stderr, wherever the server echoes it: an error body, a
// call's result, initialize's instructions (which many clients give the
// model), another request's error; and the URL's query is not shown
// either.
func TestRemoteHeaderNeverShown(t *testing.T) {
	const token = "tok-0123456789abcdef"
	s := &scripted{override: func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		auth := r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		switch method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "sess-1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"remote","version":"1"},"instructions":"your key is %s"}}`, id, auth)
		case "ping":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"bad key %s"}}`, id, auth)
		case "tools/list":
			http.Error(w, "bad credentials: "+auth, http.StatusUnauthorized)
		case "tools/call":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"you sent %s"}]}}`, id, auth)
		default:
			return false
		}
		return true
	}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	u, _ := url.Parse(ts.URL + "/mcp?key=query-secret-42")
	var out bytes.Buffer
	h := startRemote(t, nil, mcp.Remote{URL: u, Header: http.Header{"Authorization": {"Bearer " + token}}}, func(o *mcp.Options) { o.Name = "remote" })
	h.request("0", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}`)
	out.WriteString(mustJSON(h.answer("0")))
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.request("3", "ping", "")
	out.WriteString(mustJSON(h.answer("3")))
	h.request(`1`, "tools/list", "")
	m := h.answer(`1`)
	if m["error"] == nil || !strings.Contains(string(m["error"]), "401") {
		t.Errorf("tools/list: %s", mustJSON(m))
	}
	out.WriteString(mustJSON(m))
	h.call(`2`, "echo", `{}`)
	r := h.result(`2`)
	if !strings.Contains(r.text(), "you sent") {
		t.Errorf("echo: %+v", r)
	}
	out.WriteString(r.text())
	h.close()
	for what, s := range map[string]string{"the client": out.String(), "stderr": h.stderr.String()} {
		if strings.Contains(s, token) || strings.Contains(s, "query-secret-42") {
			t.Errorf("%s saw a secret: %s", what, s)
		}
	}
}

// TestRemoteStreamLeftOpen: a server that keeps a POST's stream open
// after answering it has the stream closed by the proxy, whether it
// spells the id as the client did or otherwise (1 for 1.0, as the proxy
// takes it).
func TestRemoteStreamLeftOpen(t *testing.T) {
	for _, tc := range []struct{ sent, answered string }{{"1", ""}, {"1.0", "1"}} {
		t.Run(tc.sent, func(t *testing.T) {
			closed := make(chan bool, 1)
			s := &scripted{override: func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
				if method != "tools/call" {
					return false
				}
				if tc.answered != "" {
					id = json.RawMessage(tc.answered)
				}
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[]}}\n\n", id)
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					closed <- true
				case <-time.After(5 * time.Second):
					closed <- false
				}
				return true
			}}
			h, _ := startScripted(t, s, nil)
			h.initialize()
			h.call(tc.sent, "echo", `{}`)
			h.result(tc.sent)
			if !<-closed {
				t.Error("the proxy kept reading a stream whose answer it had")
			}
			h.close()
		})
	}
}

// TestRemoteListensAfterInitialized: the stream for the server's own
// messages is opened once notifications/initialized was taken (202),
// with the session.
func TestRemoteListensAfterInitialized(t *testing.T) {
	s := &scripted{}
	h, _ := startScripted(t, s, nil)
	h.initialize()
	h.request(`1`, "tools/list", "")
	h.answer(`1`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		gets := append([]string(nil), s.gets...)
		s.mu.Unlock()
		if len(gets) > 0 {
			if gets[0] != "sess-1" {
				t.Errorf("the GET carried session %q", gets[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no GET stream was opened")
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.close()
}

// TestRemoteSessionEnded: an initialize never carries the session (it
// begins one); a 404 on a request of the session ends it: the client is
// told, what it sends next carries no session, and its next initialize
// gets a new one that later requests carry.
func TestRemoteSessionEnded(t *testing.T) {
	var mu sync.Mutex
	expired := false
	s := &scripted{override: func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case method == "tools/list" && !expired:
			expired = true
			http.Error(w, "no such session", http.StatusNotFound)
			return true
		case method == "initialize" && expired:
			w.Header().Set("Mcp-Session-Id", "sess-1") // (the next one, as streamable checks)
		}
		return false
	}}
	h, _ := startScripted(t, s, nil)
	h.initialize()
	h.initialize()
	h.request(`1`, "tools/list", "")
	if m := h.answer(`1`); m["error"] == nil || !strings.Contains(string(m["error"]), "404") {
		t.Fatalf("tools/list in an ended session: %s", mustJSON(m))
	}
	h.request(`3`, "tools/list", "")
	if m := h.answer(`3`); m["error"] == nil {
		t.Fatalf("tools/list after the session ended: %s", mustJSON(m))
	}
	h.request("10", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}`)
	h.answer("10")
	h.request(`2`, "tools/list", "")
	if m := h.answer(`2`); m["result"] == nil {
		t.Fatalf("tools/list in the new session: %s", mustJSON(m))
	}
	h.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, sid := range s.initSess {
		if sid != "" {
			t.Errorf("initialize %d carried session %q", i, sid)
		}
	}
	if want := []string{"sess-1", "", "sess-1"}; fmt.Sprint(s.listSess) != fmt.Sprint(want) {
		t.Errorf("tools/list carried sessions %q, want %q", s.listSess, want)
	}
}

// TestRemoteRedirectRefusedOwnClient: a caller's client that follows
// redirects still has them refused.
func TestRemoteRedirectRefusedOwnClient(t *testing.T) {
	hit := make(chan struct{}, 10)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit <- struct{}{} }))
	defer other.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer ts.Close()
	u, _ := url.Parse(ts.URL + "/mcp")
	h := startRemote(t, nil, mcp.Remote{URL: u, HTTP: &http.Client{}}, func(o *mcp.Options) { o.Name = "remote" })
	h.request("0", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}`)
	if m := h.answer("0"); m["error"] == nil {
		t.Errorf("initialize through a redirect: %s", mustJSON(m))
	}
	h.close()
	if len(hit) > 0 {
		t.Error("the redirect was followed")
	}
}

// TestRemotePlainHTTPRefused: http:// only to this machine, and the
// refusal does not show the URL's query.
func TestRemotePlainHTTPRefused(t *testing.T) {
	for raw, ok := range map[string]bool{
		"http://mcp.example.com/mcp?key=s3cr3t-value": false,
		"http://10.0.0.1:8080/mcp":                    false,
		"http://127.0.0.1:1/mcp":                      true,
		"http://[::1]:1/mcp":                          true,
		"http://localhost:1/mcp":                      true,
	} {
		u, _ := url.Parse(raw)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		code, err := mcp.RunRemote(ctx, mcp.Options{Name: "r", Gate: &mcptest.Gate{}, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}, mcp.Remote{URL: u})
		cancel()
		if got := code != 2; got != ok {
			t.Errorf("%s: code %d, err %v", raw, code, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: the error shows the query: %v", raw, err)
		}
	}
}
