package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/agatehq/agate/app/internal/strictjson"
)

// editJSON edits the servers of a JSON (or JSONC) file.
func editJSON(data []byte, t Target, o Options, undo bool) ([]byte, Result, error) {
	var res Result
	if len(bytes.TrimSpace(data)) == 0 {
		return data, res, nil
	}
	if err := strictjson.CheckDepth(data); err != nil {
		return nil, res, err
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, res, errors.New(strings.TrimPrefix(err.Error(), "hujson: "))
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, res, errors.New("not a JSON object")
	}
	standard := v.IsStandard()
	for _, path := range t.Roots {
		var err error
		werr := walk(root, path, nil, func(where []string, servers *hujson.Object) {
			if err != nil {
				return
			}
			if dup, ok := duplicate(servers); ok {
				err = fmt.Errorf("%s names server %q twice", strings.Join(where, "."), dup)
				return
			}
			for i := range servers.Members {
				m := &servers.Members[i]
				s := Server{Where: strings.Join(where, "."), Key: literalString(m.Name)}
				s.Name = ServerName(s.Key)
				obj, ok := m.Value.Value.(*hujson.Object)
				if !ok {
					s.Why = "not a JSON object"
					res.Skipped = append(res.Skipped, s)
					continue
				}
				editServer(obj, s, o, undo, &res)
			}
		})
		if err == nil {
			err = werr
		}
		if err != nil {
			return nil, res, err
		}
	}
	out := v.Pack()
	if standard && !v.IsStandard() {
		return nil, res, errors.New("the edit would put a comment or a trailing comma in a plain JSON file")
	}
	return out, res, nil
}

