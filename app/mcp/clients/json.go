package clients

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agatehq/agate/app/internal/jsonc"
	"github.com/tailscale/hujson"
)

// editJSON edits the servers of a JSON (or JSONC) file, through jsonc:
// only the text of a server's command and args changes, every comment
// stays, and a plain JSON file stays plain JSON.
func editJSON(data []byte, t Target, o Options, undo bool) ([]byte, Result, error) {
	var res Result
	if len(bytes.TrimSpace(data)) == 0 {
		return data, res, nil
	}
	d, err := jsonc.Parse(data)
	if err != nil {
		return nil, res, err
	}
	for _, path := range t.Roots {
		var err error
		werr := walk(d, d.Root(), path, nil, func(where []string, servers jsonc.Box) {
			if err != nil {
				return
			}
			obj := servers.Object()
			if dup, ok := duplicate(obj); ok {
				err = fmt.Errorf("%s names server %q twice", strings.Join(where, "."), dup)
				return
			}
			for i := range obj.Members {
				m := &obj.Members[i]
				s := Server{Where: strings.Join(where, "."), Key: literalString(m.Name)}
				s.Name = ServerName(s.Key)
				if _, ok := m.Value.Value.(*hujson.Object); !ok {
					s.Why = "not a JSON object"
					res.Skipped = append(res.Skipped, s)
					continue
				}
				editServer(d, servers, &m.Value, s, t, o, undo, &res)
			}
		})
		if err == nil {
			err = werr
		}
		if err != nil {
			return nil, res, err
		}
	}
	out, err := d.Pack()
	if err != nil {
		return nil, res, err
	}
	return out, res, nil
}

