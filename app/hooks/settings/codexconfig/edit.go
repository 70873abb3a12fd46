package codexconfig

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"

	"github.com/agatehq/agate/app/internal/tomledit"
)

// Spec is one hook agate installs: an event and its group's matcher (""
// for an event that has none).
type Spec struct {
	Event   string
	Matcher string
}

// Hooks returns the hooks Install writes, in the order it writes them:
// PreToolUse decides each call, PermissionRequest answers Codex's own
// approval prompt where agate has decided already, PostToolUse taints the
// run after a tool that brings outside content in, UserPromptSubmit
// starts a new run.
func Hooks() []Spec {
	return []Spec{
		{"PreToolUse", "*"},
		{"PermissionRequest", "*"},
		{"PostToolUse", "*"},
		{"UserPromptSubmit", ""},
	}
}

// The markers around agate's block of hooks in a config.toml.
const (
	BeginMarker = "# >>> agate: codex hooks >>>"
	EndMarker   = "# <<< agate: codex hooks <<<"
)

// trustMarkers are the markers around the trust agate records in the
// user's config.toml for hooks declared in another file (a project's).
func trustMarkers(source string) (string, string) {
	return "# >>> agate: codex hook trust for " + source + " >>>",
		"# <<< agate: codex hook trust for " + source + " <<<"
}

// State is one trusted_hash agate records for one of its hooks.
type State struct {
	Key  string // "SOURCE:pre_tool_use:2:0"
	Hash string // "sha256:…"
}

// ErrNotTOML is wrapped by the error for a file that does not parse.
var ErrNotTOML = errors.New("not valid TOML")

// ErrUnbalanced is wrapped by the error for a file with an agate marker
// that has no partner: agate cannot tell where its block ends.
var ErrUnbalanced = errors.New("agate's block markers do not pair up")

// ErrOutside is wrapped by the error for a file that holds agate's hook
// outside agate's block.
var ErrOutside = errors.New("agate's hook is outside its block")

// maxSize bounds the config files agate edits.
const maxSize = 8 << 20

// Install returns data with agate's hooks (Hooks) in a block at its end,
// each running command with Codex's timeout set to timeout seconds,
// replacing agate's block of before. source is the absolute path Codex
// keys the file's hooks by. It returns the trust each hook needs; with
// trustHere (the file is the user's config.toml, the one layer Codex
// reads trust from), the block records it too, and any state Codex
// wrote itself for those keys elsewhere in the file is removed (a table
// cannot be declared twice).
func Install(data []byte, source, command string, timeout int, trustHere bool) ([]byte, []State, error) {
	if command == "" || strings.ContainsAny(command, "\n\r") || !utf8.ValidString(command) {
		return nil, nil, errors.New("the hook command is empty, spans lines or is not UTF-8")
	}
	if timeout < 1 {
		return nil, nil, fmt.Errorf("hook timeout %d s: want at least 1", timeout)
	}
	ownKeys, err := Keys(data, source)
	if err != nil {
		return nil, nil, err
	}
	rest, err := stripBlock(data, BeginMarker, EndMarker, ownKeys)
	if err != nil {
		return nil, nil, err
	}
	doc, err := decode(rest)
	if err != nil {
		return nil, nil, fmt.Errorf("without agate's block: %w", err)
	}
	// agate's hook outside its block (moved there by hand) would run
	// twice once the block is written: the person decides which goes.
	if outside, err := Inspect(rest, source, nil); err != nil {
		return nil, nil, err
	} else if len(outside.Entries) > 0 {
		e := outside.Entries[0]
		return nil, nil, fmt.Errorf("%w: agate's %s hook (%s) is outside agate's block: remove it, then install again", ErrOutside, e.Event, e.Command)
	}
	var b strings.Builder
	b.WriteString(BeginMarker + "\n")
	b.WriteString("# Written by `agate hooks install codex`; `agate hooks uninstall codex` removes it.\n")
	b.WriteString("# agate rewrites this block whole: keep your own settings outside it.\n")
	var states []State
	for _, s := range Hooks() {
		n, err := groupCount(doc, s.Event)
		if err != nil {
			return nil, nil, err
		}
		h := Hook{Event: s.Event, Matcher: s.Matcher, Command: command, Timeout: timeout}
		fmt.Fprintf(&b, "[[hooks.%s]]\n", s.Event)
		if s.Matcher != "" {
			fmt.Fprintf(&b, "matcher = %s\n", tomledit.String(s.Matcher))
		}
		fmt.Fprintf(&b, "[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n", s.Event, tomledit.String(command), timeout)
		states = append(states, State{Key: Key(source, s.Event, n, 0), Hash: h.Hash()})
	}
	if trustHere {
		keys := ownKeys
		for _, st := range states {
			keys = append(keys, st.Key)
		}
		if rest, err = removeStates(rest, keys); err != nil {
			return nil, nil, err
		}
		writeStates(&b, states)
	}
	b.WriteString(EndMarker + "\n")
	out := appendBlock(rest, b.String())
	if err := check(out, source, command, states, trustHere); err != nil {
		return nil, nil, err
	}
	return out, states, nil
}

