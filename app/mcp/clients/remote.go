package clients

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/agatehq/agate/app/internal/jsonc"
	"github.com/agatehq/agate/policy"
)

// A remote server (reached over HTTP or SSE) is run through agate's
// bridge as a stdio server: {"url": U, "headers": {H: V}} becomes
// {"command": AGATE, "args": ["mcp", "run", "--name", KEY, "--url-env",
// "MCP_REMOTE_URL", "--header-env", "H=MCP_HEADER_H"], "env":
// {"MCP_REMOTE_URL": U, "MCP_HEADER_H": V, "AGATE_MCP_REMOTE_ENTRY":
// "<the entry as it was written>"}}. The URL and the headers go in the
// environment, not the arguments: any process of the machine can read a
// command line, only the person's own processes an environment. Each
// value is copied as it was written, so a client that fills in
// variables (Claude Code's ${VAR}, Cursor's ${env:VAR}, OpenCode's
// {env:VAR}) fills them in the environment as it did in the header. The
// members that are not the transport's (a timeout, a tool filter,
// "disabled") stay as they are. Uninstall writes the entry back byte for
// byte from AGATE_MCP_REMOTE_ENTRY, when what is there is still what
// Install wrote.

// The variables of a rewritten remote server's environment.
const (
	remoteEntryVar  = "AGATE_MCP_REMOTE_ENTRY"
	remoteURLVar    = "MCP_REMOTE_URL"
	headerVarPrefix = "MCP_HEADER_"
)

// remotePlan is how a remote server entry runs through agate.
type remotePlan struct {
	url     string // as written, without its quotes decoded
	rawURL  string // its JSON text
	sse     bool
	headers []remoteHeader
	carry   []int  // the members that stay, by index
	typeOut string // the "type" the stdio entry gets, "" for none
	why     string // not "": it stays as it is, for this reason
}

type remoteHeader struct {
	name string
	raw  string // the value's JSON text
	env  string // the variable that carries it
}

// planRemote reads a remote server's entry, as client writes it.
func planRemote(client string, obj *hujson.Object) remotePlan {
	var p remotePlan
	urlKey, typ, hasType := "", "", false
	var headers *hujson.Object
	for i := range obj.Members {
		m := &obj.Members[i]
		name := literalString(m.Name)
		switch name {
		case "url", "httpUrl", "serverUrl":
			if urlKey != "" {
				p.why = fmt.Sprintf("it names its URL twice (%s and %s)", urlKey, name)
				return p
			}
			lit, ok := m.Value.Value.(hujson.Literal)
			if !ok || lit.Kind() != '"' {
				p.why = "its " + name + " is not a string"
				return p
			}
			urlKey, p.url, p.rawURL = name, lit.String(), string(lit)
		case "type", "transport":
			hasType = true
			typ = strings.ToLower(literalString(m.Value))
		case "headers":
			h, ok := m.Value.Value.(*hujson.Object)
			if !ok {
				p.why = "its headers are not an object"
				return p
			}
			headers = h
		case "headersHelper":
			p.why = "its headers come from a command (headersHelper) that only the client runs"
			return p
		case "authProviderType":
			p.why = "it signs in through the client (authProviderType), which only the client can do"
			return p
		case "oauth":
			if lit, ok := m.Value.Value.(hujson.Literal); !ok || (string(lit) != "false" && string(lit) != "null") {
				p.why = "it signs in with OAuth, which only the client can do"
				return p
			}
			p.carry = append(p.carry, i)
		case "command", "args", "env", "environment", "cwd":
			p.why = "it names both a URL and a " + name
			return p
		default:
			p.carry = append(p.carry, i)
		}
	}
	if p.url == "" {
		p.why = "it names no URL"
		return p
	}
	switch typ {
	case "sse":
		p.sse = true
	case "http", "streamable-http", "streamablehttp", "streamable_http":
	case "", "remote":
		// Gemini CLI's "url" is the SSE transport ("httpUrl" the other);
		// the clients that try both (Cursor, OpenCode) meet an SSE
		// server at the path it names (…/sse).
		p.sse = (client == Gemini && urlKey == "url") || sseByPath(p.url)
	default:
		p.why = fmt.Sprintf("its transport %q is not one agate's bridge speaks", typ)
		return p
	}
	if why := checkRemoteURL(p.url); why != "" {
		p.why = why
		return p
	}
	switch {
	case client == VSCode, client == ClaudeCode && hasType, client == Cursor && hasType, client == Gemini && hasType, client == ClaudeDesktop && hasType:
		p.typeOut = "stdio"
	case client == Copilot, client == OpenCode:
		p.typeOut = "local"
	}
	if headers != nil {
		if dup, ok := duplicateFold(headers); ok {
			p.why = fmt.Sprintf("it names header %q twice", dup)
			return p
		}
		used := map[string]bool{remoteURLVar: true}
		for i := range headers.Members {
			m := &headers.Members[i]
			name := literalString(m.Name)
			if !policy.ValidHeaderName(name) {
				p.why = fmt.Sprintf("its header %q is not a header's name", name)
				return p
			}
			lit, ok := m.Value.Value.(hujson.Literal)
			if !ok || lit.Kind() != '"' {
				p.why = fmt.Sprintf("its header %s is not a string", name)
				return p
			}
			env := headerVar(name, used)
			p.headers = append(p.headers, remoteHeader{name: name, raw: string(lit), env: env})
		}
	}
	return p
}

