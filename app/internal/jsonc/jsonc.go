// Package jsonc edits JSON and JSON-with-comments files as agate's
// editors do: through github.com/tailscale/hujson's syntax tree, which
// holds every byte of a file (its whitespace, comments and trailing
// commas), so an edit changes the members and elements it names and
// nothing else. What it adds is laid out like its neighbours, in the
// file's own indentation and line endings, and is plain JSON: it never
// writes a comment, nor a trailing comma but in a list that already ends
// with one, so a file with neither keeps neither. A comment stays when
// what it sat beside is removed. The agents' settings files and the MCP
// clients' config files are edited with it.
package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/agatehq/agate/app/internal/strictjson"
)

// Doc is a settings file being edited.
type Doc struct {
	data []byte       // the file as read
	root hujson.Value // its syntax tree: Pack gives the file back
	unit string       // one level of the file's indentation
	nl   string       // its line ending
	// added holds where the containers agate added start: their line's
	// indentation and whether they are laid out over lines (those parsed
	// from the file say it themselves).
	added map[hujson.ValueTrimmed]Box
	edits int // changes made so far
}

// Box is an object or an array of the document, with where it stands.
type Box struct {
	v      *hujson.Value // its Value is a *hujson.Object or a *hujson.Array
	indent string        // the indentation of the line it starts on
	multi  bool          // laid out over lines
	// On one line: the space after a comma and after a colon, as the Box
	// or, when it does not show, the Box around it writes them.
	comma, colon hujson.Extra
}

// Object is the box's object, nil when it holds an array.
func (b Box) Object() *hujson.Object { o, _ := b.v.Value.(*hujson.Object); return o }

// Array is the box's array, nil when it holds an object.
func (b Box) Array() *hujson.Array { a, _ := b.v.Value.(*hujson.Array); return a }

// Value is the box's value in the syntax tree.
func (b Box) Value() *hujson.Value { return b.v }

// Edits is how many changes the document has had.
func (d *Doc) Edits() int { return d.edits }

// quoted is s as a JSON string, with <, > and & as they are.
func quoted(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic("jsonc: " + err.Error()) // a Go string always encodes
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Parse parses a settings file, which must be one JSON object
// (comments and trailing commas allowed); empty data is a new file. A
// syntax error says the line and column.
func Parse(data []byte) (*Doc, error) {
	d := &Doc{data: data, unit: IndentUnit(data), nl: "\n", added: map[hujson.ValueTrimmed]Box{}}
	if bytes.Contains(data, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	if len(bytes.TrimSpace(data)) == 0 {
		d.root = hujson.Value{Value: &hujson.Object{}}
		d.added[d.root.Value] = Box{multi: true, comma: hujson.Extra(" "), colon: hujson.Extra(" ")}
		return d, nil
	}
	if err := strictjson.CheckDepth(data); err != nil {
		return nil, err
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "hujson: "))
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, errors.New("not a JSON object")
	}
	d.root = v
	return d, nil
}

// Bytes returns the edited file, with a final line ending. It is an error
// for a plain JSON file to gain a comment or a trailing comma.
func (d *Doc) Bytes() ([]byte, error) {
	out, err := d.Pack()
	if err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, d.nl...)
	}
	return out, nil
}

// Pack returns the edited file as it is, a final line ending or not. It
// is an error for a plain JSON file to gain a comment or a trailing comma.
func (d *Doc) Pack() ([]byte, error) {
	out := d.root.Pack()
	if len(d.data) > 0 && !d.root.IsStandard() && IsStandard(d.data) {
		return nil, errors.New("the edit would put a comment or a trailing comma in a plain JSON file")
	}
	return out, nil
}

// IsStandard reports whether data is plain JSON: no comments, no
// trailing commas.
func IsStandard(data []byte) bool {
	v, err := hujson.Parse(data)
	return err == nil && v.IsStandard()
}

