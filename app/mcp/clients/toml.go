package clients

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/agatehq/agate/app/internal/tomltext"
)

// Codex's config.toml is edited where go-toml's parser says the values
// are: only the text of a server's command and args changes (an args
// line, with the command's dotted key before it, is added after the
// command's when there was none, and removed again when Uninstall gives
// back none). github.com/pelletier/go-toml/
// v2/unstable promises no stable API: go.mod pins its version, and the
// tests and the fuzz test are what a bump must pass.

// tomlEntry is one key-value's place in the text.
type tomlEntry struct {
	start, end       int // its line(s), the last newline included
	valStart, valEnd int // the value's text
	// prefix is the text of the key before its last part: "inner." for
	// inner.command, "" for command.
	prefix string
	// elems are where an array value's elements are, as written (a
	// literal string stays one), nil for another value.
	elems []span
}

// span is a range of the text.
type span struct{ start, end int }

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
			key, first, lastStart, last := keyPath(e.Key()), -1, 0, 0
			for it := e.Key(); it.Next(); {
				k := it.Node()
				if first < 0 {
					first = int(k.Raw.Offset)
				}
				lastStart, last = int(k.Raw.Offset), int(k.Raw.Offset+k.Raw.Length)
			}
			end := int(e.Raw.Offset + e.Raw.Length)
			vs := last
			for vs < end && (data[vs] == ' ' || data[vs] == '\t' || data[vs] == '=') {
				vs++
			}
			te := tomlEntry{start: bytes.LastIndexByte(data[:vs], '\n') + 1, end: lineEnd(data, end), valStart: vs, valEnd: end,
				prefix: string(data[first:lastStart])}
			if v := e.Value(); v.Kind == unstable.Array {
				te.elems = []span{}
				for it := v.Children(); it.Next(); {
					if c := it.Node(); c.Kind != unstable.Comment {
						te.elems = append(te.elems, span{int(c.Raw.Offset), int(c.Raw.Offset + c.Raw.Length)})
					}
				}
			}
			path := strings.Join(append(append([]string{}, table...), key...), "\x00")
			out[path] = te
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
		switch {
		case !undo && wrapped && s.Command != o.Agate:
			// Through another agate binary (moved, reinstalled): this one.
			splices = append(splices, splice{ce.valStart, ce.valEnd, tomltext.String(o.Agate)})
			s.Now = append([]string{o.Agate}, s.Args...)
			res.Rewritten = append(res.Rewritten, s)
			continue
		case undo && !wrapped, !undo && wrapped:
			res.Proxied = append(res.Proxied, s)
			continue
		case undo:
			splices = append(splices, unwrapSplices(data, ce, ae, hasArgs, s.Args, origCmd, origArgs)...)
			s.Now = append([]string{origCmd}, origArgs...)
		default:
			splices = append(splices, wrapSplices(data, ce, ae, hasArgs, o.Agate, s.Name)...)
			_, args := wrap(o.Agate, s.Name, s.Command, s.Args)
			s.Now = append([]string{o.Agate}, args...)
		}
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

// wrapSplices rewrite one server to run through agate as name: the
// command becomes agate, and agate's args go before the server's own,
// right after the '[', the original command among them as it was
// written (a literal string stays one). A server with no args gets an
// args line after its command's; one with an empty array gets agate's
// args in it after a space, so that Uninstall can tell the two apart.
func wrapSplices(data []byte, ce, ae tomlEntry, hasArgs bool, agate, name string) []splice {
	head := tomlList([]string{"mcp", "run", "--name", name, "--"})
	head = head[1:len(head)-1] + ", " + string(data[ce.valStart:ce.valEnd])
	out := []splice{{ce.valStart, ce.valEnd, tomltext.String(agate)}}
	switch {
	case hasArgs && len(ae.elems) > 0:
		return append(out, splice{ae.valStart + 1, ae.valStart + 1, head + ", "})
	case hasArgs:
		return append(out, splice{ae.valStart + 1, ae.valStart + 1, " " + head})
	}
	indent := "" // the command line's
	for i := ce.start; i < len(data) && (data[i] == ' ' || data[i] == '\t'); i++ {
		indent += string(data[i])
	}
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	line := indent + ce.prefix + "args = [" + head + "]"
	if ce.end == len(data) && !bytes.HasSuffix(data, []byte("\n")) {
		return append(out, splice{ce.end, ce.end, nl + line})
	}
	return append(out, splice{ce.end, ce.end, line + nl})
}

// unwrapSplices undo wrapSplices for a server whose args are args: the
// command and args before agate's. Where the text is not as
// wrapSplices left it (edited since by hand), the command and the args
// are written anew.
func unwrapSplices(data []byte, ce, ae tomlEntry, hasArgs bool, args []string, cmd string, rest []string) []splice {
	n := len(args) - len(rest) // agate's args and the command
	cmdText := tomltext.String(cmd)
	exact := hasArgs && len(ae.elems) == len(args) && n >= 1 && data[ae.valStart] == '['
	if exact {
		cmdText = string(data[ae.elems[n-1].start:ae.elems[n-1].end])
	}
	out := []splice{{ce.valStart, ce.valEnd, cmdText}}
	after := ae.valStart + 1
	switch {
	case exact && len(rest) > 0 && ae.elems[0].start == after && bytes.HasPrefix(data[ae.elems[n-1].end:], []byte(", ")):
		return append(out, splice{after, ae.elems[n-1].end + 2, ""})
	case exact && len(rest) == 0 && ae.elems[0].start == after+1 && data[after] == ' ':
		return append(out, splice{after, ae.elems[n-1].end, ""}) // it was []
	case hasArgs && len(rest) == 0:
		// The line agate added, and the newline it put before it at
		// the end of a file that has none.
		start := ae.start
		if ae.end == len(data) && !bytes.HasSuffix(data, []byte("\n")) && start > 0 {
			start--
			if start > 0 && data[start-1] == '\r' {
				start--
			}
		}
		return append(out, splice{start, ae.end, ""})
	case hasArgs:
		return append(out, splice{ae.valStart, ae.valEnd, tomlList(rest)})
	}
	return out
}

func tomlList(list []string) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = tomltext.String(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
