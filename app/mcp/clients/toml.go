package clients

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agatehq/agate/app/internal/tomledit"
)

// Codex's config.toml is edited where tomledit.Scan says the values
// are: only the text of a server's command and args changes (an args
// line, with the command's dotted key before it, is added after the
// command's when there was none, and removed again when Uninstall gives
// back none).

// tomlEntries returns where each key-value of data is, by its whole
// path (the table's path, then the key's, joined by NULs); inline tables
// and arrays of tables are not looked into.
func tomlEntries(data []byte) (map[string]tomledit.Entry, error) {
	doc, err := tomledit.Scan(string(data))
	if err != nil {
		return nil, fmt.Errorf("not TOML: %w", err)
	}
	out := map[string]tomledit.Entry{}
	for _, e := range doc.Entries {
		if !doc.InArrayTable(e) {
			out[strings.Join(e.Path, "\x00")] = e
		}
	}
	return out, nil
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
	entries, err := tomlEntries(data)
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
			if !undo {
				s.Why = "agate does not rewrite Codex's remote servers: `agate mcp run --url-env VAR` runs one through agate, written by hand"
			}
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
			splices = append(splices, splice{ce.ValStart, ce.ValEnd, tomledit.String(o.Agate)})
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
func wrapSplices(data []byte, ce, ae tomledit.Entry, hasArgs bool, agate, name string) []splice {
	head := tomlList([]string{"mcp", "run", "--name", name, "--"})
	head = head[1:len(head)-1] + ", " + string(data[ce.ValStart:ce.ValEnd])
	out := []splice{{ce.ValStart, ce.ValEnd, tomledit.String(agate)}}
	switch {
	case hasArgs && len(ae.Elems) > 0:
		return append(out, splice{ae.ValStart + 1, ae.ValStart + 1, head + ", "})
	case hasArgs:
		return append(out, splice{ae.ValStart + 1, ae.ValStart + 1, " " + head})
	}
	indent := "" // the command line's
	for i := ce.Start; i < len(data) && (data[i] == ' ' || data[i] == '\t'); i++ {
		indent += string(data[i])
	}
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	line := indent + ce.Prefix + "args = [" + head + "]"
	if ce.End == len(data) && !bytes.HasSuffix(data, []byte("\n")) {
		return append(out, splice{ce.End, ce.End, nl + line})
	}
	return append(out, splice{ce.End, ce.End, line + nl})
}

// unwrapSplices undo wrapSplices for a server whose args are args: the
// command and args before agate's. Where the text is not as
// wrapSplices left it (edited since by hand), the command and the args
// are written anew.
func unwrapSplices(data []byte, ce, ae tomledit.Entry, hasArgs bool, args []string, cmd string, rest []string) []splice {
	n := len(args) - len(rest) // agate's args and the command
	cmdText := tomledit.String(cmd)
	exact := hasArgs && len(ae.Elems) == len(args) && n >= 1 && data[ae.ValStart] == '['
	if exact {
		cmdText = string(data[ae.Elems[n-1].Start:ae.Elems[n-1].End])
	}
	out := []splice{{ce.ValStart, ce.ValEnd, cmdText}}
	after := ae.ValStart + 1
	switch {
	case exact && len(rest) > 0 && ae.Elems[0].Start == after && bytes.HasPrefix(data[ae.Elems[n-1].End:], []byte(", ")):
		return append(out, splice{after, ae.Elems[n-1].End + 2, ""})
	case exact && len(rest) == 0 && ae.Elems[0].Start == after+1 && data[after] == ' ':
		return append(out, splice{after, ae.Elems[n-1].End, ""}) // it was []
	case hasArgs && len(rest) == 0:
		// The line agate added, and the newline it put before it at
		// the end of a file that has none.
		start := ae.Start
		if ae.End == len(data) && !bytes.HasSuffix(data, []byte("\n")) && start > 0 {
			start--
			if start > 0 && data[start-1] == '\r' {
				start--
			}
		}
		return append(out, splice{start, ae.End, ""})
	case hasArgs:
		return append(out, splice{ae.ValStart, ae.ValEnd, tomlList(rest)})
	}
	return out
}

func tomlList(list []string) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = tomledit.String(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
