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

	"github.com/agatehq/agate/app/internal/tomltext"
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
	return tomltext.String(s), nil
}

// encodeKey writes one key segment: bare when it can be, quoted otherwise.
func encodeKey(k string) string {
	if !utf8.ValidString(k) {
		// Not reachable from a decoded config; the parse check refuses it.
		return strconv.Quote(k)
	}
	return tomltext.Key(k)
}

func encodeKeyPath(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = encodeKey(p)
	}
	return strings.Join(parts, ".")
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
