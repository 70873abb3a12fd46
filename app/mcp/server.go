package mcp

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/agatehq/agate/app/internal/strictjson"
)

// toolNow returns what is known of a tool: its definition as last
// listed (nil when it never was), how that differs from its pin, and
// whether it must be pinned again first.
func (p *proxy) toolNow(name string) (*ToolDef, *ToolChange, bool) {
	p.smu.Lock()
	defer p.smu.Unlock()
	st := p.tools[name]
	if st == nil {
		return nil, nil, false
	}
	def := st.def
	return &def, st.change, st.unpinned
}

// notePins records a listing's definitions and what Pin said of them
// (changes nil and pinned false when Pin failed), and returns the
// changes by tool.
func (p *proxy) notePins(defs []ToolDef, changes []ToolChange) map[string]*ToolChange {
	byTool := map[string]*ToolChange{}
	for i := range changes {
		c := changes[i]
		byTool[c.Tool] = &c
	}
	p.smu.Lock()
	defer p.smu.Unlock()
	for _, d := range defs {
		p.tools[d.Name] = &toolState{def: d, change: byTool[d.Name]}
	}
	return byTool
}

func (p *proxy) noteUnpinned(defs []ToolDef) {
	p.smu.Lock()
	defer p.smu.Unlock()
	for _, d := range defs {
		st := &toolState{def: d, unpinned: true}
		if old := p.tools[d.Name]; old != nil && old.def.Hash == d.Hash {
			st.change = old.change
		}
		p.tools[d.Name] = st
	}
}

// fromServer handles one line from the server.
func (p *proxy) fromServer(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if err := strictjson.Check(line); err != nil {
		p.logf("dropped a message from the server: %v", err)
		return
	}
	if line[0] != '[' {
		p.serverMessage(line)
		return
	}
	var elems []json.RawMessage
	json.Unmarshal(line, &elems)
	for _, e := range elems {
		p.serverMessage(e)
	}
}

func (p *proxy) serverMessage(raw []byte) {
	m, err := parseMessage(raw)
	if err != nil {
		p.logf("dropped a message from the server: %v", err)
		return
	}
	hasResult, hasError := m.has("result"), m.has("error")
	if m.method != "" {
		if hasResult || hasError {
			p.logf("dropped a message from the server that is both a request and a response")
			return
		}
		if m.method == "roots/list" {
			if key, ok := idKey(m.id); ok {
				p.smu.Lock()
				if len(p.roots) < maxDeciding {
					p.roots[key] = true
				}
				p.smu.Unlock()
			}
		}
		if b := p.cleanServerMessage(m, raw); b != nil {
			p.reply(b) // a request or a notification of the server's
		}
		return
	}
	key, ok := idKey(m.id)
	if !ok || hasResult == hasError {
		p.logf("dropped a message from the server that is not a response")
		return
	}
	r := p.takeAnswered(key)
	if r == nil {
		p.logf("dropped a response from the server to no request in flight (id %s)", m.id)
		return
	}
	switch r.kind {
	case kindInit:
		p.smu.Lock()
		if res, ok := m.members["result"]; ok {
			var in struct {
				ServerInfo json.RawMessage `json:"serverInfo"`
			}
			json.Unmarshal(res, &in)
			p.session.ServerInfo = in.ServerInfo
		}
		p.smu.Unlock()
		p.reply(raw)
	case kindCall, kindTask:
		p.answerCall(r, m)
	case kindList:
		p.answerList(r, m)
	case kindContent:
		p.answerContent(r, m)
	default:
		p.reply(raw)
	}
}

func (p *proxy) cleaner() *textCleaner {
	c := &textCleaner{secrets: p.opts.Secrets}
	if p.opts.PII {
		c.pii = newPIIRedactor()
	}
	return c
}

// answer writes the answer to r: result, or else errObj, both already
// cleaned.
func (p *proxy) answer(r *request, result, errObj any) {
	var b []byte
	var err error
	if errObj != nil {
		b, err = marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   any             `json:"error"`
		}{"2.0", r.id, errObj})
	} else {
		b, err = resultResponse(r.id, result)
	}
	if err != nil {
		p.logf("could not encode an answer again: %v", err)
		b = errorResponse(r.id, -32603, "agate could not pass on the server's answer")
	}
	p.reply(b)
}

// cleanedParts decodes m's result or error and cleans the error's
// strings; the result is left to the caller.
func cleanedParts(m *message, c *textCleaner) (result, errObj any, err error) {
	if raw, ok := m.members["error"]; ok {
		if errObj, err = decodeNumber(raw); err != nil {
			return nil, nil, err
		}
		return nil, c.cleanAll(errObj), nil
	}
	result, err = decodeNumber(m.members["result"])
	return result, nil, err
}

