package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// Edit is one change to config.toml: set a key of a table to a value,
// or remove it. The desktop app's tray and settings panel change the config
// only through edits, so the person's comments, formatting and the keys the
// edit does not name stay as they were.
type Edit struct {
	// Table is the table holding the key: {"auto"}, {"agents",
	// "claude-code"}; empty for the top level of the file.
	Table []string
	// Key is the key within Table.
	Key string
	// Value is the new value: a string, bool, int, int64, []string or
	// time.Duration (written as a string such as "2m0s").
	Value any
	// Remove removes the key instead; a key that is not there is no change.
	Remove bool
}

// SetKey is the edit that sets key of the dotted table ("auto",
// "agents.claude-code") to value. A table name holding a dot needs an
// Edit with Table spelled out.
func SetKey(table, key string, value any) Edit {
	return Edit{Table: splitTable(table), Key: key, Value: value}
}

// RemoveKey is the edit that removes key from the dotted table.
func RemoveKey(table, key string) Edit {
	return Edit{Table: splitTable(table), Key: key, Remove: true}
}

func splitTable(table string) []string {
	if table == "" {
		return nil
	}
	return strings.Split(table, ".")
}

// String names the key the edit changes: "auto.mode".
func (e Edit) String() string {
	path := append(append([]string{}, e.Table...), e.Key)
	return strings.Join(path, ".")
}

// ErrBroken means the config file on disk does not parse: agate will
// not edit it (the edit would overwrite what the person is in the middle of
// fixing). The error wrapping it carries the file, line and key.
var ErrBroken = errors.New("the config file does not parse; fix it by hand first (agate will not overwrite it)")

// EditFile applies edits to the config file at path, in place: it reads
// the file again, refuses to touch it if it does not parse (ErrBroken,
// with the parse error), applies the edits keeping every comment and the
// keys it does not name, checks the whole result with policy.Parse
// (refusing to write a result that does not parse, with the file, line and
// key of the problem), and writes it atomically with the file's mode kept.
// A missing file starts from the commented defaults. A symlinked config is
// written through to its target.
func EditFile(path string, edits ...Edit) error {
	target := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		target = r
	}
	for attempt := 0; attempt < 3; attempt++ {
		data, mode, err := readForEdit(target)
		if err != nil {
			return err
		}
		out, err := editChecked(path, data, edits)
		if err != nil {
			return err
		}
		if bytes.Equal(out, data) {
			return nil
		}
		// A hand edit saved while this one was worked out wins: start over
		// from it rather than overwrite it.
		again, _, err := readForEdit(target)
		if err != nil {
			return err
		}
		if !bytes.Equal(again, data) {
			continue
		}
		if err := osutil.WriteFile(target, out, mode); err != nil {
			return fmt.Errorf("edit config: %w", err)
		}
		return nil
	}
	return fmt.Errorf("edit config %s: the file kept changing while agate edited it; try again", path)
}

// PreviewEdits returns what EditFile would write, and the config it
// parses to, without writing anything: the settings panel checks a rule as
// it is typed with it.
func PreviewEdits(path string, edits ...Edit) ([]byte, *policy.Config, error) {
	data, _, err := readForEdit(path)
	if err != nil {
		return nil, nil, err
	}
	out, err := editChecked(path, data, edits)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := policy.Parse(path, out)
	if err != nil {
		return nil, nil, err
	}
	return out, cfg, nil
}

// EditText applies edits to the text of a config file and checks the
// result with policy.Parse; name is used in errors. It does not check the
// text it is given.
func EditText(name string, data []byte, edits ...Edit) ([]byte, error) {
	out, err := applyEdits(data, edits)
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", name, err)
	}
	if _, err := policy.Parse(name, out); err != nil {
		return nil, fmt.Errorf("the edit was not saved: %w", err)
	}
	return out, nil
}

// editChecked refuses a broken file, then edits and checks.
func editChecked(name string, data []byte, edits []Edit) ([]byte, error) {
	if _, err := policy.Parse(name, data); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBroken, err)
	}
	return EditText(name, data, edits...)
}

