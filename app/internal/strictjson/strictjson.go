// Package strictjson decodes JSON whose content drives a decision: the
// body of a request to the daemon, an agent's hook input, an MCP message.
//
// encoding/json keeps the last of two members with the same name, and
// matches a struct's fields without regard to case, where the agent that
// will act on the same bytes may keep the first, or tell "command" from
// "Command". Such a message means two things at once, so it is refused
// whole: Unmarshal returns a *DuplicateKeyError for an object with two
// members whose names are equal, or equal but for case, at any depth,
// and an error for anything but exactly one JSON value. CheckDepth bounds
// the nesting of JSON (with comments or not) before a recursive parser
// reads it.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrDuplicateKey is what a *DuplicateKeyError matches with errors.Is.
var ErrDuplicateKey = errors.New("duplicate key")

// DuplicateKeyError is an object that names a member twice.
type DuplicateKeyError struct {
	Key    string // the second spelling found
	First  string // the first spelling, when it differs only by case
	Offset int64  // the byte offset just past the second key
}

func (e *DuplicateKeyError) Error() string {
	if e.First != "" && e.First != e.Key {
		return fmt.Sprintf("duplicate key %q (the same as %q but for case) at byte %d", e.Key, e.First, e.Offset)
	}
	return fmt.Sprintf("duplicate key %q at byte %d", e.Key, e.Offset)
}

// Is reports whether target is ErrDuplicateKey.
func (e *DuplicateKeyError) Is(target error) bool { return target == ErrDuplicateKey }

// Options change how Unmarshal decodes.
type Options struct {
	// UseNumber keeps numbers as json.Number, so large integers keep
	// every digit.
	UseNumber bool
}

// Unmarshal checks data (see Check) and decodes it into v.
func Unmarshal(data []byte, v any) error { return Options{}.Unmarshal(data, v) }

// Unmarshal checks data (see Check) and decodes it into v with o.
func (o Options) Unmarshal(data []byte, v any) error {
	if err := Check(data); err != nil {
		return err
	}
	if !o.UseNumber {
		return json.Unmarshal(data, v) // no buffer of its own
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// foldKey is the form two member names share when encoding/json would
// match both to one struct field.
func foldKey(s string) string { return strings.ToUpper(strings.ToLower(s)) }

type frame struct {
	object bool
	keys   map[string]string // folded -> as written
}

// Check reports whether data is exactly one JSON value in which no object
// names a member twice (names equal but for case count as the same). It
// copies nothing of the values: a 40 MiB string costs it no memory.
func Check(data []byte) error {
	if !json.Valid(data) {
		// Let the decoder say what and where.
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&v); err != nil {
			if err == io.EOF {
				return errors.New("no JSON value")
			}
			return err
		}
		return fmt.Errorf("more than one JSON value (at byte %d)", dec.InputOffset())
	}
	// The text is valid JSON: walk it, looking only at the member names.
	var stack []frame
	wantKey := false
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			stack = append(stack, frame{object: true})
			wantKey = true
		case '[':
			stack = append(stack, frame{})
			wantKey = false
		case '}', ']':
			stack = stack[:len(stack)-1]
			wantKey = false
		case ',':
			wantKey = len(stack) > 0 && stack[len(stack)-1].object
		case '"':
			end := stringEnd(data, i)
			if wantKey {
				raw := data[i : end+1]
				var name string
				if err := json.Unmarshal(raw, &name); err != nil {
					return err
				}
				f := &stack[len(stack)-1]
				k := foldKey(name)
				if first, dup := f.keys[k]; dup {
					return &DuplicateKeyError{Key: name, First: first, Offset: int64(end + 1)}
				}
				if f.keys == nil {
					f.keys = map[string]string{}
				}
				f.keys[k] = name
				wantKey = false
			}
			i = end
		}
	}
	return nil
}

// stringEnd returns the index of the quote that closes the string whose
// opening quote is at data[i]; data is valid JSON.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(data) - 1
}