// answerCall passes on the answer to a tools/call (or to the tasks/result
// of one): its content and structuredContent cleaned, the run tainted.
func (p *proxy) answerCall(r *request, m *message) {
	c := p.cleaner()
	result, errObj, err := cleanedParts(m, c)
	if err != nil {
		p.answer(r, denialResult("the server's answer could not be read"), nil)
		return
	}
	if res, ok := result.(map[string]any); ok {
		if task, ok := res["task"].(map[string]any); ok && r.kind == kindCall && res["content"] == nil {
			// A task was made: its result comes by tasks/result.
			if id, ok := task["taskId"].(string); ok {
				p.smu.Lock()
				p.tasks[id] = r.tool
				p.smu.Unlock()
			}
			p.answer(r, c.cleanAll(res), nil)
			return
		}
		for k, v := range res {
			switch k {
			case "content":
				res[k] = c.cleanContent(v)
			case "structuredContent":
				res[k] = c.cleanAll(v)
			case "_meta", "isError":
			default:
				res[k] = c.cleanContent(v)
			}
		}
	} else if result != nil {
		result = c.cleanAll(result)
	}
	gctx, cancel := context.WithTimeout(p.ctx, p.opts.GateTimeout)
	err = p.gate.Taint(gctx, p.sessionNow(), r.tool)
	cancel()
	if err != nil {
		p.logf("could not taint the run after %s: %v", r.tool, err)
		p.answer(r, denialResult("agate could not record that outside content entered this run ("+err.Error()+"); the tool ran, but its answer is withheld"), nil)
		return
	}
	p.answer(r, result, errObj)
}

// answerList pins the tools of a tools/list page and passes it on with
// their descriptions and titles cleaned.
func (p *proxy) answerList(r *request, m *message) {
	c := p.cleaner()
	result, errObj, err := cleanedParts(m, c)
	if err != nil {
		p.answer(r, nil, map[string]any{"code": -32603, "message": "agate could not read the server's tool list"})
		return
	}
	if errObj == nil {
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(m.members["result"], &page)
		defs := make([]ToolDef, 0, len(page.Tools))
		unread := map[int]bool{}
		for i, t := range page.Tools {
			d, err := ParseToolDef(t)
			if err != nil {
				p.logf("tools/list: tool %s left out of the list the client gets, as agate cannot pin it: %v", rawName(t), err)
				unread[i] = true
				continue
			}
			defs = append(defs, d)
		}
		if len(defs) > 0 {
			gctx, cancel := context.WithTimeout(p.ctx, p.opts.GateTimeout)
			changes, err := p.gate.Pin(gctx, p.sessionNow(), defs)
			cancel()
			if err != nil {
				p.logf("could not pin the tools (each is pinned again before its first call): %v", err)
				p.noteUnpinned(defs)
			} else {
				p.notePins(defs, changes)
			}
		}
		if res, ok := result.(map[string]any); ok {
			if len(unread) > 0 {
				res["tools"] = withoutIndexes(res["tools"], unread, len(page.Tools))
			}
			res["tools"] = c.cleanDescriptions(res["tools"])
		}
	}
	p.answer(r, result, errObj)
}

// answerContent passes on a resource or a prompt, a list of them or
// completions, cleaned.
func (p *proxy) answerContent(r *request, m *message) {
	c := p.cleaner()
	result, errObj, err := cleanedParts(m, c)
	if err != nil {
		p.answer(r, nil, map[string]any{"code": -32603, "message": "agate could not read the server's answer"})
		return
	}
	if result != nil {
		result = c.cleanContent(result)
	}
	p.answer(r, result, errObj)
}

// withoutIndexes returns the list tools without the elements at drop: a
// listing's tools agate could not read, so could not pin, which the
// client must not be shown (it would call them with no definition to
// check). A list that is not the one of n tools read is replaced by an
// empty one.
func withoutIndexes(tools any, drop map[int]bool, n int) any {
	list, ok := tools.([]any)
	if !ok || len(list) != n {
		return []any{}
	}
	out := make([]any, 0, len(list))
	for i, t := range list {
		if !drop[i] {
			out = append(out, t)
		}
	}
	return out
}

// rawName is a listed tool's name as the server wrote it, for a message.
func rawName(tool json.RawMessage) string {
	var t map[string]json.RawMessage
	if json.Unmarshal(tool, &t) != nil || t["name"] == nil {
		return "(with no name)"
	}
	return string(t["name"])
}

// cleanServerMessage returns a request or a notification of the
// server's, raw, as the client gets it: the strings of its params cleaned
// (a sampling request's messages go to the client's model, a log message
// or an elicitation to the person), but for the members that are not
// text (see opaqueParamKeys).
// A message with nothing to clean goes as the server wrote it; one whose
// params cannot be read is dropped (nil).
func (p *proxy) cleanServerMessage(m *message, raw []byte) []byte {
	params, ok := m.members["params"]
	if !ok {
		return raw
	}
	v, err := decodeNumber(params)
	if err != nil {
		p.logf("dropped a message from the server whose params cannot be read: %v", err)
		return nil
	}
	before, err := marshal(v)
	if err != nil {
		p.logf("dropped a message from the server whose params cannot be encoded again: %v", err)
		return nil
	}
	after, err := marshal(p.cleaner().cleanParams(v))
	if err != nil {
		p.logf("dropped a message from the server whose params cannot be encoded again: %v", err)
		return nil
	}
	if bytes.Equal(before, after) {
		return raw
	}
	members := make(map[string]json.RawMessage, len(m.members))
	for k, x := range m.members {
		members[k] = x
	}
	members["params"] = after
	b, err := marshal(members)
	if err != nil {
		p.logf("dropped a message from the server that cannot be encoded again: %v", err)
		return nil
	}
	return b
}
