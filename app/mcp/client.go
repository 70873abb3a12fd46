package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agatehq/agate/app/internal/strictjson"
)

// fromClient handles one line from the client.
func (p *proxy) fromClient(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if err := strictjson.Check(line); err != nil {
		var dup *strictjson.DuplicateKeyError
		if errors.As(err, &dup) {
			p.reply(errorResponse(dupID(line, dup), codeInvalidRequest, "agate refused a message that names a member twice: "+err.Error()))
			return
		}
		p.reply(errorResponse(nil, codeParseError, "parse error: "+err.Error()))
		return
	}
	if line[0] == '[' {
		p.clientBatch(line)
		return
	}
	m, err := parseMessage(line)
	if err != nil {
		p.reply(errorResponse(nil, codeInvalidRequest, "invalid request: "+err.Error()))
		return
	}
	switch {
	case m.method != "tools/call" && callLike(m.method):
		p.reply(errorResponse(validID(m.id), codeInvalidRequest, fmt.Sprintf("agate refused the method %q: a tools/call is spelled so", m.method)))
	case m.method != "" && m.has("id"):
		p.clientRequest(m, line)
	case m.method == "tools/call":
		p.reply(errorResponse(nil, codeInvalidRequest, "agate refused a tools/call without an id"))
	case m.method == "notifications/cancelled":
		p.clientCancel(m, line)
	case m.method != "":
		p.forward(line)
	case m.has("id") && m.has("result") != m.has("error") && !m.has("params"):
		p.noteRoots(m)
		p.forward(line) // an answer to a request of the server's
	default:
		p.reply(errorResponse(validID(m.id), codeInvalidRequest, "invalid request: neither a request, a notification nor a response"))
	}
}

// callLike reports whether method is "tools/call" but for case, space,
// control or invisible characters around it: a server that matched
// methods loosely would run such a call, which agate has not decided.
func callLike(method string) bool {
	trimmed := strings.TrimFunc(method, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || Invisible(r)
	})
	return strings.EqualFold(trimmed, "tools/call")
}

// noteRoots reads the client's answer to a roots/list of the server's:
// the reference filesystem server then resolves a relative path against
// the first root (a file: URI), which the proxy tells the gate with each
// call (Call.Base). An answer with no such root, or an error, leaves the
// server's own folders, which the proxy does not know: Base is "".
func (p *proxy) noteRoots(m *message) {
	key, ok := idKey(m.id)
	if !ok {
		return
	}
	p.smu.Lock()
	defer p.smu.Unlock()
	if !p.roots[key] {
		return
	}
	delete(p.roots, key)
	var res struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	p.base = ""
	if json.Unmarshal(m.members["result"], &res) != nil || len(res.Roots) == 0 {
		return
	}
	u, err := url.Parse(res.Roots[0].URI)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || !path.IsAbs(u.Path) {
		return
	}
	p.base = path.Clean(u.Path)
}

// validID is id when it is a string or a number, else nil.
func validID(id json.RawMessage) json.RawMessage {
	if _, ok := idKey(id); ok {
		return id
	}
	return nil
}

// dupID is the id to answer a message that names a member twice with:
// null when the id itself is doubled.
func dupID(line []byte, dup *strictjson.DuplicateKeyError) json.RawMessage {
	if strings.EqualFold(dup.Key, "id") {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return nil
	}
	return validID(top["id"])
}

// clientBatch answers a batch, which MCP 2025-06-18 removed: each request
// in it gets an error, and nothing of it is forwarded.
func (p *proxy) clientBatch(line []byte) {
	var elems []json.RawMessage
	json.Unmarshal(line, &elems)
	var answers []json.RawMessage
	for _, e := range elems {
		m, err := parseMessage(e)
		if err != nil || m.method == "" || validID(m.id) == nil {
			continue
		}
		answers = append(answers, errorResponse(m.id, codeInvalidRequest,
			"agate does not take JSON-RPC batches (MCP 2025-06-18 removed them): send each message on a line of its own"))
	}
	if len(answers) == 0 {
		p.reply(errorResponse(nil, codeInvalidRequest, "agate does not take JSON-RPC batches (MCP 2025-06-18 removed them)"))
		return
	}
	b, _ := marshal(answers)
	p.reply(b)
}