// InstallTrust returns the user's config.toml (data) with agate's trust
// for the hooks of another file (source, a project's config.toml) in a
// block of its own, replacing the one of before; state Codex wrote itself
// for those keys elsewhere is removed.
//
// before are the keys of agate's hooks in source before this install
// (their trust goes); any other state inside agate's block (Codex may
// write the trust of a hook of the person's there) is kept.
func InstallTrust(data []byte, source string, states []State, before []string) ([]byte, error) {
	if _, err := decode(data); err != nil {
		return nil, err
	}
	keys := append([]string(nil), before...)
	for _, st := range states {
		keys = append(keys, st.Key)
	}
	begin, end := trustMarkers(source)
	rest, err := stripBlock(data, begin, end, keys)
	if err != nil {
		return nil, err
	}
	if rest, err = removeStates(rest, keys); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(begin + "\n")
	b.WriteString("# Written by `agate hooks install codex --project`: Codex reads trust only from this file.\n")
	writeStates(&b, states)
	b.WriteString(end + "\n")
	out := appendBlock(rest, b.String())
	if _, err := decode(out); err != nil {
		return nil, fmt.Errorf("agate's edit would not parse, so nothing was written: %w", err)
	}
	return out, nil
}

// Uninstall returns data without agate's block, and without the trust
// state of agate's hooks wherever it is in the file (Codex may have
// written some itself). It reports whether anything changed.
func Uninstall(data []byte, source string) ([]byte, bool, error) {
	keys, err := Keys(data, source)
	if err != nil {
		return nil, false, err
	}
	return without(data, BeginMarker, EndMarker, keys)
}

// Keys returns the hook-state keys of agate's hooks in data, the
// config.toml Codex keys by source, wherever they are in it.
func Keys(data []byte, source string) ([]string, error) {
	st, err := Inspect(data, source, nil)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, e := range st.Entries {
		keys = append(keys, e.Key)
	}
	return keys, nil
}

// UninstallTrust returns the user's config.toml without agate's trust
// block for source, and without state for keys (agate's hooks found in
// source) elsewhere in it.
func UninstallTrust(data []byte, source string, keys []string) ([]byte, bool, error) {
	if _, err := decode(data); err != nil {
		return nil, false, err
	}
	begin, end := trustMarkers(source)
	return without(data, begin, end, keys)
}

// without returns data without the block between begin and end and
// without the state of keys, checked to parse; it reports whether
// anything changed.
func without(data []byte, begin, end string, keys []string) ([]byte, bool, error) {
	rest, err := stripBlock(data, begin, end, keys)
	if err != nil {
		return nil, false, err
	}
	if rest, err = removeStates(rest, keys); err != nil {
		return nil, false, err
	}
	if _, err := decode(rest); err != nil {
		return nil, false, fmt.Errorf("agate's edit would not parse, so nothing was written: %w", err)
	}
	return rest, !bytes.Equal(rest, data), nil
}