// Root is the document's top-level object.
func (d *Doc) Root() Box {
	return d.BoxOf(Box{multi: true, comma: hujson.Extra(" "), colon: hujson.Extra(" ")}, &d.root)
}

// BoxOf is the Box of v, a container inside parent.
func (d *Doc) BoxOf(parent Box, v *hujson.Value) Box {
	if b, ok := d.added[v.Value]; ok {
		b.v = v
		return b
	}
	b := Box{v: v, indent: lineIndent(d.data, v.StartOffset), comma: parent.comma, colon: parent.colon}
	if parent.multi {
		// Written over lines around it: the usual spaces on one line.
		b.comma, b.colon = hujson.Extra(" "), hujson.Extra(" ")
	}
	bs := befores(b)
	for _, e := range bs {
		b.multi = b.multi || hasNewline(*e)
	}
	for _, e := range afters(b) {
		b.multi = b.multi || hasNewline(*e)
	}
	b.multi = b.multi || hasNewline(*afterExtra(b))
	if len(bs) == 0 && !b.multi {
		b.multi = parent.multi
	}
	if len(bs) >= 2 && isSpace(*bs[len(bs)-1]) {
		b.comma = *bs[len(bs)-1]
	}
	if o := b.Object(); o != nil && len(o.Members) > 0 {
		if sp := o.Members[len(o.Members)-1].Value.BeforeExtra; isSpace(sp) {
			b.colon = sp
			if len(bs) == 1 {
				b.comma = sp // spaced alike, or compact alike
			}
		}
	}
	return b
}

// isSpace reports whether extra is spaces on one line, or nothing.
func isSpace(b hujson.Extra) bool { return len(bytes.Trim(b, " \t")) == 0 }

// lineIndent is the indentation of the line holding offset off.
func lineIndent(data []byte, off int) string {
	off = min(max(off, 0), len(data))
	line := data[bytes.LastIndexByte(data[:off], '\n')+1:]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

func hasNewline(b []byte) bool { return bytes.IndexByte(b, '\n') >= 0 }

// HoldsComment reports whether a comment is written inside a container
// (not around it).
func HoldsComment(v *hujson.Value) bool {
	inner := hujson.Value{Value: v.Value}
	for x := range inner.All() {
		if hasComment(x.BeforeExtra) || hasComment(x.AfterExtra) {
			return true
		}
		switch c := x.Value.(type) {
		case *hujson.Object:
			if hasComment(c.AfterExtra) {
				return true
			}
		case *hujson.Array:
			if hasComment(c.AfterExtra) {
				return true
			}
		}
	}
	return false
}

// hasComment reports whether extra holds a comment, not only whitespace.
func hasComment(b hujson.Extra) bool { return len(bytes.TrimLeft(b, " \t\r\n")) > 0 }

// IndentUnit guesses the indentation a JSON file uses: the whitespace at
// the start of its first indented line, or two spaces.
func IndentUnit(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

// Indices returns the positions of the members named key in an object.
func Indices(o *hujson.Object, key string) []int {
	var out []int
	for i, m := range o.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == key {
			out = append(out, i)
		}
	}
	return out
}

// get returns the value of key in an object: the last member of that
// name, as the agents (JavaScript) read a key written twice. A null is
// no value.
func Get(o *hujson.Object, key string) (*hujson.Value, bool) {
	ix := Indices(o, key)
	if len(ix) == 0 {
		return nil, false
	}
	v := &o.Members[ix[len(ix)-1]].Value
	if lit, ok := v.Value.(hujson.Literal); ok && string(lit) == "null" {
		return nil, false
	}
	return v, true
}

// GetString returns key's value if it is a string.
func GetString(o *hujson.Object, key string) (string, bool) {
	v, ok := Get(o, key)
	if !ok {
		return "", false
	}
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return lit.String(), true
}

// Raw is a value as written, without the space and comments around it.
func Raw(v *hujson.Value) string { return string(hujson.Value{Value: v.Value}.Pack()) }

// Node is JSON that agate adds: a literal, or an object (its members in
// order) or an array.
type Node struct {
	lit     hujson.Literal
	kind    byte // '{' or '[' for a container, 0 for a literal
	members []member
	elems   []Node
	inline  bool // an array on one line, whatever its parent's layout
}

type member struct {
	key   string
	value Node
}

// Lit is a literal written as raw: a string with its quotes, a number,
// true, false or null.
func Lit(raw []byte) Node { return Node{lit: hujson.Literal(raw)} }

// String is s as a JSON string.
func String(s string) Node { return Lit(quoted(s)) }

// Inline is an array on one line, its elements set apart by ", ", as a
// person writes a short list.
func Inline(elems ...Node) Node { return Node{kind: '[', elems: elems, inline: true} }

// Obj builds an object Node from key, Node pairs.
func Obj(kv ...any) Node {
	n := Node{kind: '{'}
	for i := 0; i+1 < len(kv); i += 2 {
		n.members = append(n.members, member{key: kv[i].(string), value: kv[i+1].(Node)})
	}
	return n
}

// Arr is an array Node, laid out as the container it is added to.
func Arr(elems ...Node) Node { return Node{kind: '[', elems: elems} }

// childIndent is the indentation of the lines of b's members or elements.
func (d *Doc) childIndent(b Box) string {
	befores := befores(b)
	for i := len(befores) - 1; i >= 0; i-- {
		if j := bytes.LastIndexByte(*befores[i], '\n'); j >= 0 {
			rest := (*befores[i])[j+1:]
			return string(rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))])
		}
	}
	return b.indent + d.unit
}