// sseByPath reports whether a URL's path names an SSE stream (…/sse).
func sseByPath(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/sse")
}

// checkRemoteURL says why agate's bridge would refuse raw, "" when it
// would take it. A URL the client fills in (${VAR}, {env:VAR}) is left
// for the bridge to check when it starts.
func checkRemoteURL(raw string) string {
	if strings.ContainsAny(raw, "${") {
		if !strings.HasPrefix(raw, "https://") && !strings.HasPrefix(raw, "http://") {
			return "its URL is not http:// or https://"
		}
		return ""
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return "its URL is not http:// or https://"
	case u.User != nil:
		return "its URL holds a user or password, which agate's bridge does not send"
	case u.Scheme == "http" && !policy.LoopbackHost(u.Hostname()):
		return "it is plain http:// to another machine, which agate's bridge refuses (the headers would cross the network in the clear)"
	}
	return ""
}

// headerVar is the variable that carries header name: MCP_HEADER_ and
// the name in upper case, '_' for what a variable's name cannot hold, a
// number after it where two names come to the same.
func headerVar(name string, used map[string]bool) string {
	var b strings.Builder
	b.WriteString(headerVarPrefix)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			c = '_'
		}
		b.WriteByte(c)
	}
	v := b.String()
	for n := 2; used[v]; n++ {
		v = fmt.Sprintf("%s_%d", b.String(), n)
	}
	used[v] = true
	return v
}

// duplicateFold returns a member name obj holds twice, letter case
// aside (header names are compared so).
func duplicateFold(obj *hujson.Object) (string, bool) {
	seen := map[string]bool{}
	for _, m := range obj.Members {
		n := strings.ToLower(literalString(m.Name))
		if seen[n] {
			return literalString(m.Name), true
		}
		seen[n] = true
	}
	return "", false
}

// args are agate's arguments for the server named name.
func (p remotePlan) args(name string) []string {
	out := []string{"mcp", "run", "--name", name, "--url-env", remoteURLVar}
	if p.sse {
		out = append(out, "--sse")
	}
	for _, h := range p.headers {
		out = append(out, "--header-env", h.name+"="+h.env)
	}
	return out
}

// env is the rewritten entry's environment, each value as JSON text.
func (p remotePlan) env(entry string) [][2]string {
	out := [][2]string{{remoteURLVar, p.rawURL}}
	for _, h := range p.headers {
		out = append(out, [2]string{h.env, h.raw})
	}
	return append(out, [2]string{remoteEntryVar, quote(entry)})
}

// quote is s as a JSON string, with <, > and & as they are.
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a Go string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// envKey is the member of a stdio entry that holds its environment.
func envKey(argvCommand bool) string {
	if argvCommand {
		return "environment" // OpenCode's
	}
	return "env"
}