func writeStates(b *strings.Builder, states []State) {
	for _, st := range states {
		fmt.Fprintf(b, "[hooks.state.%s]\ntrusted_hash = %s\n", tomledit.String(st.Key), tomledit.String(st.Hash))
	}
}

// appendBlock puts block at the end of data, after a blank line, with
// data's line ends (CRLF where data has one). What data ends with stays,
// so that cutBlock gives it back: only a last line without its newline
// gets one.
func appendBlock(data []byte, block string) []byte {
	nl := newline(data)
	var b bytes.Buffer
	if len(bytes.TrimSpace(data)) > 0 {
		b.Write(data)
		if !bytes.HasSuffix(data, []byte("\n")) {
			b.WriteString(nl)
		}
		b.WriteString(nl)
	}
	b.WriteString(strings.ReplaceAll(block, "\n", nl))
	return b.Bytes()
}

// newline is the line end data uses: CRLF where it has one, else LF.
func newline(data []byte) string {
	if bytes.Contains(data, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// check parses out and makes sure each of agate's hooks is where its key
// says, running command, and, with trusted, trusted.
func check(out []byte, source, command string, states []State, trusted bool) error {
	if _, err := decode(out); err != nil {
		return fmt.Errorf("agate's edit would not parse, so nothing was written: %w", err)
	}
	st, err := Inspect(out, source, out)
	if err != nil {
		return err
	}
	for _, want := range states {
		found := false
		for _, e := range st.Entries {
			if e.Key == want.Key && e.Command == command && e.Hash == want.Hash {
				found = true
				if trusted && e.Trust != Trusted {
					return fmt.Errorf("agate's hook %s would not be trusted (%s), so nothing was written", want.Key, e.Trust)
				}
			}
		}
		if !found {
			return fmt.Errorf("agate's hook %s would not be where its key says, so nothing was written", want.Key)
		}
	}
	return nil
}

// decode parses data as TOML. An error names the line and column.
func decode(data []byte) (map[string]any, error) {
	if len(data) > maxSize {
		return nil, fmt.Errorf("larger than %d MiB: not reading it", maxSize>>20)
	}
	doc := map[string]any{}
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%w: line %d, column %d: %s", ErrNotTOML, row, col, de.Error())
		}
		return nil, fmt.Errorf("%w: %v", ErrNotTOML, err)
	}
	return doc, nil
}

// groupCount is the number of matcher groups of event in a decoded file.
func groupCount(doc map[string]any, event string) (int, error) {
	hooks, ok := doc["hooks"]
	if !ok {
		return 0, nil
	}
	hm, ok := hooks.(map[string]any)
	if !ok {
		return 0, errors.New("hooks is not a table")
	}
	groups, ok := hm[event]
	if !ok {
		return 0, nil
	}
	list, ok := groups.([]any)
	if !ok {
		return 0, fmt.Errorf("hooks.%s is not a list of matcher groups", event)
	}
	return len(list), nil
}

// removeBlock removes every block between a begin and an end marker line,
// both included.
//
// A marker counts only as a comment of its own line, as TOML's parser
// reads it: the same text inside a multi-line string is the person's.
func removeBlock(data []byte, begin, end string) ([]byte, error) {
	rest, _, err := cutBlock(data, begin, end)
	return rest, err
}