// befores are the extras before each member's name or element of b.
func befores(b Box) []*hujson.Extra {
	var out []*hujson.Extra
	if o := b.Object(); o != nil {
		for i := range o.Members {
			out = append(out, &o.Members[i].Name.BeforeExtra)
		}
	} else if a := b.Array(); a != nil {
		for i := range a.Elements {
			out = append(out, &a.Elements[i].BeforeExtra)
		}
	}
	return out
}

// afters are the extras between each member's value or element and its
// comma; the last one is nil unless b ends with a trailing comma.
func afters(b Box) []*hujson.Extra {
	var out []*hujson.Extra
	if o := b.Object(); o != nil {
		for i := range o.Members {
			out = append(out, &o.Members[i].Value.AfterExtra)
		}
	} else if a := b.Array(); a != nil {
		for i := range a.Elements {
			out = append(out, &a.Elements[i].AfterExtra)
		}
	}
	return out
}

func afterExtra(b Box) *hujson.Extra {
	if o := b.Object(); o != nil {
		return &o.AfterExtra
	}
	return &b.Array().AfterExtra
}

// spaceFor works out the extra before a new last (or, with first, a new
// first) member or element of b, and changes b's closing extra to match.
func (d *Doc) spaceFor(b Box, first bool) hujson.Extra {
	bs := befores(b)
	after := afterExtra(b)
	if !b.multi {
		if len(bs) == 0 || first {
			return nil
		}
		return append(hujson.Extra(nil), b.comma...)
	}
	indent := d.childIndent(b)
	switch {
	case first && len(bs) > 0:
		// Before the first, on a line of its own: a comment on the line
		// of the opening bracket stays there, the comments before the
		// first stay before it.
		if head, rest, ok := sameLine(*bs[0]); ok {
			*bs[0] = rest
			return append(head, d.nl+indent...)
		}
		return hujson.Extra(d.nl + indent)
	case len(bs) == 0:
		// The first member of an empty container: what was inside (a
		// comment) stays before it, and the closing bracket gets a line.
		s := append(bytes.TrimRight(append(hujson.Extra(nil), *after...), " \t\r\n"), d.nl+indent...)
		*after = hujson.Extra(d.nl + b.indent)
		return s
	}
	// After the last: a comment on the last one's line stays on that line.
	if head, rest, ok := sameLine(*after); ok {
		*after = rest
		return append(head, d.nl+indent...)
	}
	return hujson.Extra(d.nl + indent)
}

