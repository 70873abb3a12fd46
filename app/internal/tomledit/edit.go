package tomledit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Set sets key of table (nil for the top level) to value in the TOML
// text s, and returns the new text. The key's line keeps its place, its
// spelling and the comments around it; a string array keeps the
// spelling, comments and order of the elements it keeps (Array.Render).
// A key that is not there is added after the table's last key, or after
// its header when it has none, beside the dotted keys that make the
// table, or in a new table at the end of the text. value is a string,
// bool, int, int64, []string or time.Duration (written as a string such
// as "2m0s").
func Set(s string, table []string, key string, value any) (string, error) {
	doc, nl, err := prepare(s, table, key)
	if err != nil {
		return "", err
	}
	full := append(append([]string{}, table...), key)
	if i := doc.Find(full); i >= 0 {
		ent := doc.Entries[i]
		old := s[ent.ValStart:ent.ValEnd]
		if list, ok := value.([]string); ok {
			if arr, ok := ParseStringArray(old); ok {
				for _, x := range list {
					if !utf8.ValidString(x) {
						return "", fmt.Errorf("value %q is not valid UTF-8", x)
					}
				}
				return s[:ent.ValStart] + arr.Render(list, nl) + s[ent.ValEnd:], nil
			}
		}
		val, err := Value(value)
		if err != nil {
			return "", err
		}
		// The comment lines inside the old value go above the key.
		keep := CommentBlock(old, leadingSpace(s[ent.Start:]), nl)
		return s[:ent.Start] + keep + s[ent.Start:ent.ValStart] + val + s[ent.ValEnd:], nil
	}
	val, err := Value(value)
	if err != nil {
		return "", err
	}
	return insertKey(s, doc, table, key, val, nl)
}

// Remove removes key of table from the TOML text s: its line(s) go, and
// the comment lines inside its value (a multi-line array's) stay in its
// place. A key that is not there is no change.
func Remove(s string, table []string, key string) (string, error) {
	doc, nl, err := prepare(s, table, key)
	if err != nil {
		return "", err
	}
	i := doc.Find(append(append([]string{}, table...), key))
	if i < 0 {
		return s, nil
	}
	ent := doc.Entries[i]
	keep := CommentBlock(s[ent.ValStart:ent.ValEnd], leadingSpace(s[ent.Start:]), nl)
	return s[:ent.Start] + keep + s[ent.End:], nil
}

// prepare checks the key's names and scans s; nl is the text's line
// ending.
func prepare(s string, table []string, key string) (*Doc, string, error) {
	if key == "" {
		return nil, "", errors.New("no key named")
	}
	for _, k := range append(append([]string{}, table...), key) {
		if !utf8.ValidString(k) {
			return nil, "", fmt.Errorf("key %q is not valid UTF-8", k)
		}
	}
	doc, err := Scan(s)
	if err != nil {
		return nil, "", err
	}
	nl := "\n"
	if strings.Contains(s, "\r\n") {
		nl = "\r\n"
	}
	return doc, nl, nil
}

// insertKey adds key = val to table: after the table's last key, or after
// its header when it has none, or in a new table at the end of the file.
func insertKey(s string, doc *Doc, table []string, key, val, nl string) (string, error) {
	line := Key(key) + " = " + val + nl
	// The table has a header: after its last key.
	for hi, h := range doc.Headers {
		if h.Array || !EqualPath(h.Path, table) {
			continue
		}
		at := h.End
		for _, ent := range doc.Entries {
			if ent.Header == hi {
				at = ent.End
			}
		}
		return insertAt(s, at, line, nl), nil
	}
	if len(table) == 0 {
		at := len(s)
		if len(doc.Headers) > 0 {
			at = doc.Headers[0].Start
		}
		for _, ent := range doc.Entries {
			if ent.Header == -1 {
				at = ent.End
			}
		}
		return insertAt(s, at, line, nl), nil
	}
	// The table is made by dotted keys (`[agents]` then `x.mode = ...`):
	// beside them, in the same style.
	last := -1
	for i, ent := range doc.Entries {
		if EqualPath(ent.Path, table) {
			return "", fmt.Errorf("%s is written as an inline table or a value; edit it by hand", strings.Join(table, "."))
		}
		if len(ent.Path) > len(table) && EqualPath(ent.Path[:len(table)], table) && len(ent.Table) < len(table) {
			last = i
		}
	}
	if last >= 0 {
		ent := doc.Entries[last]
		rel := append(append([]string{}, table[len(ent.Table):]...), key)
		return insertAt(s, ent.End, KeyPath(rel)+" = "+val+nl, nl), nil
	}
	// A new table at the end.
	var b strings.Builder
	b.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteString(nl)
	}
	if s != "" {
		b.WriteString(nl)
	}
	b.WriteString("[" + KeyPath(table) + "]" + nl + line)
	return b.String(), nil
}

