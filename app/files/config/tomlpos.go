package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// This file is where config.toml's text is located, and the one file
// that imports go-toml's parser: it says where each table header, each
// key's line and each value are, by byte offset, and where the strings
// and comments of an array value are. The edits (edit.go) work on those
// offsets; what they write is checked whole by the policy's parser
// (BurntSushi/toml) before it is saved.
//
// github.com/pelletier/go-toml/v2/unstable promises no stability of its
// API: go.mod pins the version (v2.4.3); here, in app/hooks/settings/codexconfig and in
// app/mcp/clients, the edit tests and fuzz tests are what a version bump
// must pass.

// tomlDoc is the layout of a TOML file: where each table header and each
// key's line and value are, by byte offset.
type tomlDoc struct {
	headers []tomlHeader
	entries []tomlEntry
}

type tomlHeader struct {
	path       []string
	array      bool // [[array of tables]]
	start, end int  // the line, its newline included
}

type tomlEntry struct {
	path             []string // the whole key: the table's path, then the key's
	tablePath        []string // the table the line is written under
	header           int      // index in headers, -1 for the top level
	start, end       int      // the line(s), the last newline included
	valStart, valEnd int      // the value's text
}

// find returns the index of the entry for path, or -1.
func (d *tomlDoc) find(path []string) int {
	for i, e := range d.entries {
		if d.inArrayTable(e) {
			continue
		}
		if equalPath(e.path, path) {
			return i
		}
	}
	return -1
}

func (d *tomlDoc) inArrayTable(e tomlEntry) bool {
	return e.header >= 0 && d.headers[e.header].array
}

// scanTOML finds the layout of s with go-toml's parser.
func scanTOML(s string) (*tomlDoc, error) {
	data := []byte(s)
	var p unstable.Parser
	p.Reset(data)
	doc := &tomlDoc{}
	var table []string
	header := -1
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			path, first, last := keyOf(e.Key())
			doc.headers = append(doc.headers, tomlHeader{path: path, array: e.Kind == unstable.ArrayTable,
				start: lineStart(s, first), end: lineEnd(s, last)})
			table, header = path, len(doc.headers)-1
		case unstable.KeyValue:
			key, first, last := keyOf(e.Key())
			end := int(e.Raw.Offset + e.Raw.Length)
			vs, err := valueStart(s, last, end)
			if err != nil {
				return nil, err
			}
			doc.entries = append(doc.entries, tomlEntry{path: append(append([]string{}, table...), key...), tablePath: table,
				header: header, start: lineStart(s, first), end: lineEnd(s, end), valStart: vs, valEnd: end})
		}
	}
	if err := p.Error(); err != nil {
		return nil, parseError(&p, s, err)
	}
	return doc, nil
}

// keyOf reads a dotted key: its parts, decoded, the offset of its first
// byte and the offset just past its last.
func keyOf(it unstable.Iterator) (path []string, first, last int) {
	first = -1
	for it.Next() {
		k := it.Node()
		if first < 0 {
			first = int(k.Raw.Offset)
		}
		last = int(k.Raw.Offset + k.Raw.Length)
		path = append(path, string(k.Data))
	}
	return path, first, last
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

// lineStart is the offset of the start of the line holding offset i.
func lineStart(s string, i int) int { return strings.LastIndexByte(s[:i], '\n') + 1 }

// lineEnd is the offset just past the newline of the line holding offset
// i, or the end of s.
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

func lineOf(s string, i int) int { return strings.Count(s[:min(i, len(s))], "\n") + 1 }

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

// tomlValue parses one value, as written in a file, with its comments.
// It returns the parser (whose offsets count from the start of v) and the
// value's node.
func tomlValue(v string) (*unstable.Parser, *unstable.Node, bool) {
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

// offsetIn is where node n starts in the value tomlValue parsed.
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

// commentBlock returns the comment lines inside a value (those alone on
// their line), each on a line of its own with indent.
func commentBlock(v, indent, nl string) string {
	_, val, ok := tomlValue(v)
	if !ok {
		return ""
	}
	var b strings.Builder
	comments(val, func(c *unstable.Node) {
		at := offsetIn(c)
		if ls := lineStart(v, at); ls > 0 && strings.TrimLeft(v[ls:at], " \t") == "" {
			b.WriteString(indent + string(c.Data) + nl)
		}
	})
	return b.String()
}

// tomlArray is an array of strings as written: each element with the
// comment lines before it and the comment after it on its line.
type tomlArray struct {
	items       []arrayItem
	tail        []string // comment lines before the closing bracket
	multiline   bool
	indent      string // of the elements' lines
	closeIndent string // of the closing bracket's line
}

type arrayItem struct {
	lead  []string // comment lines before the element
	text  string   // the element as written
	value string   // decoded
	trail string   // a comment after the element on its line, with the space before it
}

// parseStringArray reads an array value whose elements are all strings;
// false for anything else.
func parseStringArray(v string) (*tomlArray, bool) {
	_, val, ok := tomlValue(v)
	if !ok || val.Kind != unstable.Array {
		return nil, false
	}
	a := &tomlArray{multiline: strings.Contains(v, "\n")}
	indentKnown := false
	// atLineStart says whether the token at offset i is the first thing on
	// its line (not the array's first line), and the spaces before it.
	atLineStart := func(i int) (string, bool) {
		ls := lineStart(v, i)
		ws := v[ls:i]
		return ws, ls > 0 && strings.TrimLeft(ws, " \t") == ""
	}
	var lead []string
	lastEnd := -1 // where the last element ends; -1 before the first
	note := func(i int) {
		if ws, ok := atLineStart(i); ok && !indentKnown {
			a.indent, indentKnown = ws, true
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
					a.items[len(a.items)-1].trail = ws + text
					continue
				}
				lead = append(lead, text)
			}
		case unstable.String:
			at := offsetIn(n)
			note(at)
			end := at + int(n.Raw.Length)
			a.items = append(a.items, arrayItem{lead: lead, text: v[at:end], value: string(n.Data)})
			lead, lastEnd = nil, end
		default:
			return nil, false
		}
	}
	a.tail = lead
	if ws, ok := atLineStart(len(v) - 1); ok {
		a.closeIndent = ws
	}
	return a, true
}