// sameLine splits extra at its first line ending when what comes before
// it holds a comment: the comment on the line it starts on, and the rest
// from the line ending on.
func sameLine(extra hujson.Extra) (head, rest hujson.Extra, ok bool) {
	i := bytes.IndexByte(extra, '\n')
	if i < 0 {
		return nil, nil, false
	}
	if i > 0 && extra[i-1] == '\r' {
		i--
	}
	head = extra[:i]
	// A line comment ends with its line: it is valid with it.
	if !hasComment(head) || !hujson.Extra(append(append([]byte(nil), head...), '\n')).IsValid() {
		return nil, nil, false
	}
	return append(hujson.Extra(nil), head...), append(hujson.Extra(nil), extra[i:]...), true
}

// colon returns the extras around the colon of a new member of b, as its
// last member has them, or as b writes them.
func colon(b Box) (before, after hujson.Extra) {
	if o := b.Object(); o != nil && len(o.Members) > 0 {
		m := o.Members[len(o.Members)-1]
		if isSpace(m.Name.AfterExtra) && isSpace(m.Value.BeforeExtra) {
			return append(hujson.Extra(nil), m.Name.AfterExtra...), append(hujson.Extra(nil), m.Value.BeforeExtra...)
		}
	}
	return nil, append(hujson.Extra(nil), b.colon...)
}

// trailing reports whether b ends with a trailing comma.
func trailing(b Box) bool {
	as := afters(b)
	return len(as) > 0 && *as[len(as)-1] != nil
}

// build makes the syntax of n, as the value of a member or element of
// parent that starts a line indented by indent.
func (d *Doc) build(parent Box, indent string, n Node) hujson.ValueTrimmed {
	if n.kind == 0 {
		return n.lit
	}
	var v hujson.Value
	if n.kind == '{' {
		v.Value = &hujson.Object{}
	} else {
		v.Value = &hujson.Array{}
	}
	b := Box{v: &v, indent: indent, multi: parent.multi, comma: parent.comma, colon: parent.colon}
	if n.inline {
		b.multi, b.comma = false, hujson.Extra(" ")
	}
	d.added[v.Value] = b
	for _, m := range n.members {
		d.AddMember(b, m.key, m.value, false)
	}
	for _, e := range n.elems {
		d.AppendElement(b, e)
	}
	return v.Value
}

// AddMember adds key with value n to the object in b: last, or first.
func (d *Doc) AddMember(b Box, key string, n Node, first bool) {
	o := b.Object()
	wasTrailing := trailing(b)
	before := d.spaceFor(b, first)
	indent := b.indent
	if b.multi {
		indent = d.childIndent(b)
	}
	nb, na := colon(b)
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: before, Value: hujson.Literal(quoted(key)), AfterExtra: nb},
		Value: hujson.Value{BeforeExtra: na},
	}
	m.Value.Value = d.build(b, indent, n)
	if first {
		if len(o.Members) == 0 {
			m.Value.AfterExtra = nil
		}
		o.Members = append([]hujson.ObjectMember{m}, o.Members...)
	} else {
		if wasTrailing {
			m.Value.AfterExtra = hujson.Extra{}
		}
		o.Members = append(o.Members, m)
	}
	d.edits++
}

// AppendElement adds n at the end of the array in b.
func (d *Doc) AppendElement(b Box, n Node) {
	a := b.Array()
	wasTrailing := trailing(b)
	e := hujson.Value{BeforeExtra: d.spaceFor(b, false)}
	indent := b.indent
	if b.multi {
		indent = d.childIndent(b)
	}
	e.Value = d.build(b, indent, n)
	if wasTrailing {
		e.AfterExtra = hujson.Extra{}
	}
	a.Elements = append(a.Elements, e)
	d.edits++
}