// readForEdit reads the config file and its mode; a missing file reads as
// the commented defaults, mode 0600.
func readForEdit(path string) ([]byte, os.FileMode, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return policy.DefaultConfigText, 0o600, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read config: %w", err)
	}
	data, err := osutil.ReadLimited(path, policy.MaxConfigSize)
	if err != nil {
		return nil, 0, fmt.Errorf("read config: %w", err)
	}
	return data, st.Mode().Perm(), nil
}

// applyEdits applies edits to TOML text, one after the other,
// without checking the result against agate's schema.
func applyEdits(data []byte, edits []Edit) ([]byte, error) {
	s := string(data)
	if !utf8.ValidString(s) {
		return nil, errors.New("the file is not valid UTF-8")
	}
	for _, e := range edits {
		var err error
		if s, err = applyEdit(s, e); err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
	}
	return []byte(s), nil
}

func applyEdit(s string, e Edit) (string, error) {
	if e.Key == "" {
		return "", errors.New("no key named")
	}
	for _, k := range append(append([]string{}, e.Table...), e.Key) {
		if !utf8.ValidString(k) {
			return "", fmt.Errorf("key %q is not valid UTF-8", k)
		}
	}
	doc, err := scanTOML(s)
	if err != nil {
		return "", err
	}
	nl := "\n"
	if strings.Contains(s, "\r\n") {
		nl = "\r\n"
	}
	full := append(append([]string{}, e.Table...), e.Key)
	if i := doc.find(full); i >= 0 {
		ent := doc.entries[i]
		if e.Remove {
			return removeEntry(s, ent, nl), nil
		}
		old := s[ent.valStart:ent.valEnd]
		if list, ok := e.Value.([]string); ok {
			if arr, ok := parseStringArray(old); ok {
				for _, x := range list {
					if !utf8.ValidString(x) {
						return "", fmt.Errorf("value %q is not valid UTF-8", x)
					}
				}
				return s[:ent.valStart] + arr.render(list, nl) + s[ent.valEnd:], nil
			}
		}
		val, err := encodeValue(e.Value)
		if err != nil {
			return "", err
		}
		// The comment lines inside the old value go above the key.
		keep := commentBlock(old, leadingSpace(s[ent.start:]), nl)
		return s[:ent.start] + keep + s[ent.start:ent.valStart] + val + s[ent.valEnd:], nil
	}
	if e.Remove {
		return s, nil
	}
	val, err := encodeValue(e.Value)
	if err != nil {
		return "", err
	}
	return insertKey(s, doc, e.Table, e.Key, val, nl)
}

// removeEntry cuts a key's line(s), keeping the comment lines inside its
// value (a multi-line array's) in its place.
func removeEntry(s string, ent tomlEntry, nl string) string {
	keep := commentBlock(s[ent.valStart:ent.valEnd], leadingSpace(s[ent.start:]), nl)
	return s[:ent.start] + keep + s[ent.end:]
}

// commentBlock returns the comment lines inside a value (those alone on
// their line), each on a line of its own with indent.
func commentBlock(v, indent, nl string) string {
	var b strings.Builder
	lineStart := false
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"' || c == '\'':
			end, err := scanString(v, i)
			if err != nil {
				return b.String()
			}
			i, lineStart = end, false
		case c == '\n':
			i, lineStart = i+1, true
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#':
			end := skipComment(v, i)
			if lineStart {
				b.WriteString(indent + v[i:end] + nl)
			}
			i = end
		default:
			i, lineStart = i+1, false
		}
	}
	return b.String()
}

