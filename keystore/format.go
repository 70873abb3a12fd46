package keystore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// formatVersion is the version of the store file this package writes and
// reads. It is bound into every sealed entry.
const formatVersion = 1

// maxFileSize bounds the store file; a larger one is refused, not read in
// part.
const maxFileSize = 16 << 20

// maxValueSize bounds one secret.
const maxValueSize = 64 << 10

// maxNameLen bounds a secret's name.
const maxNameLen = 128

// fileData is the store file:
//
//	{
//	  "version": 1,
//	  "master": {"backend": "keychain", "key_id": "…", "state": {…}},
//	  "entries": {"openai": "<base64 nonce|ciphertext|tag>"}
//	}
//
// master is absent until the first secret is set. state is the backend's
// own (the passphrase backend keeps its argon2id parameters, salt and
// wrapped key there; the keychain keeps nothing).
type fileData struct {
	Version int               `json:"version"`
	Master  *masterRecord     `json:"master,omitempty"`
	Entries map[string]string `json:"entries"`
}

// masterRecord says where the master key is and which key it is.
type masterRecord struct {
	Backend string          `json:"backend"`
	KeyID   string          `json:"key_id"`
	State   json.RawMessage `json:"state,omitempty"`
}

// emptyFile is a store with no master key and no entries.
func emptyFile() *fileData {
	return &fileData{Version: formatVersion, Entries: map[string]string{}}
}

// parseFile decodes and checks a store file. Anything malformed is
// ErrTampered; an entry with a bad name is an *EntryError naming it. The
// sealed values themselves are checked when opened, so one damaged entry
// leaves the others readable.
func parseFile(data []byte) (*fileData, error) {
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%w: file is %d bytes, more than the %d allowed", ErrTampered, len(data), maxFileSize)
	}
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTampered, jsonProblem(err))
	}
	switch {
	case head.Version > formatVersion:
		return nil, fmt.Errorf("format version %d is newer than this agate reads (%d): upgrade agate", head.Version, formatVersion)
	case head.Version < 1:
		return nil, fmt.Errorf("%w: format version %d", ErrTampered, head.Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	f := new(fileData)
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTampered, jsonProblem(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the end", ErrTampered)
	}
	if f.Entries == nil {
		return nil, fmt.Errorf("%w: no entries object", ErrTampered)
	}
	for name := range f.Entries {
		if err := checkName(name); err != nil {
			return nil, &EntryError{Name: name, Err: fmt.Errorf("%w: %v", ErrTampered, err)}
		}
	}
	if m := f.Master; m != nil {
		if err := checkName(m.Backend); err != nil {
			return nil, fmt.Errorf("%w: backend: %v", ErrTampered, err)
		}
		if id, err := b64.DecodeString(m.KeyID); err != nil || len(id) != 16 {
			return nil, fmt.Errorf("%w: malformed key id", ErrTampered)
		}
		if m.State != nil && (bytes.Equal(m.State, []byte("null")) || !json.Valid(m.State)) {
			return nil, fmt.Errorf("%w: malformed backend state", ErrTampered)
		}
	} else if len(f.Entries) > 0 {
		return nil, fmt.Errorf("%w: %d entries but no master key record", ErrTampered, len(f.Entries))
	}
	return f, nil
}

// jsonProblem describes a JSON error without quoting the input.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON at byte %d (truncated?)", se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "truncated"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	}
	return "malformed: " + err.Error()
}

// marshal encodes the file, keys sorted, ending in a newline.
func (f *fileData) marshal() []byte {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		panic("keystore: marshal store file: " + err.Error()) // only strings, ints and valid raw JSON
	}
	return append(data, '\n')
}

// clone returns a deep copy, to change without touching a cached file.
func (f *fileData) clone() *fileData {
	c := &fileData{Version: f.Version, Entries: make(map[string]string, len(f.Entries)+1)}
	for k, v := range f.Entries {
		c.Entries[k] = v
	}
	if f.Master != nil {
		m := *f.Master
		m.State = bytes.Clone(m.State)
		c.Master = &m
	}
	return c
}

// checkName accepts a secret's name: 1 to 128 letters, digits, '_', '.'
// and '-', starting with a letter, digit or '_'.
func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if len(name) > maxNameLen {
		return fmt.Errorf("name is %d characters, more than %d", len(name), maxNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case (c == '.' || c == '-') && i > 0:
		default:
			return errors.New("a name has letters, digits, '_', '.' and '-', and starts with a letter, digit or '_'")
		}
	}
	return nil
}