func insertAt(s string, at int, text, nl string) string {
	if at > 0 && at == len(s) && !strings.HasSuffix(s, "\n") {
		text = nl + text
	}
	return s[:at] + text + s[at:]
}

func leadingSpace(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[:i]
}

// Value writes v as a TOML value: a string, bool, int, int64, []string or
// time.Duration (as a string such as "2m0s").
func Value(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return quote(v)
	case bool:
		return strconv.FormatBool(v), nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case time.Duration:
		return quote(v.String())
	case []string:
		parts := make([]string, len(v))
		for i, x := range v {
			q, err := quote(x)
			if err != nil {
				return "", err
			}
			parts[i] = q
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case nil:
		return "", errors.New("no value given")
	}
	return "", fmt.Errorf("cannot write a %T as a TOML value", v)
}

// quote writes s as a TOML basic string, refusing bytes that are not
// UTF-8 (which TOML cannot hold).
func quote(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("value %q is not valid UTF-8", s)
	}
	return String(s), nil
}

// KeyPath writes a dotted key, each part as Key writes it.
func KeyPath(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = Key(p)
	}
	return strings.Join(parts, ".")
}

// Render writes the array holding vals. Elements kept from the old array
// keep their spelling, the comment lines before them and the comment after
// them, and move with them when the order changes. The comment lines of a
// removed element go to the next element kept (or before the closing
// bracket): no comment line is lost. A multi-line array stays multi-line.
// Every value must be valid UTF-8.
func (a *Array) Render(vals []string, nl string) string {
	type out struct {
		lead        []string
		text, trail string
	}
	used := make([]bool, len(a.Items))
	outs := make([]out, len(vals))
	from := make([]int, len(vals)) // old index, -1 when new
	for i, v := range vals {
		from[i] = -1
		for j, it := range a.Items {
			if !used[j] && it.Value == v {
				used[j], from[i] = true, j
				break
			}
		}
		if from[i] < 0 {
			outs[i] = out{text: String(v)}
		}
	}
	// Comments of removed elements move down to the next kept one.
	leads := make([][]string, len(a.Items))
	tail := append([]string{}, a.Tail...)
	var carry []string
	for j, it := range a.Items {
		l := append(carry, it.Lead...)
		if used[j] {
			leads[j], carry = l, nil
		} else {
			carry = l
		}
	}
	tail = append(carry, tail...)
	hasComments := len(tail) > 0
	for i := range vals {
		if j := from[i]; j >= 0 {
			outs[i] = out{lead: leads[j], text: a.Items[j].Text, trail: a.Items[j].Trail}
			if len(outs[i].lead) > 0 || outs[i].trail != "" {
				hasComments = true
			}
		}
	}
	texts := make([]string, len(outs))
	width := 2
	for i, o := range outs {
		texts[i] = o.text
		width += len(o.text) + 2
	}
	if !a.Multiline && !hasComments && width <= 100 {
		return "[" + strings.Join(texts, ", ") + "]"
	}
	if len(outs) == 0 && !hasComments {
		return "[]"
	}
	indent := a.Indent
	if indent == "" {
		indent = "  "
	}
	var b strings.Builder
	b.WriteString("[" + nl)
	for _, o := range outs {
		for _, c := range o.lead {
			b.WriteString(indent + c + nl)
		}
		b.WriteString(indent + o.text + "," + o.trail)
		b.WriteString(nl)
	}
	for _, c := range tail {
		b.WriteString(indent + c + nl)
	}
	b.WriteString(a.CloseIndent + "]")
	return b.String()
}
