package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// ToolDef is a tool's definition as a server listed it, the part that is
// pinned: what the model reads of the tool (its name, title and
// description), what it may pass and gets back (the schemas) and what
// the server says of it (annotations, execution). The strings are the
// server's own, not cleaned: a change hidden in an invisible character
// is a change. The JSON members hold canonical JSON (members sorted, no
// space), so two listings that differ only in layout give equal defs.
//
// A daemon keeps ToolDefs as its pins; ToolDef is JSON as it is.
type ToolDef struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Execution    json.RawMessage `json:"execution,omitempty"`
	// Hash is "sha256:" and the hex SHA-256 of the canonical JSON of the
	// fields above; equal hashes mean equal definitions.
	Hash string `json:"hash"`
}

// ParseToolDef reads one tool of a tools/list result.
func ParseToolDef(raw []byte) (ToolDef, error) {
	var t struct {
		Name         *string         `json:"name"`
		Title        *string         `json:"title"`
		Description  *string         `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  json.RawMessage `json:"annotations"`
		Execution    json.RawMessage `json:"execution"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return ToolDef{}, fmt.Errorf("a tool definition: %w", err)
	}
	if t.Name == nil || *t.Name == "" {
		return ToolDef{}, errors.New("a tool definition with no name")
	}
	d := ToolDef{Name: *t.Name}
	if t.Title != nil {
		d.Title = *t.Title
	}
	if t.Description != nil {
		d.Description = *t.Description
	}
	var err error
	for _, f := range []struct {
		in  json.RawMessage
		out *json.RawMessage
	}{
		{t.InputSchema, &d.InputSchema}, {t.OutputSchema, &d.OutputSchema},
		{t.Annotations, &d.Annotations}, {t.Execution, &d.Execution},
	} {
		if *f.out, err = canonical(f.in); err != nil {
			return ToolDef{}, fmt.Errorf("tool %q: %w", d.Name, err)
		}
	}
	d.Hash = d.hash()
	return d, nil
}

// hash is the Hash of d's other fields.
func (d ToolDef) hash() string {
	d.Hash = ""
	b, err := marshal(d)
	if err != nil { // canonical JSON always encodes
		panic(err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonical returns raw as canonical JSON: objects with their members
// sorted by name, no insignificant space, strings as encoding/json
// writes them without HTML escapes, numbers as written. null and nothing
// are nil.
func canonical(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	v, err := decodeNumber(raw)
	if err != nil {
		return nil, err
	}
	return marshal(v)
}

// ChangedFields names the fields in which two definitions of a tool
// differ, in the order of ToolDef: "name", "title", "description",
// "inputSchema", "outputSchema", "annotations", "execution".
func ChangedFields(old, new ToolDef) []string {
	var f []string
	if old.Name != new.Name {
		f = append(f, "name")
	}
	if old.Title != new.Title {
		f = append(f, "title")
	}
	if old.Description != new.Description {
		f = append(f, "description")
	}
	for _, c := range []struct {
		name     string
		old, new json.RawMessage
	}{
		{"inputSchema", old.InputSchema, new.InputSchema}, {"outputSchema", old.OutputSchema, new.OutputSchema},
		{"annotations", old.Annotations, new.Annotations}, {"execution", old.Execution, new.Execution},
	} {
		if !bytes.Equal(c.old, c.new) {
			f = append(f, c.name)
		}
	}
	return f
}

// Hints are a tool's annotations as its server gives them. They are the
// server's word: a daemon may let them raise a call's risk
// (DestructiveHint, OpenWorldHint), never lower it. nil is not said.
type Hints struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Hints reads d's annotations; what is missing or not of its type is
// left nil.
func (d ToolDef) Hints() Hints {
	var h Hints
	if len(d.Annotations) == 0 {
		return h
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(d.Annotations, &m) != nil {
		return h
	}
	json.Unmarshal(m["title"], &h.Title)
	for k, p := range map[string]**bool{
		"readOnlyHint": &h.ReadOnlyHint, "destructiveHint": &h.DestructiveHint,
		"idempotentHint": &h.IdempotentHint, "openWorldHint": &h.OpenWorldHint,
	} {
		var b bool
		if json.Unmarshal(m[k], &b) == nil && m[k] != nil && string(m[k]) != "null" {
			*p = &b
		}
	}
	return h
}

// ToolChange is a tool whose definition is not the one pinned.
type ToolChange struct {
	Tool    string   `json:"tool"`
	OldHash string   `json:"old_hash"` // the pinned definition's
	NewHash string   `json:"new_hash"` // the one listed now
	Fields  []string `json:"fields"`   // what changed: ChangedFields(old, new)
}