// node is the stdio entry that runs the server through agate.
func (p remotePlan) node(obj *hujson.Object, agate, name, entry string, argvCommand bool) jsonc.Node {
	var kv []any
	if p.typeOut != "" {
		kv = append(kv, "type", jsonc.String(p.typeOut))
	}
	args := p.args(name)
	if argvCommand {
		elems := []jsonc.Node{jsonc.String(agate)}
		for _, a := range args {
			elems = append(elems, jsonc.String(a))
		}
		kv = append(kv, "command", jsonc.Inline(elems...))
	} else {
		elems := make([]jsonc.Node, len(args))
		for i, a := range args {
			elems[i] = jsonc.String(a)
		}
		kv = append(kv, "command", jsonc.String(agate), "args", jsonc.Inline(elems...))
	}
	var env []any
	for _, e := range p.env(entry) {
		env = append(env, e[0], jsonc.Lit([]byte(e[1])))
	}
	kv = append(kv, envKey(argvCommand), jsonc.Obj(env...))
	for _, i := range p.carry {
		m := &obj.Members[i]
		kv = append(kv, literalString(m.Name), jsonc.Lit([]byte(jsonc.Raw(&m.Value))))
	}
	return jsonc.Obj(kv...)
}

// rewrittenRemote returns the entry a remote server had before Install
// rewrote it (the text of AGATE_MCP_REMOTE_ENTRY in its environment);
// ok is false when obj is not such a rewrite.
func rewrittenRemote(obj *hujson.Object, argvCommand bool) (entry string, ok bool) {
	env, ok := jsonc.Get(obj, envKey(argvCommand))
	if !ok {
		return "", false
	}
	eo, ok := env.Value.(*hujson.Object)
	if !ok {
		return "", false
	}
	return jsonc.GetString(eo, remoteEntryVar)
}

// restoreRemote checks that obj, a rewrite of entry, is still what
// Install wrote for client (the command aside, which may be another
// agate binary), and returns why not, "" when it is.
func restoreRemote(client string, obj *hujson.Object, entry, name string, argvCommand bool) (orig *hujson.Object, why string) {
	v, err := hujson.Parse([]byte(entry))
	if err != nil {
		return nil, "its " + remoteEntryVar + " is not JSON"
	}
	o, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, "its " + remoteEntryVar + " is not a JSON object"
	}
	p := planRemote(client, o)
	if p.why != "" {
		return nil, "its " + remoteEntryVar + " is not an entry agate rewrites: " + p.why
	}
	changed := "it changed since agate rewrote it; the entry as it was is its " + remoteEntryVar + ", to put back by hand"
	want := map[string]string{}
	for _, i := range p.carry {
		want[literalString(o.Members[i].Name)] = jsonc.Raw(&o.Members[i].Value)
	}
	seen := 0
	for i := range obj.Members {
		m := &obj.Members[i]
		switch n := literalString(m.Name); n {
		case "type":
			if literalString(m.Value) != p.typeOut {
				return nil, changed
			}
		case "command", "args":
			list, ok := stringArray(m.Value)
			if n == "command" && !argvCommand {
				lit, isLit := m.Value.Value.(hujson.Literal)
				if !isLit || lit.Kind() != '"' || !strings.HasPrefix(lastPathElem(lit.String()), "agate") {
					return nil, changed
				}
				continue
			}
			if n == "command" {
				if !ok || len(list) == 0 || !strings.HasPrefix(lastPathElem(list[0]), "agate") {
					return nil, changed
				}
				list = list[1:]
			}
			if !ok || strings.Join(list, "\x00") != strings.Join(p.args(name), "\x00") {
				return nil, changed
			}
		case envKey(argvCommand):
			eo, ok := m.Value.Value.(*hujson.Object)
			wantEnv := p.env(entry)
			if !ok || len(eo.Members) != len(wantEnv) {
				return nil, changed
			}
			for j, e := range wantEnv {
				if literalString(eo.Members[j].Name) != e[0] || jsonc.Raw(&eo.Members[j].Value) != e[1] {
					return nil, changed
				}
			}
		default:
			raw, ok := want[n]
			if !ok || raw != jsonc.Raw(&m.Value) {
				return nil, changed
			}
			seen++
		}
	}
	if seen != len(want) {
		return nil, changed
	}
	return o, ""
}

// lastPathElem is the file name of a path of either system's.
func lastPathElem(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// shownURL is a URL without its query, which may hold a key.
func shownURL(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i] + "?…"
	}
	return raw
}