// set replaces the value of v, a member or element of parent, with n,
// keeping the space and comments around it.
func (d *Doc) Set(parent Box, v *hujson.Value, n Node) {
	v.Value = d.build(parent, lineIndent(d.data, v.StartOffset), n)
	d.edits++
}

// SetMember sets key to n in the object in b: in place (the first of
// several members of that name, which then go), or added last.
func (d *Doc) SetMember(b Box, key string, n Node) {
	ix := Indices(b.Object(), key)
	if len(ix) == 0 {
		d.AddMember(b, key, n, false)
		return
	}
	d.Set(b, &b.Object().Members[ix[0]].Value, n)
	d.Dedupe(b, key)
}

// Dedupe leaves one member named key in the object in b: the last one's
// value in the first one's place, as the agents read it.
func (d *Doc) Dedupe(b Box, key string) {
	o := b.Object()
	ix := Indices(o, key)
	if len(ix) < 2 {
		return
	}
	o.Members[ix[0]].Value.Value = o.Members[ix[len(ix)-1]].Value.Value
	for k := len(ix) - 1; k >= 1; k-- {
		d.Remove(b, ix[k])
	}
}

// RemoveMember removes every member named key from the object in b.
func (d *Doc) RemoveMember(b Box, key string) {
	ix := Indices(b.Object(), key)
	for k := len(ix) - 1; k >= 0; k-- {
		d.Remove(b, ix[k])
	}
}

// remove takes member or element i out of b. The comments before it stay,
// before what follows it; the space it stood in goes.
func (d *Doc) Remove(b Box, i int) {
	bs, as := befores(b), afters(b)
	n := len(bs)
	gone, goneAfter := *bs[i], *as[i]
	hadTrailing := *as[n-1] != nil
	switch {
	case i < n-1:
		next := bs[i+1]
		switch {
		case hasComment(gone):
			*next = append(append(hujson.Extra(nil), gone...), bytes.TrimLeft(*next, " \t\r\n")...)
		case !hasComment(*next):
			*next = append(hujson.Extra(nil), gone...)
		}
		if hasComment(goneAfter) {
			*next = append(append(hujson.Extra(nil), bytes.TrimSpace(goneAfter)...), *next...)
		}
	default:
		after := afterExtra(b)
		if hasComment(gone) {
			keep := gone
			if j := bytes.LastIndexByte(gone, '\n'); j >= 0 && hasNewline(*after) {
				keep = gone[:j]
				if len(keep) > 0 && keep[len(keep)-1] == '\r' {
					keep = keep[:len(keep)-1]
				}
			}
			*after = append(append(hujson.Extra(nil), keep...), *after...)
		}
		if i > 0 {
			prev := as[i-1]
			switch {
			case hadTrailing && *prev == nil:
				// The trailing comma stays, and what stood before it.
				*prev = append(hujson.Extra{}, goneAfter...)
			case !hadTrailing && *prev != nil:
				if hasComment(*prev) {
					*after = append(append(hujson.Extra(nil), *prev...), *after...)
				}
				*prev = nil
			}
		}
	}
	if o := b.Object(); o != nil {
		o.Members = append(o.Members[:i:i], o.Members[i+1:]...)
	} else {
		a := b.Array()
		a.Elements = append(a.Elements[:i:i], a.Elements[i+1:]...)
	}
	if after := afterExtra(b); n == 1 && !hasComment(*after) {
		*after = nil // empty: {} or []
	}
	d.edits++
}

