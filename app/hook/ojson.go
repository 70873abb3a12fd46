package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// object is a JSON object that keeps its members in their order and their
// values as written, so a settings file can be edited without sorting or
// rewriting the keys agate does not own.
type object struct {
	members []member
}

// member is one key and its raw value.
type member struct {
	key    string          // the key, unescaped
	rawKey []byte          // the key as written, quotes and escapes included
	value  json.RawMessage // the value as written
}

// parseObject parses data, which must be one JSON object and nothing
// else. A syntax error says the line and column.
func parseObject(data []byte) (*object, error) {
	var probe json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, positionErr(data, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, positionErr(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &object{}
	for dec.More() {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, positionErr(data, err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("%s: expected a key", position(data, start))
		}
		raw := bytes.TrimLeft(data[start:dec.InputOffset()], " \t\r\n,")
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, positionErr(data, err)
		}
		if i := o.index(key); i >= 0 {
			// A repeated key: JavaScript, which the agents are written
			// in, keeps the first one's place and the last one's value.
			o.members[i].value = v
			continue
		}
		o.members = append(o.members, member{key: key, rawKey: bytes.Clone(raw), value: v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, positionErr(data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more data after the object", position(data, dec.InputOffset()))
	}
	return o, nil
}

// index returns the position of key, or -1.
func (o *object) index(key string) int {
	for i, m := range o.members {
		if m.key == key {
			return i
		}
	}
	return -1
}

// get returns the value of key.
func (o *object) get(key string) (json.RawMessage, bool) {
	if i := o.index(key); i >= 0 {
		return o.members[i].value, true
	}
	return nil, false
}

// getString returns key's value if it is a string.
func (o *object) getString(key string) (string, bool) {
	raw, ok := o.get(key)
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// set replaces key's value where it stands, or adds key at the end.
func (o *object) set(key string, v json.RawMessage) {
	if i := o.index(key); i >= 0 {
		o.members[i].value = v
		return
	}
	o.members = append(o.members, member{key: key, rawKey: mustJSON(key), value: v})
}

// setFirst is set, but a new key goes first.
func (o *object) setFirst(key string, v json.RawMessage) {
	if _, ok := o.get(key); ok {
		o.set(key, v)
		return
	}
	o.members = append([]member{{key: key, rawKey: mustJSON(key), value: v}}, o.members...)
}

// del removes key.
func (o *object) del(key string) {
	o.members = slices.DeleteFunc(o.members, func(m member) bool { return m.key == key })
}

// len is the number of members.
func (o *object) len() int { return len(o.members) }

// marshal returns the object as compact JSON.
func (o *object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o.members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.rawKey)
		b.WriteByte(':')
		if err := json.Compact(&b, m.value); err != nil {
			// Values come from a parsed document or from mustJSON: they
			// are valid.
			panic("hook: invalid JSON value for " + m.key + ": " + err.Error())
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshalList returns items as a compact JSON array.
func marshalList(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := json.Compact(&b, it); err != nil {
			panic("hook: invalid JSON list item: " + err.Error())
		}
	}
	b.WriteByte(']')
	return b.Bytes()
}

// asList decodes raw as a JSON array, or reports false.
func asList(raw json.RawMessage) ([]json.RawMessage, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	return items, true
}

// isNull reports whether raw is JSON null.
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// encodeJSON is json.Marshal without the escaping of <, > and &, which
// would make commands (a && b) hard to read. It does not add a newline.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// mustJSON is encodeJSON for values that always encode (strings, numbers,
// agate's own structs).
func mustJSON(v any) json.RawMessage {
	b, err := encodeJSON(v)
	if err != nil {
		panic("hook: " + err.Error())
	}
	return b
}

// indentUnit guesses the indentation a JSON file uses: the whitespace at
// the start of its first indented line, or two spaces.
func indentUnit(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

// formatFile indents a compact document as the original file was indented,
// with a final newline.
func formatFile(compact []byte, original []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", indentUnit(original)); err != nil {
		panic("hook: invalid JSON document: " + err.Error())
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// position returns "line L, column C" for a byte offset into data.
func position(data []byte, offset int64) string {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}

// positionErr adds the position to a JSON syntax error.
func positionErr(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the offending byte: point at it.
		return fmt.Errorf("%s: %w", position(data, se.Offset-1), err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: unexpected end of the file", position(data, int64(len(data))))
	}
	return err
}