// stripBlock is removeBlock, keeping the state tables inside the block
// whose keys are not in own: Codex, trusting a hook of the person's,
// may add its [hooks.state."KEY"] beside agate's, inside the block.
// They are put back at the end of what stays.
func stripBlock(data []byte, begin, end string, own []string) ([]byte, error) {
	rest, removed, err := cutBlock(data, begin, end)
	if err != nil || len(removed) == 0 {
		return rest, err
	}
	mine := map[string]bool{}
	for _, k := range own {
		mine[k] = true
	}
	var keep bytes.Buffer
	err = tables(removed, func(path []string, text []byte) {
		if len(path) == 3 && path[0] == "hooks" && path[1] == "state" && !mine[strings.TrimSpace(path[2])] {
			keep.Write(text)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("agate's block: %w", err)
	}
	if keep.Len() == 0 {
		return rest, nil
	}
	nl := newline(data)
	out := bytes.TrimRight(rest, " \t\r\n")
	if len(out) > 0 {
		out = append(out, nl+nl...)
	}
	return append(out, bytes.TrimRight(keep.Bytes(), " \t\r\n")...), nil
}

// tables calls fn with each table header's path in data and its text,
// from its header line to the next header (or the end). The path of an
// array of tables starts with "[]": it is never a state table.
func tables(data []byte, fn func(path []string, text []byte)) error {
	doc, err := tomledit.Scan(string(data))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotTOML, err)
	}
	for i, h := range doc.Headers {
		end := len(data)
		if i+1 < len(doc.Headers) {
			end = doc.Headers[i+1].Start
		}
		text := data[h.Start:end]
		if len(text) > 0 && text[len(text)-1] != '\n' {
			text = append(text[:len(text):len(text)], '\n')
		}
		path := h.Path
		if h.Array {
			path = append([]string{"[]"}, path...)
		}
		fn(path, text)
	}
	return nil
}

// cutBlock removes every block between a begin and an end marker line,
// both included, and returns what stays and what was inside.
func cutBlock(data []byte, begin, end string) ([]byte, []byte, error) {
	doc, err := tomledit.Scan(string(data))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNotTOML, err)
	}
	var out, removed bytes.Buffer
	in := false
	for at, rest := 0, data; len(rest) > 0; {
		line, start := rest, at
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		at += len(line)
		text := strings.TrimSpace(string(line))
		if !doc.CommentLine(start) {
			text = "" // not a comment line: never a marker
		}
		switch text {
		case begin:
			if in {
				return nil, nil, fmt.Errorf("%w: %q twice without %q", ErrUnbalanced, begin, end)
			}
			in = true
			continue
		case end:
			if !in {
				return nil, nil, fmt.Errorf("%w: %q without %q before it", ErrUnbalanced, end, begin)
			}
			in = false
			continue
		}
		if in {
			removed.Write(line)
		} else {
			out.Write(line)
		}
	}
	if in {
		return nil, nil, fmt.Errorf("%w: %q without %q after it: fix the file by hand", ErrUnbalanced, begin, end)
	}
	res := out.Bytes()
	if len(res) < len(data) {
		// The blank line appendBlock put before the block goes with it.
		switch {
		case bytes.HasSuffix(res, []byte("\n\r\n")):
			res = res[:len(res)-2]
		case bytes.HasSuffix(res, []byte("\n\n")):
			res = res[:len(res)-1]
		}
		if len(bytes.TrimSpace(res)) == 0 {
			res = []byte{}
		}
	}
	return res, removed.Bytes(), nil
}

// removeStates removes the tables [hooks.state."KEY"] for the given keys,
// each from its header to the next header (or the end of the file).
func removeStates(data []byte, keys []string) ([]byte, error) {
	if len(keys) == 0 {
		return data, nil
	}
	drop := map[string]bool{}
	for _, k := range keys {
		drop[k] = true
	}
	doc, err := tomledit.Scan(string(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotTOML, err)
	}
	var out bytes.Buffer
	at := 0
	for i, h := range doc.Headers {
		if h.Array || len(h.Path) != 3 || h.Path[0] != "hooks" || h.Path[1] != "state" || !drop[strings.TrimSpace(h.Path[2])] {
			continue
		}
		end := len(data)
		if i+1 < len(doc.Headers) {
			end = doc.Headers[i+1].Start
		}
		out.Write(data[at:h.Start])
		at = end
	}
	if at == 0 {
		return data, nil
	}
	out.Write(data[at:])
	return out.Bytes(), nil
}