const errIDInUse = "agate refused a request whose id is that of a request still unanswered"

func (p *proxy) clientRequest(m *message, line []byte) {
	key, ok := idKey(m.id)
	if !ok {
		p.reply(errorResponse(nil, codeInvalidRequest, "invalid request: an id is a string or a number"))
		return
	}
	if m.method == "tools/call" {
		p.clientCall(m, key)
		return
	}
	r := &request{kind: kindOther, id: m.id}
	switch m.method {
	case "initialize":
		r.kind = kindInit
		p.noteClient(m.members["params"])
	case "tools/list":
		r.kind = kindList
	case "tasks/result":
		r.kind = kindTask
		var params struct {
			TaskID string `json:"taskId"`
		}
		json.Unmarshal(m.members["params"], &params)
		p.smu.Lock()
		r.tool = p.tasks[params.TaskID]
		p.smu.Unlock()
	case "resources/read", "prompts/get",
		// What a client shows the person and the model of the server's
		// prompts and resources, as it does a tool's description.
		"prompts/list", "resources/list", "resources/templates/list", "completion/complete":
		r.kind = kindContent
	}
	if !p.addPending(key, r) {
		p.reply(errorResponse(m.id, codeInvalidRequest, errIDInUse))
		return
	}
	p.forward(line)
}

