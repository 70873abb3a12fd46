package mcpinstall

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex's config.toml is edited where go-toml's parser says the values
// are: only the text of a server's command and args changes (an args
// line is added after the command's when there was none, and removed
// again when Uninstall gives back none). github.com/pelletier/go-toml/
// v2/unstable promises no stable API: go.mod pins its version, and the
// tests and the fuzz test are what a bump must pass.

// tomlEntry is one key-value's place in the text.
type tomlEntry struct {
	start, end       int // its line(s), the last newline included
	valStart, valEnd int // the value's text
}

// scanTOMLEntries returns where each key-value of data is, by its whole
// path (the table's path, then the key's); inline tables and arrays of
// tables are not looked into.
func scanTOMLEntries(data []byte) (map[string]tomlEntry, error) {
	var p unstable.Parser
	p.Reset(data)
	out := map[string]tomlEntry{}
	var table []string
	arrayTable := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table, arrayTable = keyPath(e.Key()), e.Kind == unstable.ArrayTable
		case unstable.KeyValue:
			if arrayTable {
				continue
			}
			key, last := keyPath(e.Key()), keyEnd(e.Key())
			end := int(e.Raw.Offset + e.Raw.Length)
			vs := last
			for vs < end && (data[vs] == ' ' || data[vs] == '\t' || data[vs] == '=') {
				vs++
			}
			path := strings.Join(append(append([]string{}, table...), key...), "\x00")
			out[path] = tomlEntry{start: bytes.LastIndexByte(data[:vs], '\n') + 1, end: lineEnd(data, end), valStart: vs, valEnd: end}
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("not TOML: %w", err)
	}
	return out, nil
}

func keyPath(it unstable.Iterator) []string {
	var path []string
	for it.Next() {
		path = append(path, string(it.Node().Data))
	}
	return path
}

func keyEnd(it unstable.Iterator) int {
	last := 0
	for it.Next() {
		k := it.Node()
		last = int(k.Raw.Offset + k.Raw.Length)
	}
	return last
}

func lineEnd(data []byte, i int) int {
	if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(data)
}

// splice is one change of the text.
type splice struct {
	start, end int
	text       string
}

