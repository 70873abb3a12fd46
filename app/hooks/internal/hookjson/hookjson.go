// Package hookjson is what every agent's adapter shares to read a hook's
// JSON input and write its answer: one object, a member named twice
// refused, numbers kept whole, errors with their line and column.
package hookjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/internal/strictjson"
)

// IsNull reports whether raw is JSON null.
func IsNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// Encode is json.Marshal without the escaping of <, > and &, which
// would make commands (a && b) hard to read. It does not add a newline.
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Must is Encode for values that always encode (strings, numbers,
// agate's own structs).
func Must(v any) json.RawMessage {
	b, err := Encode(v)
	if err != nil {
		panic("hookjson: " + err.Error())
	}
	return b
}

// Output is an exit-0 answer with v as one line of JSON.
func Output(v any) hooks.Output {
	b, err := Encode(v)
	if err != nil {
		return hooks.Blocked("agate: encode the answer: " + err.Error())
	}
	return hooks.Output{Stdout: append(b, '\n')}
}

// DecodeInput decodes a hook's JSON input into v, refusing anything but
// one object, and an object with a member named twice.
func DecodeInput(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return errors.New("no input")
	}
	if data[0] != '{' {
		return errors.New("the input is not a JSON object")
	}
	if err := json.Unmarshal(data, v); err != nil {
		return PositionErr(data, err)
	}
	if err := strictjson.Check(data); err != nil {
		// Two members of one name mean two things at once: the agent may
		// act on the other one.
		return fmt.Errorf("the input is refused: %w", err)
	}
	return nil
}

// DecodeArgs decodes a tool_input object. Absent or null is no
// arguments; anything but an object is an error. Numbers stay
// json.Number, so large integers keep every digit.
func DecodeArgs(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || IsNull(raw) {
		return map[string]any{}, nil
	}
	var args map[string]any
	if err := (strictjson.Options{UseNumber: true}).Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("tool_input: %w", err)
	}
	if args == nil { // "null" inside, already handled; keep the map non-nil
		args = map[string]any{}
	}
	return args, nil
}

// ObjectOrEmpty returns raw if it holds an object, or {} when it is
// absent or null.
func ObjectOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || IsNull(raw) {
		return json.RawMessage("{}")
	}
	return raw
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

// PositionErr adds the position to a JSON syntax error.
func PositionErr(data []byte, err error) error {
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