// noteClient keeps what initialize says of the client.
func (p *proxy) noteClient(params json.RawMessage) {
	var in struct {
		ProtocolVersion string `json:"protocolVersion"`
		ClientInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"clientInfo"`
	}
	json.Unmarshal(params, &in)
	p.smu.Lock()
	defer p.smu.Unlock()
	p.session.Client, p.session.ClientVersion, p.session.ProtocolVersion = in.ClientInfo.Name, in.ClientInfo.Version, in.ProtocolVersion
}

// clientCancel handles notifications/cancelled: a call still being
// decided is dropped there (the server never saw it); any other is
// forwarded.
func (p *proxy) clientCancel(m *message, line []byte) {
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	json.Unmarshal(m.members["params"], &params)
	if key, ok := idKey(params.RequestID); ok {
		if r := p.lookupPending(key); r != nil && r.kind == kindCall {
			r.mu.Lock()
			if r.state.Load() == stateDeciding {
				r.state.Store(stateDone)
				r.cancel()
				r.mu.Unlock()
				p.removePending(key, r)
				return
			}
			r.mu.Unlock()
		}
	}
	p.forward(line)
}

// callMessage is a tools/call as the proxy forwards it: built from the
// decoded request, never the client's bytes.
type callMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  map[string]any  `json:"params"`
}

func (p *proxy) clientCall(m *message, key string) {
	invalid := func(msg string) { p.reply(errorResponse(m.id, codeInvalidParams, msg)) }
	raw, ok := m.members["params"]
	if !ok {
		invalid("tools/call needs params")
		return
	}
	pv, err := decodeNumber(raw)
	params, isObj := pv.(map[string]any)
	if err != nil || !isObj {
		invalid("tools/call's params is an object")
		return
	}
	name, _ := params["name"].(string)
	if name == "" {
		invalid("tools/call needs params.name, a string")
		return
	}
	args := map[string]any{}
	if a, has := params["arguments"]; has {
		if args, ok = a.(map[string]any); !ok {
			invalid("tools/call's params.arguments is an object")
			return
		}
	}
	meta, _ := params["_meta"].(map[string]any)
	ctx, cancel := context.WithTimeout(p.decCtx, p.opts.DecideTimeout)
	r := &request{kind: kindCall, id: m.id, tool: name, cancel: cancel}
	if !p.addPending(key, r) {
		cancel()
		p.reply(errorResponse(m.id, codeInvalidRequest, errIDInUse))
		return
	}
	select {
	case p.sem <- struct{}{}:
	case <-p.decCtx.Done():
		cancel()
		return
	}
	call := Call{Tool: name, PolicyTool: PolicyToolName(p.opts.Name, name), Arguments: args, ID: string(m.id), Meta: meta}
	msg := callMessage{JSONRPC: "2.0", ID: m.id, Method: "tools/call", Params: params}
	p.decMu.Lock()
	defer p.decMu.Unlock()
	if p.stopped.Load() {
		<-p.sem
		cancel()
		return
	}
	p.wg.Add(1)
	go p.decide(ctx, key, r, call, msg)
}

// decide decides one call, then forwards it or answers the denial.
func (p *proxy) decide(ctx context.Context, key string, r *request, c Call, msg callMessage) {
	defer p.wg.Done()
	defer func() { <-p.sem }()
	defer r.cancel()
	// What is forwarded is the value decided on, encoded again; it is
	// encoded first, so nothing the gate does to it changes what goes.
	fwd, err := marshal(msg)
	var v Verdict
	switch {
	case err != nil:
		err = fmt.Errorf("the call could not be encoded again: %w", err)
	case len(fwd) > p.opts.MaxLine:
		// Encoded again it grew past what the server's side takes: it
		// would be dropped there, and the client left waiting.
		err = fmt.Errorf("the call encoded again is %d bytes, more than the %d a message may have", len(fwd), p.opts.MaxLine)
	default:
		v, err = p.judge(ctx, &c)
	}
	r.mu.Lock()
	if r.state.Load() != stateDeciding {
		r.mu.Unlock()
		return // cancelled by the client
	}
	if err == nil && v.Allow {
		r.state.Store(stateForwarded)
		p.forward(fwd)
		r.mu.Unlock()
		return
	}
	r.state.Store(stateDone)
	r.mu.Unlock()
	p.removePending(key, r)
	if p.decCtx.Err() != nil {
		return // the client or the server has gone: nobody to answer
	}
	reason := v.Reason
	if err != nil {
		reason = "agate could not decide it, so it is denied: " + err.Error()
	}
	b, err := resultResponse(r.id, denialResult(reason))
	if err == nil {
		p.reply(b)
	}
}

// judge fills in what the proxy knows of the call's tool and asks the
// gate.
func (p *proxy) judge(ctx context.Context, c *Call) (v Verdict, err error) {
	if bad := badToolName(c.Tool); bad != "" {
		return Verdict{Reason: "the tool's name " + bad}, nil
	}
	c.Seq = p.seq.Add(1)
	def, change, unpinned := p.toolNow(c.Tool)
	if unpinned {
		gctx, cancel := context.WithTimeout(ctx, p.opts.GateTimeout)
		changes, err := p.gate.Pin(gctx, p.sessionNow(), []ToolDef{*def})
		cancel()
		if err != nil {
			return Verdict{}, fmt.Errorf("its tool's definition could not be checked against its pin: %w", err)
		}
		change = p.notePins([]ToolDef{*def}, changes)[def.Name]
	}
	c.Session, c.Def, c.Changed = p.sessionNow(), def, change
	p.smu.Lock()
	c.Base = p.base
	p.smu.Unlock()
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("the gate failed: %v", x)
		}
	}()
	return p.gate.Decide(ctx, *c)
}

// badToolName says what is wrong with a tool's name: it must be UTF-8,
// with no control or invisible character, at most 256 bytes.
func badToolName(name string) string {
	if len(name) > 256 {
		return "is longer than 256 bytes"
	}
	if !utf8.ValidString(name) {
		return "is not UTF-8"
	}
	for _, r := range name {
		if r < 0x20 || (0x7f <= r && r < 0xa0) || Invisible(r) {
			return fmt.Sprintf("holds the control or invisible character %U", r)
		}
	}
	return ""
}