// insertKey adds key = val to table: after the table's last key, or after
// its header when it has none, or in a new table at the end of the file.
func insertKey(s string, doc *tomlDoc, table []string, key, val, nl string) (string, error) {
	line := encodeKey(key) + " = " + val + nl
	// The table has a header: after its last key.
	for hi, h := range doc.headers {
		if h.array || !equalPath(h.path, table) {
			continue
		}
		at := h.end
		for _, ent := range doc.entries {
			if ent.header == hi {
				at = ent.end
			}
		}
		return insertAt(s, at, line, nl), nil
	}
	if len(table) == 0 {
		at := len(s)
		if len(doc.headers) > 0 {
			at = doc.headers[0].start
		}
		for _, ent := range doc.entries {
			if ent.header == -1 {
				at = ent.end
			}
		}
		return insertAt(s, at, line, nl), nil
	}
	// The table is made by dotted keys (`[agents]` then `x.mode = ...`):
	// beside them, in the same style.
	last := -1
	for i, ent := range doc.entries {
		if equalPath(ent.path, table) {
			return "", fmt.Errorf("%s is written as an inline table or a value; edit it by hand", strings.Join(table, "."))
		}
		if len(ent.path) > len(table) && equalPath(ent.path[:len(table)], table) && len(ent.tablePath) < len(table) {
			last = i
		}
	}
	if last >= 0 {
		ent := doc.entries[last]
		rel := append(append([]string{}, table[len(ent.tablePath):]...), key)
		return insertAt(s, ent.end, encodeKeyPath(rel)+" = "+val+nl, nl), nil
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
	b.WriteString("[" + encodeKeyPath(table) + "]" + nl + line)
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

func equalPath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// encodeValue writes v as a TOML value.
func encodeValue(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return tomlQuote(v)
	case bool:
		return strconv.FormatBool(v), nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case time.Duration:
		return tomlQuote(v.String())
	case []string:
		parts := make([]string, len(v))
		for i, x := range v {
			q, err := tomlQuote(x)
			if err != nil {
				return "", err
			}
			parts[i] = q
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case nil:
		return "", errors.New("no value given")
	}
	return "", fmt.Errorf("cannot write a %T to config.toml", v)
}

// tomlQuote writes s as a TOML basic string.
func tomlQuote(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("value %q is not valid UTF-8", s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// encodeKey writes one key segment: bare when it can be, quoted otherwise.
func encodeKey(k string) string {
	bare := k != ""
	for i := 0; i < len(k) && bare; i++ {
		c := k[i]
		bare = c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	if bare {
		return k
	}
	q, err := tomlQuote(k)
	if err != nil {
		// Not reachable from a decoded config; the parse check refuses it.
		return strconv.Quote(k)
	}
	return q
}

func encodeKeyPath(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = encodeKey(p)
	}
	return strings.Join(parts, ".")
}

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

// scanTOML finds the layout of s. It understands all of TOML's syntax but
// checks little of it: the text has been through the real parser before.
func scanTOML(s string) (*tomlDoc, error) {
	doc := &tomlDoc{}
	var table []string
	header := -1
	i := 0
	for i < len(s) {
		start := i
		i = skipSpace(s, i)
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '\n' || c == '\r':
			i = skipEOL(s, i)
			continue
		case c == '#':
			i = skipEOL(s, skipComment(s, i))
			continue
		case c == '[':
			array := strings.HasPrefix(s[i:], "[[")
			if array {
				i += 2
			} else {
				i++
			}
			path, j, err := scanKey(s, i)
			if err != nil {
				return nil, err
			}
			j = skipSpace(s, j)
			closer := "]"
			if array {
				closer = "]]"
			}
			if !strings.HasPrefix(s[j:], closer) {
				return nil, fmt.Errorf("line %d: table header not closed", lineOf(s, j))
			}
			j, err = endOfLine(s, j+len(closer))
			if err != nil {
				return nil, err
			}
			doc.headers = append(doc.headers, tomlHeader{path: path, array: array, start: start, end: j})
			table, header, i = path, len(doc.headers)-1, j
		default:
			key, j, err := scanKey(s, i)
			if err != nil {
				return nil, err
			}
			j = skipSpace(s, j)
			if j >= len(s) || s[j] != '=' {
				return nil, fmt.Errorf("line %d: want = after a key", lineOf(s, j))
			}
			j = skipSpace(s, j+1)
			vs := j
			ve, j, err := scanValue(s, j)
			if err != nil {
				return nil, err
			}
			j, err = endOfLine(s, j)
			if err != nil {
				return nil, err
			}
			path := append(append([]string{}, table...), key...)
			doc.entries = append(doc.entries, tomlEntry{path: path, tablePath: table, header: header,
				start: start, end: j, valStart: vs, valEnd: ve})
			i = j
		}
	}
	return doc, nil
}

func lineOf(s string, i int) int { return strings.Count(s[:min(i, len(s))], "\n") + 1 }

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipComment returns the offset of the end of the line (its newline).
func skipComment(s string, i int) int {
	for i < len(s) && s[i] != '\n' {
		i++
	}
	if i > 0 && i <= len(s) && s[i-1] == '\r' {
		i--
	}
	return i
}

// skipEOL steps over one newline at i, if there is one.
func skipEOL(s string, i int) int {
	if strings.HasPrefix(s[i:], "\r\n") {
		return i + 2
	}
	if i < len(s) && s[i] == '\n' {
		return i + 1
	}
	if i < len(s) && s[i] == '\r' {
		return i + 1
	}
	return i
}

// endOfLine steps over spaces, a comment and the newline after a value or
// header.
func endOfLine(s string, i int) (int, error) {
	i = skipSpace(s, i)
	if i < len(s) && s[i] == '#' {
		i = skipComment(s, i)
	}
	if i < len(s) && s[i] != '\n' && s[i] != '\r' {
		return 0, fmt.Errorf("line %d: unexpected %q after a value", lineOf(s, i), s[i])
	}
	return skipEOL(s, i), nil
}

// scanKey reads a dotted key at i and returns its segments.
func scanKey(s string, i int) ([]string, int, error) {
	var path []string
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return nil, 0, errors.New("unexpected end of file in a key")
		}
		switch s[i] {
		case '"', '\'':
			end, err := scanString(s, i)
			if err != nil {
				return nil, 0, err
			}
			seg, err := decodeTOMLString(s[i:end])
			if err != nil {
				return nil, 0, fmt.Errorf("line %d: %w", lineOf(s, i), err)
			}
			path = append(path, seg)
			i = end
		default:
			j := i
			for j < len(s) && isBareKeyChar(s[j]) {
				j++
			}
			if j == i {
				return nil, 0, fmt.Errorf("line %d: want a key, found %q", lineOf(s, i), s[i])
			}
			path = append(path, s[i:j])
			i = j
		}
		i = skipSpace(s, i)
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		return path, i, nil
	}
}

func isBareKeyChar(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// scanValue finds the end of the value starting at i: the end of its text
// (trailing spaces left out) and where scanning stopped (a comment, the
// newline or the end of the file).
func scanValue(s string, i int) (end, next int, err error) {
	depth := 0
	end = i
	for i < len(s) {
		switch c := s[i]; c {
		case '"', '\'':
			j, err := scanString(s, i)
			if err != nil {
				return 0, 0, err
			}
			i, end = j, j
		case '[', '{':
			depth++
			i++
			end = i
		case ']', '}':
			depth--
			i++
			end = i
		case '#':
			if depth <= 0 {
				return end, i, nil
			}
			i = skipComment(s, i)
		case '\n', '\r':
			if depth <= 0 {
				return end, i, nil
			}
			i++
		case ' ', '\t':
			i++
		default:
			i++
			end = i
		}
	}
	if depth > 0 {
		return 0, 0, errors.New("unexpected end of file in a value")
	}
	return end, i, nil
}

// scanString returns the offset just past the string starting at i (basic,
// literal, or either multi-line form).
func scanString(s string, i int) (int, error) {
	q := s[i]
	if strings.HasPrefix(s[i:], string([]byte{q, q, q})) {
		delim := string([]byte{q, q, q})
		j := i + 3
		for j < len(s) {
			if q == '"' && s[j] == '\\' {
				j += 2
				continue
			}
			if strings.HasPrefix(s[j:], delim) {
				end := j + 3
				// Up to two quotes may stand just before the closing ones.
				for n := 0; n < 2 && end < len(s) && s[end] == q; n++ {
					end++
				}
				return end, nil
			}
			j++
		}
		return 0, fmt.Errorf("line %d: multi-line string not closed", lineOf(s, i))
	}
	j := i + 1
	for j < len(s) {
		switch {
		case q == '"' && s[j] == '\\':
			j += 2
			continue
		case s[j] == q:
			return j + 1, nil
		case s[j] == '\n':
			return 0, fmt.Errorf("line %d: string not closed", lineOf(s, i))
		}
		j++
	}
	return 0, fmt.Errorf("line %d: string not closed", lineOf(s, i))
}

// decodeTOMLString decodes one string token with the real parser.
func decodeTOMLString(tok string) (string, error) {
	var v struct{ V string }
	if _, err := toml.Decode("V = "+tok, &v); err != nil {
		return "", fmt.Errorf("bad string %s: %w", tok, err)
	}
	return v.V, nil
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
	if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
		return nil, false
	}
	a := &tomlArray{multiline: strings.ContainsAny(v, "\n")}
	var lead []string
	sameLine := false  // on the line of the last element
	lineStart := false // nothing but spaces since the last newline
	indentKnown := false
	j := 1
	for j < len(v) {
		k := skipSpace(v, j)
		ws := v[j:k]
		j = k
		if j >= len(v) {
			return nil, false
		}
		c := v[j]
		if lineStart && c != '\n' && c != '\r' {
			if c == ']' {
				a.closeIndent = ws
			} else if !indentKnown {
				a.indent, indentKnown = ws, true
			}
		}
		switch {
		case c == '\n' || c == '\r':
			j = skipEOL(v, j)
			sameLine, lineStart = false, true
			continue
		case c == '#':
			end := skipComment(v, j)
			cmt := v[j:end]
			if sameLine && len(a.items) > 0 {
				if ws == "" {
					ws = " "
				}
				a.items[len(a.items)-1].trail = ws + cmt
			} else {
				lead = append(lead, cmt)
			}
			j = end
		case c == ',':
			j++
		case c == ']':
			if j != len(v)-1 {
				return nil, false
			}
			a.tail = lead
			return a, true
		case c == '"' || c == '\'':
			end, err := scanString(v, j)
			if err != nil {
				return nil, false
			}
			text := v[j:end]
			val, err := decodeTOMLString(text)
			if err != nil {
				return nil, false
			}
			a.items = append(a.items, arrayItem{lead: lead, text: text, value: val})
			lead, sameLine = nil, true
			j = end
		default:
			return nil, false
		}
		lineStart = false
	}
	return nil, false
}

// render writes the array holding vals. Elements kept from the old array
// keep their spelling, the comment lines before them and the comment after
// them, and move with them when the order changes. The comment lines of a
// removed element go to the next element kept (or before the closing
// bracket): no comment line is lost. A multi-line array stays multi-line.
func (a *tomlArray) render(vals []string, nl string) string {
	type out struct {
		lead        []string
		text, trail string
	}
	used := make([]bool, len(a.items))
	outs := make([]out, len(vals))
	from := make([]int, len(vals)) // old index, -1 when new
	for i, v := range vals {
		from[i] = -1
		for j, it := range a.items {
			if !used[j] && it.value == v {
				used[j], from[i] = true, j
				break
			}
		}
		if from[i] < 0 {
			q, _ := tomlQuote(v) // checked by the caller
			outs[i] = out{text: q}
		}
	}
	// Comments of removed elements move down to the next kept one.
	leads := make([][]string, len(a.items))
	tail := append([]string{}, a.tail...)
	var carry []string
	for j, it := range a.items {
		l := append(carry, it.lead...)
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
			outs[i] = out{lead: leads[j], text: a.items[j].text, trail: a.items[j].trail}
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
	if !a.multiline && !hasComments && width <= 100 {
		return "[" + strings.Join(texts, ", ") + "]"
	}
	if len(outs) == 0 && !hasComments {
		return "[]"
	}
	indent := a.indent
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
	b.WriteString(a.closeIndent + "]")
	return b.String()
}