// walk calls fn with each object at path under obj ("*": any member).
// A name on the path that an object holds twice is an error: a client
// reads one of the two, and agate cannot tell which.
func walk(obj *hujson.Object, path, where []string, fn func(where []string, o *hujson.Object)) error {
	if len(path) == 0 {
		fn(where, obj)
		return nil
	}
	if dup, ok := duplicate(obj); ok && (path[0] == "*" || dup == path[0]) {
		return fmt.Errorf("%q is named twice", strings.Join(append(where, dup), "."))
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		name := literalString(m.Name)
		if path[0] != "*" && name != path[0] {
			continue
		}
		if o, ok := m.Value.Value.(*hujson.Object); ok {
			if err := walk(o, path[1:], append(append([]string{}, where...), name), fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// editServer rewrites (or restores) one server object.
func editServer(obj *hujson.Object, s Server, o Options, undo bool, res *Result) {
	if dup, ok := duplicate(obj); ok {
		s.Why = fmt.Sprintf("it names %q twice", dup)
		res.Skipped = append(res.Skipped, s)
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
	if s.URL != "" || (typ != "" && typ != "stdio") {
		if s.URL == "" {
			s.URL = "(" + typ + ")"
		}
		res.Remote = append(res.Remote, s)
		return
	}
	if cmd < 0 {
		s.Why = "it has no command"
		res.Skipped = append(res.Skipped, s)
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
	origCmd, origArgs, wrapped := unwrap(s.Command, s.Args)
	var newCmd string
	var newArgs []string
	switch {
	case !undo && wrapped && s.Command != o.Agate:
		// Through another agate binary (moved, reinstalled): this one.
		obj.Members[cmd].Value.Value = hujson.String(o.Agate)
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
	var cmdText hujson.ValueTrimmed = hujson.String(newCmd)
	if n := len(s.Args) - len(newArgs); undo && args >= 0 && n >= 1 && n <= len(s.Args) {
		cmdText = obj.Members[args].Value.Value.(*hujson.Array).Elements[n-1].Value
	}
	obj.Members[cmd].Value.Value = cmdText
	switch {
	case args >= 0 && undo && len(newArgs) == 0:
		arr := obj.Members[args].Value.Value.(*hujson.Array)
		if len(arr.Elements) > 0 && string(arr.Elements[0].BeforeExtra) == " " {
			arr.Elements = nil // it was [] (see below)
		} else {
			removeMember(obj, args) // the member agate added
		}
	case args >= 0 && undo:
		arr := obj.Members[args].Value.Value.(*hujson.Array)
		unprefix(arr, len(s.Args)-len(newArgs))
	case args >= 0 && len(s.Args) > 0:
		arr := obj.Members[args].Value.Value.(*hujson.Array)
		prefix(arr, newArgs[:len(newArgs)-len(s.Args)])
	case args >= 0:
		// An empty array: agate's args go in it after a space, which
		// tells Uninstall to give back [] rather than no args (Claude
		// Code writes "args": [] for a server without any).
		arr := obj.Members[args].Value.Value.(*hujson.Array)
		arr.Elements = stringList(newArgs).(*hujson.Array).Elements
		arr.Elements[0].BeforeExtra = hujson.Extra(" ")
	case len(newArgs) > 0:
		insertAfter(obj, cmd, "args", stringList(newArgs))
	}
	if !undo {
		for _, m := range obj.Members {
			if arr, ok := m.Value.Value.(*hujson.Array); ok && literalString(m.Name) == "args" && len(arr.Elements) > 5 {
				// After "mcp", "run", "--name", NAME, "--".
				arr.Elements[5].Value = hujson.Literal(bytes.Clone(lit))
			}
		}
	}
	s.Now = append([]string{newCmd}, newArgs...)
	res.Rewritten = append(res.Rewritten, s)
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

// stringList is a JSON array of strings on one line.
func stringList(list []string) hujson.ValueTrimmed {
	b, _ := json.Marshal(list)
	v, err := hujson.Parse(b)
	if err != nil { // json.Marshal writes JSON
		panic(err)
	}
	// ", " between the elements, as a person writes a list on one line.
	if arr, ok := v.Value.(*hujson.Array); ok {
		for i := 1; i < len(arr.Elements); i++ {
			arr.Elements[i].BeforeExtra = hujson.Extra(" ")
		}
	}
	return v.Value
}

// prefix puts elements before arr's own, laid out as they are: the
// first takes the place of arr's first, the others and arr's first are
// set apart as arr's elements are. The elements, their comments and
// what is around them stay as they were.
func prefix(arr *hujson.Array, elems []string) {
	if len(elems) == 0 || len(arr.Elements) == 0 {
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
		added[i] = hujson.Value{BeforeExtra: hujson.Extra(bytes.Clone(sep)), Value: hujson.String(e)}
	}
	added[0].BeforeExtra = first
	arr.Elements[0].BeforeExtra = sep
	arr.Elements = append(added, arr.Elements...)
}

// unprefix removes the first n elements of arr, giving the first that
// stays the place of the first removed: prefix undone.
func unprefix(arr *hujson.Array, n int) {
	if n <= 0 || n > len(arr.Elements) {
		return
	}
	first := arr.Elements[0].BeforeExtra
	if n == len(arr.Elements) {
		arr.Elements = arr.Elements[:0]
		return
	}
	arr.Elements = append([]hujson.Value{}, arr.Elements[n:]...)
	arr.Elements[0].BeforeExtra = first
}

// insertAfter adds a member after obj.Members[i], laid out as that one.
func insertAfter(obj *hujson.Object, i int, name string, value hujson.ValueTrimmed) {
	prev := &obj.Members[i]
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: hujson.Extra(bytes.Clone(prev.Name.BeforeExtra)), Value: hujson.String(name), AfterExtra: hujson.Extra(bytes.Clone(prev.Name.AfterExtra))},
		Value: hujson.Value{BeforeExtra: hujson.Extra(bytes.Clone(prev.Value.BeforeExtra)), Value: value},
	}
	if len(m.Value.BeforeExtra) == 0 {
		m.Value.BeforeExtra = hujson.Extra(" ")
	}
	if i == len(obj.Members)-1 {
		// The last member carries the trailing comma, if any.
		m.Value.AfterExtra, prev.Value.AfterExtra = prev.Value.AfterExtra, nil
	} else {
		m.Value.AfterExtra = hujson.Extra(bytes.Clone(prev.Value.AfterExtra))
	}
	obj.Members = append(obj.Members[:i+1], append([]hujson.ObjectMember{m}, obj.Members[i+1:]...)...)
}

// removeMember removes obj.Members[i]; the last one's trailing comma
// stays with the member before it.
func removeMember(obj *hujson.Object, i int) {
	if i == len(obj.Members)-1 && i > 0 {
		obj.Members[i-1].Value.AfterExtra = obj.Members[i].Value.AfterExtra
	}
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
}
