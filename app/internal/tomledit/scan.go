package tomledit

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// This file is agate's one reader of go-toml's parser: it says where each
// table header, each key's line and each value of a TOML file are, by
// byte offset, which lines hold only a comment, and where the strings and
// comments of an array value are. Every edit agate makes of a TOML file
// (Set and Remove, the MCP clients' Codex config, Codex's hooks) works on
// those offsets.
//
// github.com/pelletier/go-toml/v2/unstable promises no stability of its
// API: go.mod pins the version; the edit and fuzz tests of this package,
// of app/files/config, app/mcp/clients and app/hooks/settings/codexconfig
// are what a version bump must pass.

// Doc is the layout of a TOML file: where each table header and each
// key's line and value are, by byte offset.
type Doc struct {
	Headers []Header
	Entries []Entry
	// comments holds the offsets of the lines that hold only a comment.
	comments map[int]bool
}

// Header is a table header's place in the text.
type Header struct {
	Path       []string
	Array      bool // [[array of tables]]
	Start, End int  // the line, its newline included
}

// Entry is a key-value's place in the text.
type Entry struct {
	Path             []string // the whole key: the table's path, then the key's
	Table            []string // the table the line is written under
	Header           int      // index in Headers, -1 for the top level
	Start, End       int      // the line(s), the last newline included
	ValStart, ValEnd int      // the value's text
	// Prefix is the text of the key before its last part: "inner." for
	// inner.command, "" for command.
	Prefix string
	// Elems are where an array value's elements are, as written (a
	// literal string stays one); nil for a value that is not an array.
	Elems []Span
}

// Span is a range of the text: [Start, End).
type Span struct{ Start, End int }

// Find returns the index of the entry for path, or -1. Keys under an
// array of tables are never found: a path does not name one of them.
func (d *Doc) Find(path []string) int {
	for i, e := range d.Entries {
		if d.InArrayTable(e) {
			continue
		}
		if EqualPath(e.Path, path) {
			return i
		}
	}
	return -1
}

// InArrayTable reports whether e is written under an [[array of tables]].
func (d *Doc) InArrayTable(e Entry) bool {
	return e.Header >= 0 && d.Headers[e.Header].Array
}

// CommentLine reports whether the line starting at offset start holds
// only a comment (a "#" inside a string is not one).
func (d *Doc) CommentLine(start int) bool { return d.comments[start] }

// Scan finds the layout of s with go-toml's parser. An error names the
// line of the problem.
func Scan(s string) (*Doc, error) {
	data := []byte(s)
	p := unstable.Parser{KeepComments: true}
	p.Reset(data)
	doc := &Doc{comments: map[int]bool{}}
	var table []string
	header := -1
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Comment:
			off := int(e.Raw.Offset)
			if ls := LineStart(s, off); strings.TrimLeft(s[ls:off], " \t") == "" {
				doc.comments[ls] = true
			}
		case unstable.Table, unstable.ArrayTable:
			path, first, _, last := keyOf(e.Key())
			doc.Headers = append(doc.Headers, Header{Path: path, Array: e.Kind == unstable.ArrayTable,
				Start: LineStart(s, first), End: LineEnd(s, last)})
			table, header = path, len(doc.Headers)-1
		case unstable.KeyValue:
			key, first, lastStart, last := keyOf(e.Key())
			end := int(e.Raw.Offset + e.Raw.Length)
			vs, err := valueStart(s, last, end)
			if err != nil {
				return nil, err
			}
			ent := Entry{Path: append(append([]string{}, table...), key...), Table: table,
				Header: header, Start: LineStart(s, first), End: LineEnd(s, end), ValStart: vs, ValEnd: end,
				Prefix: s[first:lastStart]}
			if v := e.Value(); v.Kind == unstable.Array {
				ent.Elems = []Span{}
				for it := v.Children(); it.Next(); {
					if c := it.Node(); c.Kind != unstable.Comment {
						ent.Elems = append(ent.Elems, Span{int(c.Raw.Offset), int(c.Raw.Offset + c.Raw.Length)})
					}
				}
			}
			doc.Entries = append(doc.Entries, ent)
		}
	}
	if err := p.Error(); err != nil {
		return nil, parseError(&p, s, err)
	}
	return doc, nil
}

// keyOf reads a dotted key: its parts, decoded, the offset of its first
// byte, that of its last part and the offset just past its last byte.
func keyOf(it unstable.Iterator) (path []string, first, lastStart, last int) {
	first = -1
	for it.Next() {
		k := it.Node()
		if first < 0 {
			first = int(k.Raw.Offset)
		}
		lastStart, last = int(k.Raw.Offset), int(k.Raw.Offset+k.Raw.Length)
		path = append(path, string(k.Data))
	}
	return path, first, lastStart, last
}

// valueStart finds where the value of a key-value starts: after the
// spaces, the '=' and the spaces that follow the key, which ends at
// keyEnd; the value ends at end.
func valueStart(s string, keyEnd, end int) (int, error) {
	i := keyEnd
	for i < end && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= end || s[i] != '=' {
		return 0, fmt.Errorf("line %d: want = after a key", lineOf(s, i))
	}
	i++
	for i < end && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i, nil
}

