package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// JSON-RPC error codes the proxy answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
)

// marshal encodes v as compact JSON without HTML escapes ("<" stays "<":
// the text a model reads is the text the server wrote).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// decodeNumber decodes one JSON value with numbers kept as json.Number.
// data must already be valid JSON.
func decodeNumber(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// message is the top of one JSON-RPC message, its members undecoded.
type message struct {
	members map[string]json.RawMessage
	method  string // "" when there is none
	id      json.RawMessage
}

var errNotObject = errors.New("a JSON-RPC message is an object")

// parseMessage reads the top of one message; raw is valid JSON. A
// method that is not a string is an error.
func parseMessage(raw []byte) (*message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errNotObject
	}
	m := &message{}
	if err := json.Unmarshal(raw, &m.members); err != nil {
		return nil, err
	}
	for k := range m.members {
		if err := spelledRight(k); err != nil {
			return nil, err
		}
	}
	if r, ok := m.members["method"]; ok {
		if err := json.Unmarshal(r, &m.method); err != nil || m.method == "" {
			return nil, errors.New("a method is a non-empty string")
		}
	}
	m.id = m.members["id"]
	return m, nil
}

// rpcMembers are the members JSON-RPC gives a message.
var rpcMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// spelledRight refuses a member spelled as one of JSON-RPC's but for its
// case ("Method", "ID", "paramſ"): the proxy reads members by their exact
// name, and a peer that decodes them case-insensitively (encoding/json
// does) would read a message the proxy took for a response as a
// tools/call it never decided.
func spelledRight(k string) error {
	for _, r := range rpcMembers {
		if k != r && strings.EqualFold(k, r) {
			return fmt.Errorf("a member %q, which is not how JSON-RPC spells %q", k, r)
		}
	}
	return nil
}

func (m *message) has(k string) bool { _, ok := m.members[k]; return ok }

// idKey returns the key two spellings of one id share: a server that
// decodes and encodes ids again may write 1.0 as 1, or "\u0041" as "A",
// and one that reads numbers as doubles (JavaScript) cannot tell
// 9007199254740993 from 9007199254740992, so integers past 2^53 are
// keyed as the double they round to. ok is false for anything but a
// string or a number.
func idKey(raw json.RawMessage) (key string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s:" + s, true
	case c == '-' || ('0' <= c && c <= '9'):
		n := json.Number(raw)
		if i, err := n.Int64(); err == nil {
			if -(1<<53) < i && i < 1<<53 {
				return "n:" + strconv.FormatInt(i, 10), true
			}
			return "n:" + strconv.FormatFloat(float64(i), 'g', -1, 64), true
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return "n:" + string(raw), true
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return "n:" + strconv.FormatInt(int64(f), 10), true
		}
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

var nullID = json.RawMessage("null")

// errorResponse is a JSON-RPC error answer to id (null when it is nil).
func errorResponse(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = nullID
	}
	b, _ := marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
	return b
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// resultResponse is a JSON-RPC answer to id with result.
func resultResponse(id json.RawMessage, result any) ([]byte, error) {
	return marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", id, result})
}

// DenialText is how a denied call's answer begins; the reason follows.
const DenialText = "agate denied this call: "

// denialResult is the CallToolResult a denied call is answered with: an
// error result, which a client takes even from a tool with an output
// schema, and which the model reads.
func denialResult(reason string) map[string]any {
	if reason == "" {
		reason = "no reason was given"
	}
	return map[string]any{
		"content": []any{map[string]any{"type": "text", "text": DenialText + Clean(reason)}},
		"isError": true,
	}
}
