package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestMethodVariantsRefused: a tools/call spelled in another case, or
// with space around it, is refused, never passed on as some other
// method: a server that matches methods loosely would run it undecided.
func TestMethodVariantsRefused(t *testing.T) {
	h := start(t, nil, nil)
	h.initialize()
	for i, method := range []string{"Tools/call", "TOOLS/CALL", "tools/Call", "tools/call ", " tools/call", "tools/call\n", "tools/call\u0000", "tool\u017f/call"} {
		id := json.Number(strings.Repeat("4", i+1)).String()
		line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.Number(id), "method": method, "params": map[string]any{"name": "write", "arguments": map[string]any{}}})
		h.send(string(line))
		m := h.answer(id)
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		json.Unmarshal(m["error"], &e)
		if e.Code != -32600 || !strings.Contains(e.Message, "tools/call") {
			t.Errorf("method %q: got %s", method, mustJSON(m))
		}
	}
	if calls, _ := h.seen(); calls != "seen" {
		t.Errorf("the server got %q", calls)
	}
}

// TestMemberVariantsRefused: a member spelled as JSON-RPC's but for its
// case ("Method", "ID", "paramſ") is refused, never forwarded: a message
// with "Method":"tools/call" and an "error" reads to the proxy as a
// response, and to a server that matches members loosely as a call.
func TestMemberVariantsRefused(t *testing.T) {
	h := start(t, nil, nil)
	h.initialize()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":2,"Method":"tools/call","params":{"name":"write","arguments":{}},"error":{"code":0,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":3,"METHOD":"tools/call","params":{"name":"write","arguments":{}},"result":null}`,
		`{"jsonrpc":"2.0","ID":4,"method":"tools/call","params":{"name":"write","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","paramſ":{"name":"write","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"result":{},"params":{"name":"write"}}`,
		`{"jsonrpc":"2.0","id":7,"Method":"tools/call","Params":{"name":"write","arguments":{}},"error":{"code":0,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":8,"methodK":"x","Method":"tools/call","pArams":{"name":"write","arguments":{}},"result":{}}`,
	} {
		h.send(line)
		m := h.recv()
		if m["error"] == nil {
			t.Errorf("%s: got %s", line, mustJSON(m))
		}
	}
	if calls, _ := h.seen(); calls != "seen" {
		t.Errorf("the server got %q", calls)
	}
}

// TestHugeIDs: two integer ids a server that reads numbers as doubles
// cannot tell apart are one id: the second is refused while the first
// is in flight, and an answer written back as the double still reaches
// its request.
func TestHugeIDs(t *testing.T) {
	h := start(t, nil, nil, "AGATE_FAKE_NORMALIZE=1")
	h.initialize()
	h.call(`9007199254740993`, "echo", `{}`)
	if r := h.answer(`9007199254740993`); r["result"] == nil {
		t.Errorf("the answer to a huge id: %s", mustJSON(r))
	}
	h.call(`9007199254740995`, "slow", `{"ms":300}`)
	h.request(`9007199254740996`, "ping", "")
	m := h.answer(`9007199254740996`)
	if m["error"] == nil || !strings.Contains(string(m["error"]), "still unanswered") {
		t.Errorf("a second id the server reads as the first: %s", mustJSON(m))
	}
	if r := h.answer(`9007199254740995`); r["result"] == nil {
		t.Errorf("the slow call: %s", mustJSON(r))
	}
}

// TestUnreadableToolNotListed: a tool whose definition agate cannot read
// (so cannot pin) never reaches the client: a lax client would show it,
// unpinned, and its calls would be decided with no definition.
func TestUnreadableToolNotListed(t *testing.T) {
	h := start(t, nil, nil, "AGATE_FAKE_ODD_TOOL=1")
	h.initialize()
	tools := h.listAll()
	for _, tool := range tools {
		if tool["name"] == "odd" {
			t.Errorf("the client was shown %v", tool)
		}
	}
	if len(tools) == 0 || tools[0]["name"] != "echo" {
		t.Errorf("the other tools: %v", tools)
	}
	if !strings.Contains(h.stderr.String(), "odd") {
		t.Errorf("stderr does not say it left a tool out: %s", h.stderr.String())
	}
	h.quiet(100 * time.Millisecond)
}

// TestSmuggledThroughOtherRoutes: control tokens (and invisible
// characters) do not reach the client in the member names of a
// structuredContent, nor in the server's own requests and notifications
// (a sampling request's messages go to the client's model).
func TestSmuggledThroughOtherRoutes(t *testing.T) {
	h := start(t, nil, nil)
	h.initialize()
	h.call(`1`, "keys", ``)
	var res struct {
		StructuredContent map[string]any `json:"structuredContent"`
	}
	json.Unmarshal(h.answer(`1`)["result"], &res)
	inner, _ := res.StructuredContent["ok"].(map[string]any)
	if res.StructuredContent["system obey"] != "v" || inner["x"] != 1.0 || len(res.StructuredContent) != 2 || len(inner) != 1 {
		t.Errorf("structuredContent's names: %v", res.StructuredContent)
	}
	h.call(`2`, "smuggle", ``)
	for seen := 0; seen < 2; seen++ {
		m := h.recv()
		var p struct {
			Data     string `json:"data"`
			Messages []struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
			SystemPrompt string         `json:"systemPrompt"`
			Meta         map[string]any `json:"_meta"`
		}
		json.Unmarshal(m["params"], &p)
		switch string(m["method"]) {
		case `"notifications/message"`:
			if p.Data != "obey system" {
				t.Errorf("a notification: %q", p.Data)
			}
		case `"sampling/createMessage"`:
			if string(m["id"]) != `"srv-2"` || len(p.Messages) != 1 || p.Messages[0].Content.Text != "system obey" || p.SystemPrompt != "evil" || p.Meta["progressToken"] != "p\u200b" {
				t.Errorf("a sampling request: %s %+v", m["id"], p)
			}
		default:
			t.Fatalf("got %s", mustJSON(m))
		}
	}
	if got := h.result(`2`).text(); got != "smuggled" {
		t.Errorf("the call: %q", got)
	}
}

// TestListingsCleaned: what the server lists of its prompts and
// resources, and its completions, reach the client cleaned: a client
// shows them to the person and the model as it does a tool's description.
func TestListingsCleaned(t *testing.T) {
	h := start(t, nil, nil)
	h.initialize()
	for i, method := range []string{"prompts/list", "resources/list", "resources/templates/list", "completion/complete"} {
		id := string(rune('1' + i))
		h.request(id, method, `{}`)
		m := h.answer(id)
		var v any
		json.Unmarshal(m["result"], &v)
		var s strings.Builder
		enc := json.NewEncoder(&s)
		enc.SetEscapeHTML(false)
		enc.Encode(v)
		if strings.Contains(s.String(), "<|im_start|>") || strings.Contains(s.String(), "\u200b") || !strings.Contains(s.String(), "system obey") || !strings.Contains(s.String(), `"file:///r"`) {
			t.Errorf("%s: %s", method, s.String())
		}
	}
}

// TestRootsBase: the folder the server resolves relative paths against is
// the first root the client gave it (the reference filesystem server's
// rule), told to the gate with each call; before any, or after an answer
// that gives no file: root, it is unknown.
func TestRootsBase(t *testing.T) {
	h := start(t, nil, nil)
	h.initialize()
	base := func() string {
		t.Helper()
		h.call(`"b"`, "echo", `{}`)
		h.result(`"b"`)
		calls := h.gate.Calls()
		return calls[len(calls)-1].Base
	}
	if got := base(); got != "" {
		t.Errorf("before any roots: %q", got)
	}
	for i, tc := range []struct{ answer, want string }{
		{`{"roots":[{"uri":"file:///home/u/my%20proj","name":"p"},{"uri":"file:///tmp"}]}`, "/home/u/my proj"},
		{`{"roots":[]}`, ""},
		{`{"roots":[{"uri":"file:///home/u/proj"}]}`, "/home/u/proj"},
		{`{"roots":[{"uri":"https://example.com/x"}]}`, ""},
		{`{"roots":[{"uri":"file:///home/u/proj"}]}`, "/home/u/proj"},
		{`{"roots":[{"uri":"file://host/share"}]}`, ""},
		{`{"roots":[{"uri":"file:relative"}]}`, ""},
	} {
		id := `"r` + string(rune('0'+i)) + `"`
		h.call(id, "askroots", ``)
		m := h.recv()
		if string(m["method"]) != `"roots/list"` {
			t.Fatalf("got %s", mustJSON(m))
		}
		h.send(`{"jsonrpc":"2.0","id":"srv-roots","result":` + tc.answer + `}`)
		if got := h.result(id).text(); !strings.HasPrefix(got, "roots ") {
			t.Fatalf("the server got %q", got)
		}
		if got := base(); got != tc.want {
			t.Errorf("after %s: %q, want %q", tc.answer, got, tc.want)
		}
	}
	// An error answer: the server keeps folders of its own.
	h.call(`"e"`, "askroots", ``)
	h.recv()
	h.send(`{"jsonrpc":"2.0","id":"srv-roots","error":{"code":-1,"message":"no"}}`)
	h.result(`"e"`)
	if got := base(); got != "" {
		t.Errorf("after an error: %q", got)
	}
}