// LineStart is the offset of the start of the line holding offset i.
func LineStart(s string, i int) int { return strings.LastIndexByte(s[:i], '\n') + 1 }

// LineEnd is the offset just past the newline of the line holding offset
// i, or the end of s.
func LineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

func lineOf(s string, i int) int { return strings.Count(s[:min(i, len(s))], "\n") + 1 }

// EqualPath reports whether two key paths are the same.
func EqualPath(a, b []string) bool { return slices.Equal(a, b) }

// parseError gives a parser error the line it is on.
func parseError(p *unstable.Parser, s string, err error) error {
	var pe *unstable.ParserError
	if !errors.As(err, &pe) {
		return err
	}
	off := cap(p.Data()) - cap(pe.Highlight)
	if pe.Highlight == nil || off < 0 || off > len(s) {
		return err
	}
	return fmt.Errorf("line %d: %s", lineOf(s, off), pe.Message)
}

// parseValue parses one value, as written in a file, with its comments.
// It returns the parser (whose offsets count from the start of v) and the
// value's node.
func parseValue(v string) (*unstable.Parser, *unstable.Node, bool) {
	const prefix = "v = "
	p := &unstable.Parser{KeepComments: true}
	p.Reset([]byte(prefix + v + "\n"))
	if !p.NextExpression() {
		return nil, nil, false
	}
	e := p.Expression()
	if e.Kind != unstable.KeyValue || int(e.Raw.Offset+e.Raw.Length) != len(prefix)+len(v) {
		return nil, nil, false
	}
	return p, e.Value(), true
}

// offsetIn is where node n starts in the value parseValue parsed.
func offsetIn(n *unstable.Node) int { return int(n.Raw.Offset) - len("v = ") }

// comments calls fn for each comment inside a value, in order: those
// between an array's elements and an inline table's key-values, at any
// depth (a run of comment lines is one comment with the others as its
// children).
func comments(n *unstable.Node, fn func(*unstable.Node)) {
	for it := n.Children(); it.Next(); {
		c := it.Node()
		switch c.Kind {
		case unstable.Comment:
			fn(c)
			comments(c, fn)
		case unstable.Array, unstable.InlineTable:
			comments(c, fn)
		case unstable.KeyValue:
			comments(c.Value(), fn)
		}
	}
}

// CommentBlock returns the comment lines inside a value (those alone on
// their line), each on a line of its own with indent.
func CommentBlock(v, indent, nl string) string {
	_, val, ok := parseValue(v)
	if !ok {
		return ""
	}
	var b strings.Builder
	comments(val, func(c *unstable.Node) {
		at := offsetIn(c)
		if ls := LineStart(v, at); ls > 0 && strings.TrimLeft(v[ls:at], " \t") == "" {
			b.WriteString(indent + string(c.Data) + nl)
		}
	})
	return b.String()
}

// Array is an array of strings as written: each element with the
// comment lines before it and the comment after it on its line.
type Array struct {
	Items       []Item
	Tail        []string // comment lines before the closing bracket
	Multiline   bool
	Indent      string // of the elements' lines
	CloseIndent string // of the closing bracket's line
}

// Item is one element of an Array.
type Item struct {
	Lead  []string // comment lines before the element
	Text  string   // the element as written
	Value string   // decoded
	Trail string   // a comment after the element on its line, with the space before it
}

// ParseStringArray reads an array value whose elements are all strings;
// false for anything else.
func ParseStringArray(v string) (*Array, bool) {
	_, val, ok := parseValue(v)
	if !ok || val.Kind != unstable.Array {
		return nil, false
	}
	a := &Array{Multiline: strings.Contains(v, "\n")}
	indentKnown := false
	// atLineStart says whether the token at offset i is the first thing on
	// its line (not the array's first line), and the spaces before it.
	atLineStart := func(i int) (string, bool) {
		ls := LineStart(v, i)
		ws := v[ls:i]
		return ws, ls > 0 && strings.TrimLeft(ws, " \t") == ""
	}
	var lead []string
	lastEnd := -1 // where the last element ends; -1 before the first
	note := func(i int) {
		if ws, ok := atLineStart(i); ok && !indentKnown {
			a.Indent, indentKnown = ws, true
		}
	}
	for it := val.Children(); it.Next(); {
		n := it.Node()
		switch n.Kind {
		case unstable.Comment:
			run := []*unstable.Node{n}
			for c := n.Children(); c.Next(); {
				run = append(run, c.Node())
			}
			for _, c := range run {
				at := offsetIn(c)
				note(at)
				text := string(c.Data)
				if lastEnd >= 0 && !strings.Contains(v[lastEnd:at], "\n") {
					ws := v[len(strings.TrimRight(v[:at], " \t")):at]
					if ws == "" {
						ws = " "
					}
					a.Items[len(a.Items)-1].Trail = ws + text
					continue
				}
				lead = append(lead, text)
			}
		case unstable.String:
			at := offsetIn(n)
			note(at)
			end := at + int(n.Raw.Length)
			a.Items = append(a.Items, Item{Lead: lead, Text: v[at:end], Value: string(n.Data)})
			lead, lastEnd = nil, end
		default:
			return nil, false
		}
	}
	a.Tail = lead
	if ws, ok := atLineStart(len(v) - 1); ok {
		a.CloseIndent = ws
	}
	return a, true
}
