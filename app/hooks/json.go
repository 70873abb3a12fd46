package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

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