// editTOML edits the [mcp_servers.NAME] tables of a Codex config.
func editTOML(data []byte, t Target, o Options, undo bool) ([]byte, Result, error) {
	var res Result
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, res, fmt.Errorf("not TOML: %w", err)
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	if len(servers) == 0 {
		return data, res, nil
	}
	entries, err := scanTOMLEntries(data)
	if err != nil {
		return nil, res, err
	}
	keys := make([]string, 0, len(servers))
	for k := range servers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var splices []splice
	for _, key := range keys {
		s := Server{Where: "mcp_servers", Key: key, Name: ServerName(key)}
		srv, ok := servers[key].(map[string]any)
		if !ok {
			s.Why = "not a table"
			res.Skipped = append(res.Skipped, s)
			continue
		}
		if u, ok := srv["url"].(string); ok {
			s.URL = u
			res.Remote = append(res.Remote, s)
			continue
		}
		cmd, ok := srv["command"].(string)
		if !ok || cmd == "" {
			s.Why = "it has no command"
			res.Skipped = append(res.Skipped, s)
			continue
		}
		s.Command = cmd
		if a, present := srv["args"]; present {
			list, ok := a.([]any)
			strs := make([]string, 0, len(list))
			for _, x := range list {
				str, isStr := x.(string)
				ok = ok && isStr
				strs = append(strs, str)
			}
			if !ok {
				s.Why = "its args are not a list of strings"
				res.Skipped = append(res.Skipped, s)
				continue
			}
			s.Args = strs
		}
		ce, ok := entries["mcp_servers\x00"+key+"\x00command"]
		ae, hasArgs := entries["mcp_servers\x00"+key+"\x00args"]
		if !ok || (srv["args"] != nil && !hasArgs) {
			s.Why = "it is written as an inline table, which agate does not edit"
			res.Skipped = append(res.Skipped, s)
			continue
		}
		origCmd, origArgs, wrapped := unwrap(s.Command, s.Args)
		var newCmd string
		var newArgs []string
		switch {
		case !undo && wrapped && s.Command != o.Agate:
			// Through another agate binary (moved, reinstalled): this one.
			splices = append(splices, splice{ce.valStart, ce.valEnd, tomlString(o.Agate)})
			s.Now = append([]string{o.Agate}, s.Args...)
			res.Rewritten = append(res.Rewritten, s)
			continue
		case undo && !wrapped, !undo && wrapped:
			res.Proxied = append(res.Proxied, s)
			continue
		case undo:
			newCmd, newArgs = origCmd, origArgs
		default:
			newCmd, newArgs = wrap(o.Agate, s.Name, s.Command, s.Args)
		}
		splices = append(splices, splice{ce.valStart, ce.valEnd, tomlString(newCmd)})
		switch {
		case hasArgs && undo && len(newArgs) == 0:
			splices = append(splices, splice{ae.start, ae.end, ""})
		case hasArgs:
			splices = append(splices, argsSplice(data, ae, s.Args, newArgs, undo))
		case len(newArgs) > 0:
			indent := "" // the command line's
			for i := ce.start; i < len(data) && (data[i] == ' ' || data[i] == '\t'); i++ {
				indent += string(data[i])
			}
			nl := "\n"
			if bytes.Contains(data, []byte("\r\n")) {
				nl = "\r\n"
			}
			line := indent + "args = " + tomlList(newArgs) + nl
			if ce.end == len(data) && !bytes.HasSuffix(data, []byte("\n")) {
				line = nl + indent + "args = " + tomlList(newArgs)
			}
			splices = append(splices, splice{ce.end, ce.end, line})
		}
		s.Now = append([]string{newCmd}, newArgs...)
		res.Rewritten = append(res.Rewritten, s)
	}
	sort.Slice(splices, func(i, j int) bool { return splices[i].start > splices[j].start })
	out := append([]byte{}, data...)
	for _, sp := range splices {
		out = append(out[:sp.start], append([]byte(sp.text), out[sp.end:]...)...)
	}
	// What was written must read back as meant.
	var check map[string]any
	if _, err := toml.Decode(string(out), &check); err != nil {
		return nil, res, fmt.Errorf("the edit does not parse (%v): not writing it", err)
	}
	after, _ := check["mcp_servers"].(map[string]any)
	for _, s := range res.Rewritten {
		srv, _ := after[s.Key].(map[string]any)
		cmd, _ := srv["command"].(string)
		_, _, wrapped := unwrap(cmd, anyStrings(srv["args"]))
		if wrapped == undo {
			return nil, res, errors.New("the edit does not read back as meant: not writing it")
		}
	}
	return out, res, nil
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// argsSplice changes an args array's text from old to new. Where one
// is the other with elements put before it (Install) or taken from its
// start (Uninstall), only those elements' text changes, after the '[':
// the rest of the array, its layout and its comments stay. Else the
// whole value is written anew.
func argsSplice(data []byte, e tomlEntry, old, new []string, undo bool) splice {
	whole := splice{e.valStart, e.valEnd, tomlList(new)}
	text := string(data[e.valStart:e.valEnd])
	if !strings.HasPrefix(text, "[") {
		return whole
	}
	var added []string
	switch {
	case !undo && len(old) > 0 && len(new) > len(old):
		added = new[:len(new)-len(old)]
	case undo && len(new) > 0 && len(old) > len(new):
		added = old[:len(old)-len(new)]
	default:
		return whole
	}
	parts := make([]string, len(added))
	for i, a := range added {
		parts[i] = tomlString(a)
	}
	pre := strings.Join(parts, ", ") + ", "
	if !undo {
		return splice{e.valStart + 1, e.valStart + 1, pre}
	}
	if strings.HasPrefix(text[1:], pre) {
		return splice{e.valStart + 1, e.valStart + 1 + len(pre), ""}
	}
	return whole
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlList(list []string) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