// InsertAfter adds key with value n to the object in b right after its
// member i, laid out as the members around it, so that Remove of the new
// member gives back the text as it was: its line as the next member's
// (its space without the comments), or, added last, as member i's, the
// trailing comma moving to it.
func (d *Doc) InsertAfter(b Box, i int, key string, n Node) {
	o := b.Object()
	prev := &o.Members[i]
	m := hujson.ObjectMember{
		Name:  hujson.Value{Value: hujson.Literal(quoted(key)), AfterExtra: spaceOnly(prev.Name.AfterExtra)},
		Value: hujson.Value{BeforeExtra: spaceOnly(prev.Value.BeforeExtra)},
	}
	if len(m.Value.BeforeExtra) == 0 {
		m.Value.BeforeExtra = hujson.Extra(" ")
	}
	if i == len(o.Members)-1 {
		m.Name.BeforeExtra = spaceOnly(prev.Name.BeforeExtra)
		// The last member carries the trailing comma, if any.
		m.Value.AfterExtra, prev.Value.AfterExtra = prev.Value.AfterExtra, nil
	} else {
		m.Name.BeforeExtra = lastLine(o.Members[i+1].Name.BeforeExtra)
	}
	m.Value.Value = d.build(b, lineIndent(d.data, prev.Name.StartOffset), n)
	o.Members = append(o.Members[:i+1], append([]hujson.ObjectMember{m}, o.Members[i+1:]...)...)
	d.edits++
}

// PrependStrings puts strings before the elements of the array in b,
// laid out as they are: the first takes the place of the array's first,
// the others and the old first are set apart as the array's elements
// are. The elements, their comments and what is around them stay as they
// were. In an empty array they go on one line, set apart by ", ".
func (d *Doc) PrependStrings(b Box, elems []string) {
	arr := b.Array()
	if len(elems) == 0 {
		return
	}
	if len(arr.Elements) == 0 {
		for i, e := range elems {
			v := hujson.Value{Value: hujson.Literal(quoted(e))}
			if i > 0 {
				v.BeforeExtra = hujson.Extra(" ")
			}
			arr.Elements = append(arr.Elements, v)
		}
		d.edits++
		return
	}
	first := hujson.Extra(bytes.Clone(arr.Elements[0].BeforeExtra))
	sep := hujson.Extra(" ")
	switch {
	case len(arr.Elements) > 1:
		sep = hujson.Extra(bytes.Clone(arr.Elements[1].BeforeExtra))
	case bytes.ContainsRune(first, '\n'):
		sep = hujson.Extra(bytes.Clone(first))
	}
	added := make([]hujson.Value, len(elems))
	for i, e := range elems {
		added[i] = hujson.Value{BeforeExtra: hujson.Extra(bytes.Clone(sep)), Value: hujson.Literal(quoted(e))}
	}
	added[0].BeforeExtra = first
	arr.Elements[0].BeforeExtra = sep
	arr.Elements = append(added, arr.Elements...)
	d.edits++
}

// DropFirst removes the first n elements of the array in b, giving the
// first that stays the place of the first removed: PrependStrings undone.
func (d *Doc) DropFirst(b Box, n int) {
	arr := b.Array()
	if n <= 0 || n > len(arr.Elements) {
		return
	}
	first := arr.Elements[0].BeforeExtra
	if n == len(arr.Elements) {
		arr.Elements = arr.Elements[:0]
	} else {
		arr.Elements = append([]hujson.Value{}, arr.Elements[n:]...)
		arr.Elements[0].BeforeExtra = first
	}
	d.edits++
}

// spaceOnly is a copy of extra when it holds no comment, else the space
// after its last line ending (the indentation of the line that follows).
func spaceOnly(extra hujson.Extra) hujson.Extra {
	if !hasComment(extra) {
		return hujson.Extra(bytes.Clone(extra))
	}
	return lastLine(extra)
}

// lastLine is extra from its last line ending on, when what follows the
// line ending is only space: the line break and indentation of the next
// line; extra itself when it holds no comment.
func lastLine(extra hujson.Extra) hujson.Extra {
	if !hasComment(extra) {
		return hujson.Extra(bytes.Clone(extra))
	}
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 || !isSpace(extra[i+1:]) {
		return hujson.Extra(" ")
	}
	if i > 0 && extra[i-1] == '\r' {
		i--
	}
	return hujson.Extra(bytes.Clone(extra[i:]))
}