// walk calls fn with each object at path under b ("*": any member).
// A name on the path that an object holds twice is an error: a client
// reads one of the two, and agate cannot tell which.
func walk(d *jsonc.Doc, b jsonc.Box, path, where []string, fn func(where []string, o jsonc.Box)) error {
	if len(path) == 0 {
		fn(where, b)
		return nil
	}
	obj := b.Object()
	if dup, ok := duplicate(obj); ok && (path[0] == "*" || dup == path[0]) {
		return fmt.Errorf("%q is named twice", strings.Join(append(where, dup), "."))
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		name := literalString(m.Name)
		if path[0] != "*" && name != path[0] {
			continue
		}
		if _, ok := m.Value.Value.(*hujson.Object); ok {
			if err := walk(d, d.BoxOf(b, &m.Value), path[1:], append(append([]string{}, where...), name), fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// editServer rewrites (or restores) one server object, v in servers.
func editServer(d *jsonc.Doc, servers jsonc.Box, v *hujson.Value, s Server, t Target, o Options, undo bool, res *Result) {
	b := d.BoxOf(servers, v)
	argvCommand := t.ArgvCommand
	obj := b.Object()
	if dup, ok := duplicate(obj); ok {
		s.Why = fmt.Sprintf("it names %q twice", dup)
		res.Skipped = append(res.Skipped, s)
		return
	}
	if entry, ok := rewrittenRemote(obj, argvCommand); ok {
		editRewrittenRemote(d, servers, v, s, entry, t, o, undo, res)
		return
	}
	cmd, args, typ := -1, -1, ""
	for i := range obj.Members {
		switch name := literalString(obj.Members[i].Name); name {
		case "command":
			cmd = i
		case "args":
			args = i
		case "type", "transport":
			typ = literalString(obj.Members[i].Value)
		case "url", "httpUrl", "serverUrl":
			s.URL = literalString(obj.Members[i].Value)
		}
	}
	// "local" is Copilot CLI's and OpenCode's word for a server agate can
	// start ("remote" theirs for one it reaches).
	if s.URL != "" || (typ != "" && typ != "stdio" && typ != "local") {
		if s.URL == "" {
			s.URL = "(" + typ + ")"
		}
		p := planRemote(t.Client, obj)
		s.SSE = p.sse
		for _, h := range p.headers {
			s.Headers = append(s.Headers, h.name)
		}
		entry := jsonc.Raw(v)
		switch {
		case p.why != "":
			s.Why = p.why
		case !utf8.ValidString(entry):
			// It would not come back as it was from the environment.
			s.Why = "its entry is not written in UTF-8"
		case undo:
			// Inspect or Uninstall: it does not run through agate.
		case o.Leave != nil:
			s.Why = o.Leave(s)
		}
		if undo || s.Why != "" {
			res.Remote = append(res.Remote, s)
			return
		}
		d.Set(servers, v, p.node(obj, o.Agate, s.Name, entry, argvCommand))
		s.Now = append([]string{o.Agate}, p.args(s.Name)...)
		res.Rewritten = append(res.Rewritten, s)
		return
	}
	if cmd < 0 {
		s.Why = "it has no command"
		res.Skipped = append(res.Skipped, s)
		return
	}
	if _, ok := obj.Members[cmd].Value.Value.(*hujson.Array); ok && argvCommand && args < 0 {
		editCommandArray(d, d.BoxOf(b, &obj.Members[cmd].Value), s, o, undo, res)
		return
	}
	lit, ok := obj.Members[cmd].Value.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' || lit.String() == "" {
		s.Why = "its command is not a string"
		res.Skipped = append(res.Skipped, s)
		return
	}
	s.Command = lit.String()
	if args >= 0 {
		list, ok := stringArray(obj.Members[args].Value)
		if !ok {
			s.Why = "its args are not a list of strings"
			res.Skipped = append(res.Skipped, s)
			return
		}
		s.Args = list
	}
	argsBox := func() jsonc.Box { return d.BoxOf(b, &obj.Members[args].Value) }
	origCmd, origArgs, wrapped := unwrap(s.Command, s.Args)
	var newCmd string
	var newArgs []string
	switch {
	case !undo && wrapped && s.Command != o.Agate:
		// Through another agate binary (moved, reinstalled): this one.
		d.Set(b, &obj.Members[cmd].Value, jsonc.String(o.Agate))
		s.Now = append([]string{o.Agate}, s.Args...)
		res.Rewritten = append(res.Rewritten, s)
		return
	case undo && !wrapped, !undo && wrapped:
		res.Proxied = append(res.Proxied, s)
		return
	case undo:
		newCmd, newArgs = origCmd, origArgs
	default:
		newCmd, newArgs = wrap(o.Agate, s.Name, s.Command, s.Args)
	}
	// The command keeps its text as written (its escapes) on the way
	// into agate's args and back out of them.
	cmdText := jsonc.String(newCmd)
	if n := len(s.Args) - len(newArgs); undo && args >= 0 && n >= 1 && n <= len(s.Args) {
		cmdText = jsonc.Lit([]byte(jsonc.Raw(&argsBox().Array().Elements[n-1])))
	}
	d.Set(b, &obj.Members[cmd].Value, cmdText)
	switch {
	case args >= 0 && undo && len(newArgs) == 0:
		arr := argsBox().Array()
		if len(arr.Elements) > 0 && string(arr.Elements[0].BeforeExtra) == " " {
			d.DropFirst(argsBox(), len(arr.Elements)) // it was [] (see below)
		} else {
			d.Remove(b, args) // the member agate added
		}
	case args >= 0 && undo:
		d.DropFirst(argsBox(), len(s.Args)-len(newArgs))
	case args >= 0 && len(s.Args) > 0:
		d.PrependStrings(argsBox(), newArgs[:len(newArgs)-len(s.Args)])
	case args >= 0:
		// An empty array: agate's args go in it after a space, which
		// tells Uninstall to give back [] rather than no args (Claude
		// Code writes "args": [] for a server without any).
		d.PrependStrings(argsBox(), newArgs)
		argsBox().Array().Elements[0].BeforeExtra = hujson.Extra(" ")
	case len(newArgs) > 0:
		elems := make([]jsonc.Node, len(newArgs))
		for i, a := range newArgs {
			elems[i] = jsonc.String(a)
		}
		d.InsertAfter(b, cmd, "args", jsonc.Inline(elems...))
	}
	if !undo {
		for i := range obj.Members {
			m := &obj.Members[i]
			if arr, ok := m.Value.Value.(*hujson.Array); ok && literalString(m.Name) == "args" && len(arr.Elements) > 5 {
				// After "mcp", "run", "--name", NAME, "--".
				d.Set(d.BoxOf(b, &m.Value), &arr.Elements[5], jsonc.Lit(bytes.Clone(lit)))
			}
		}
	}
	s.Now = append([]string{newCmd}, newArgs...)
	res.Rewritten = append(res.Rewritten, s)
}

// editRewrittenRemote handles a remote server Install rewrote (entry is
// what it was): Install points it at this agate binary, Uninstall gives
// entry back as it was written.
func editRewrittenRemote(d *jsonc.Doc, servers jsonc.Box, v *hujson.Value, s Server, entry string, t Target, o Options, undo bool, res *Result) {
	b := d.BoxOf(servers, v)
	obj := b.Object()
	orig, why := restoreRemote(t.Client, obj, entry, s.Name, t.ArgvCommand)
	if why != "" {
		s.Why = why
		res.Skipped = append(res.Skipped, s)
		return
	}
	p := planRemote(t.Client, orig)
	s.URL, s.SSE = p.url, p.sse
	for _, h := range p.headers {
		s.Headers = append(s.Headers, h.name)
	}
	if undo {
		d.Set(servers, v, jsonc.Lit([]byte(entry)))
		s.Now = []string{shownURL(p.url)}
		res.Rewritten = append(res.Rewritten, s)
		return
	}
	cmd, _ := jsonc.Get(obj, "command")
	if t.ArgvCommand {
		arr := d.BoxOf(b, cmd)
		if first := arr.Array().Elements[0]; literalString(first) != o.Agate {
			d.Set(arr, &arr.Array().Elements[0], jsonc.String(o.Agate))
			s.Now = append([]string{o.Agate}, p.args(s.Name)...)
			res.Rewritten = append(res.Rewritten, s)
			return
		}
	} else if literalString(*cmd) != o.Agate {
		d.Set(b, cmd, jsonc.String(o.Agate))
		s.Now = append([]string{o.Agate}, p.args(s.Name)...)
		res.Rewritten = append(res.Rewritten, s)
		return
	}
	res.Proxied = append(res.Proxied, s)
}

// editCommandArray rewrites (or restores) a server whose command is one
// array, the program and then its arguments (OpenCode's "command":
// ["npx", "-y", "PKG"]), in cmd: agate's words go in front of it, and
// the elements the client wrote keep their text.
func editCommandArray(d *jsonc.Doc, cmd jsonc.Box, s Server, o Options, undo bool, res *Result) {
	argv, ok := stringArray(*cmd.Value())
	if !ok || len(argv) == 0 || argv[0] == "" {
		s.Why = "its command is not a list of strings"
		res.Skipped = append(res.Skipped, s)
		return
	}
	s.Command, s.Args = argv[0], argv[1:]
	origCmd, origArgs, wrapped := unwrap(s.Command, s.Args)
	switch {
	case !undo && wrapped && s.Command != o.Agate:
		// Through another agate binary (moved, reinstalled): this one.
		d.Set(cmd, &cmd.Array().Elements[0], jsonc.String(o.Agate))
		s.Now = append([]string{o.Agate}, s.Args...)
		res.Rewritten = append(res.Rewritten, s)
	case undo && !wrapped, !undo && wrapped:
		res.Proxied = append(res.Proxied, s)
	case undo:
		d.DropFirst(cmd, len(argv)-1-len(origArgs))
		s.Now = append([]string{origCmd}, origArgs...)
		res.Rewritten = append(res.Rewritten, s)
	default:
		newCmd, newArgs := wrap(o.Agate, s.Name, s.Command, s.Args)
		d.PrependStrings(cmd, append([]string{newCmd}, newArgs[:len(newArgs)-len(argv)]...))
		s.Now = append([]string{newCmd}, newArgs...)
		res.Rewritten = append(res.Rewritten, s)
	}
}

// duplicate returns a member name obj holds twice; ok is false when
// there is none.
func duplicate(obj *hujson.Object) (name string, ok bool) {
	seen := map[string]bool{}
	for _, m := range obj.Members {
		n := literalString(m.Name)
		if seen[n] {
			return n, true
		}
		seen[n] = true
	}
	return "", false
}

func literalString(v hujson.Value) string {
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == '"' {
		return lit.String()
	}
	return ""
}

func stringArray(v hujson.Value) ([]string, bool) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr.Elements))
	for _, e := range arr.Elements {
		lit, ok := e.Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' {
			return nil, false
		}
		out = append(out, lit.String())
	}
	return out, true
}
