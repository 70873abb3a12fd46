package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Hook is one hook agate installs: an event, and for the agents that have
// them, the matcher that picks the tools.
type Hook struct {
	Event   string
	Matcher string // "" for none
}

// layout is how an agent's settings file holds its hooks.
type layout struct {
	// grouped: hooks.EVENT is a list of matcher groups {matcher, hooks:
	// [handler...]} (Claude Code, Gemini CLI); otherwise a list of
	// handlers (Cursor).
	grouped bool
	hooks   []Hook
	unit    time.Duration // the unit of the handler's timeout
	// handler returns a new handler for command.
	handler func(command string, timeout json.RawMessage) json.RawMessage
}

func layoutOf(agent string) (*layout, error) {
	switch agent {
	case ClaudeCode:
		return &layout{
			grouped: true,
			hooks: []Hook{
				{"PreToolUse", "*"},
				// Every tool: outside content taints the run, and a call
				// whose ask went to Claude Code's prompt is recorded as
				// the person's allow.
				{"PostToolUse", "*"},
				{"PostToolUseFailure", "*"},
				{"PermissionDenied", "*"},
				{"Stop", ""},
				{"UserPromptSubmit", ""},
				{"SessionEnd", ""},
			},
			unit: time.Second,
			handler: func(c string, t json.RawMessage) json.RawMessage {
				return newObject("type", "command", "command", c, "timeout", t)
			},
		}, nil
	case Gemini:
		return &layout{
			grouped: true,
			hooks: []Hook{
				{"BeforeTool", ".*"},
				// Every tool: MCP tools are told apart by mcp_context, not
				// by a name a matcher could pick.
				{"AfterTool", ".*"},
				{"BeforeAgent", ""},
			},
			unit: time.Millisecond,
			handler: func(c string, t json.RawMessage) json.RawMessage {
				return newObject("name", "agate", "type", "command", "command", c, "timeout", t)
			},
		}, nil
	case Cursor:
		return &layout{
			hooks: []Hook{
				{"beforeShellExecution", ""},
				{"beforeMCPExecution", ""},
				{"beforeReadFile", ""},
				{"afterMCPExecution", ""},
				{"beforeSubmitPrompt", ""},
			},
			unit: time.Second,
			handler: func(c string, t json.RawMessage) json.RawMessage {
				return newObject("command", c, "timeout", t)
			},
		}, nil
	}
	return nil, fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(Agents(), ", "))
}

// Hooks returns the hooks Install registers for agent.
func Hooks(agent string) []Hook {
	l, err := layoutOf(agent)
	if err != nil {
		return nil
	}
	return l.hooks
}

// newObject builds a compact JSON object from key, value pairs; a
// json.RawMessage value is written as it is.
func newObject(kv ...any) json.RawMessage {
	o := &object{}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		v, ok := kv[i+1].(json.RawMessage)
		if !ok {
			v = mustJSON(kv[i+1])
		}
		o.set(k, v)
	}
	return o.marshal()
}

// Command returns the command line that runs agate's hook for agent:
// "BIN hook AGENT", with BIN quoted for the shell the agents run it with.
func Command(bin, agent string) (string, error) { return CommandWith(bin, agent, CommandOptions{}) }

// CommandOptions are the flags an installed hook command carries.
type CommandOptions struct {
	// AgentTimeout is the agent's own timeout for the hook
	// (--agent-timeout), so the hook answers, and blocks if it must,
	// before the agent kills it: an agent that kills a hook may let the
	// call through.
	AgentTimeout time.Duration
	// Socket and Config are the daemon's socket and agate's config
	// (--socket, --config), absolute, for an agent that runs its hooks
	// with an environment of its own choosing (Gemini CLI strips it to a
	// short list in CI), where the hook could not find them.
	Socket, Config string
}

// CommandWith returns "BIN hook AGENT" with the flags o asks for, each
// word quoted for the shell.
func CommandWith(bin, agent string, o CommandOptions) (string, error) {
	if !Known(agent) {
		return "", fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(Agents(), ", "))
	}
	if bin == "" {
		return "", errors.New("no agate binary")
	}
	q, err := shellQuote(bin)
	if err != nil {
		return "", fmt.Errorf("agate binary %q: %w", bin, err)
	}
	c := q + " hook " + agent
	if o.AgentTimeout > 0 {
		c += fmt.Sprintf(" --agent-timeout %ds", int((o.AgentTimeout+time.Second-1)/time.Second))
	}
	for _, f := range []struct{ flag, path string }{{"--socket", o.Socket}, {"--config", o.Config}} {
		if f.path == "" {
			continue
		}
		if !isAbs(f.path) {
			return "", fmt.Errorf("%s %q is not an absolute path", f.flag, f.path)
		}
		q, err := shellQuote(f.path)
		if err != nil {
			return "", fmt.Errorf("%s %q: %w", f.flag, f.path, err)
		}
		c += " " + f.flag + " " + q
	}
	return c, nil
}

// isAbs reports whether p is absolute, in POSIX or Windows form.
func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) ||
		len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// CommandWithTimeout is Command with the agent's own timeout for the hook
// passed on ("--agent-timeout 135s").
func CommandWithTimeout(bin, agent string, agentTimeout time.Duration) (string, error) {
	return CommandWith(bin, agent, CommandOptions{AgentTimeout: agentTimeout})
}

// ParseCommand reports whether cmd is agate's hook for agent: one program
// whose base name is agate, agate-cli or agate-hook, then "hook AGENT",
// then only the flags CommandWith writes (--agent-timeout, --socket,
// --config, each with its value). It returns the program's path,
// unquoted.
func ParseCommand(cmd, agent string) (bin string, ok bool) {
	hc, ok := ParseCommandWith(cmd, agent)
	return hc.Bin, ok
}

// HookCommand is an installed hook command, read back.
type HookCommand struct {
	Bin string // the program, unquoted
	CommandOptions
}

// ParseCommandWith is ParseCommand, with the flags the command carries.
func ParseCommandWith(cmd, agent string) (HookCommand, bool) {
	var hc HookCommand
	words, ok := splitWords(cmd)
	if !ok || len(words) < 3 || words[1] != "hook" || words[2] != agent || words[0] == "" {
		return hc, false
	}
	prog := words[0]
	base := prog[strings.LastIndexAny(prog, `/\`)+1:]
	base = strings.TrimSuffix(base, ".exe")
	if base != "agate" && base != "agate-cli" && base != "agate-hook" {
		return hc, false
	}
	hc.Bin = prog
	seen := map[string]bool{}
	for rest := words[3:]; len(rest) > 0; {
		flag := strings.TrimPrefix(rest[0], "--")
		if flag == rest[0] || seen[flag] || len(rest) < 2 {
			return HookCommand{}, false
		}
		seen[flag] = true
		value := rest[1]
		rest = rest[2:]
		switch flag {
		case "agent-timeout":
			d, err := time.ParseDuration(value)
			if err != nil {
				return HookCommand{}, false
			}
			hc.AgentTimeout = d
		case "socket":
			hc.Socket = value
		case "config":
			hc.Config = value
		default:
			return HookCommand{}, false
		}
	}
	return hc, true
}

// splitWords splits s into POSIX shell words at unquoted blanks, each
// read by shellWord; ok is false when any word is not one it accepts, or
// a quote is left open.
func splitWords(s string) ([]string, bool) {
	var words []string
	start, quote := -1, byte(0)
	for i := 0; i <= len(s); i++ {
		if i == len(s) {
			if quote != 0 {
				return nil, false
			}
			break
		}
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
			continue
		case quote == '"':
			if c == '\\' {
				i++
			} else if c == '"' {
				quote = 0
			}
			continue
		case c == ' ' || c == '\t':
			if start >= 0 {
				w, ok := shellWord(s[start:i])
				if !ok {
					return nil, false
				}
				words = append(words, w)
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
		switch c {
		case '\'', '"':
			quote = c
		case '\\':
			i++
		}
	}
	if start >= 0 {
		w, ok := shellWord(s[start:])
		if !ok {
			return nil, false
		}
		words = append(words, w)
	}
	return words, true
}

// shellWord unquotes s if it is exactly one POSIX shell word made of bare,
// '...' and "..." parts; ok is false for anything else (several words,
// expansions, an open quote).
func shellWord(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch s[i] {
				case '$', '`':
					return "", false
				case '\\':
					if i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
						i++
					}
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return "", false
			}
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			i++
			b.WriteByte(s[i])
		case ' ', '\t', '\n', '$', '`', ';', '&', '|', '<', '>', '(', ')', '*', '?', '[', '~', '{', '#', '=':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// Entry is one of agate's hooks found in a settings file.
type Entry struct {
	Event   string
	Matcher string // "" when there is none
	Command string
	Bin     string // the program the command runs
	Timeout string // as written, in the agent's unit; "" when there is none
}

// settings is a parsed settings file and its hooks object.
type settings struct {
	root  *object
	hooks *object
}

// parseSettings parses a settings file. Empty data is an empty file.
func parseSettings(data []byte) (*settings, error) {
	s := &settings{root: &object{}, hooks: &object{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil
	}
	root, err := parseObject(data)
	if err != nil {
		return nil, err
	}
	s.root = root
	if raw, ok := root.get("hooks"); ok && !isNull(raw) {
		h, err := parseObject(raw)
		if err != nil {
			return nil, errors.New(`"hooks" is not a JSON object`)
		}
		s.hooks = h
	}
	return s, nil
}

// handlerFunc looks at one of agate's handlers (matcher is its group's) and
// says what becomes of it: replaced by a new value, dropped, or (nil,
// false) left as it is.
type handlerFunc func(matcher string, h *object) (replace json.RawMessage, drop bool)

// walk calls fn on each of agate's handlers in an event's list and returns
// the new list and whether it changed. Anything that is not agate's, or
// that agate cannot read, is kept as it was. A group left with no
// handlers by fn is removed.
func (l *layout) walk(agent string, items []json.RawMessage, fn handlerFunc) ([]json.RawMessage, bool) {
	visit := func(matcher string, raw json.RawMessage) (json.RawMessage, bool, bool) {
		h, err := parseObject(raw)
		if err != nil {
			return raw, false, false
		}
		cmd, _ := h.getString("command")
		if _, ok := ParseCommand(cmd, agent); !ok {
			return raw, false, false
		}
		if !l.grouped {
			matcher, _ = h.getString("matcher")
		}
		repl, drop := fn(matcher, h)
		switch {
		case drop:
			return nil, true, true
		case repl != nil:
			return repl, true, false
		}
		return raw, false, false
	}
	var out []json.RawMessage
	changed := false
	for _, it := range items {
		if !l.grouped {
			v, ch, drop := visit("", it)
			changed = changed || ch
			if !drop {
				out = append(out, v)
			}
			continue
		}
		g, err := parseObject(it)
		if err != nil {
			out = append(out, it)
			continue
		}
		hraw, _ := g.get("hooks")
		hs, ok := asList(hraw)
		if !ok {
			out = append(out, it)
			continue
		}
		matcher, _ := g.getString("matcher")
		var keep []json.RawMessage
		gChanged := false
		for _, h := range hs {
			v, ch, drop := visit(matcher, h)
			gChanged = gChanged || ch
			if !drop {
				keep = append(keep, v)
			}
		}
		if !gChanged {
			out = append(out, it)
			continue
		}
		changed = true
		if len(keep) == 0 {
			continue // the group held only agate's hooks
		}
		g.set("hooks", marshalList(keep))
		out = append(out, g.marshal())
	}
	return out, changed
}

// matchesAll reports whether a matcher picks every tool, in the agents'
// spellings.
func matchesAll(m string) bool { return m == "" || m == "*" || m == ".*" }

func sameMatcher(a, b string) bool { return a == b || matchesAll(a) && matchesAll(b) }

// timeoutValue is timeout in the agent's unit, rounded up, as JSON.
func (l *layout) timeoutValue(timeout time.Duration) json.RawMessage {
	n := (timeout + l.unit - 1) / l.unit
	return mustJSON(int64(n))
}

// Install returns the settings file data with agate's hooks for agent in
// it, each running command and waiting up to timeout; changed is false
// (and out is data) when they were all there already.
//
// Everything else in the file stays, in its order: other keys, other
// hooks on the same events. An agate hook already there is updated in
// place (a new path, a new timeout); a second one on the same event is
// removed. The file is re-indented with its own indentation. Data that is
// not a JSON object is an error that says where, and nothing is returned.
func Install(agent string, data []byte, command string, timeout time.Duration) (out []byte, changed bool, err error) {
	l, err := layoutOf(agent)
	if err != nil {
		return nil, false, err
	}
	if _, ok := ParseCommand(command, agent); !ok {
		return nil, false, fmt.Errorf("%q is not a command agate would recognise as its %s hook", command, agent)
	}
	if timeout <= 0 {
		return nil, false, fmt.Errorf("hook timeout %v is not positive", timeout)
	}
	s, err := parseSettings(data)
	if err != nil {
		return nil, false, err
	}
	tv := l.timeoutValue(timeout)
	for _, hk := range l.hooks {
		var items []json.RawMessage
		if raw, ok := s.hooks.get(hk.Event); ok && !isNull(raw) {
			if items, ok = asList(raw); !ok {
				return nil, false, fmt.Errorf("hooks.%s is not a list", hk.Event)
			}
		}
		found := false
		list, ch := l.walk(agent, items, func(matcher string, h *object) (json.RawMessage, bool) {
			if found || !sameMatcher(matcher, hk.Matcher) {
				return nil, true // a duplicate, or agate's hook with another matcher
			}
			found = true
			upd := false
			if c, _ := h.getString("command"); c != command {
				h.set("command", mustJSON(command))
				upd = true
			}
			if t, ok := h.get("timeout"); !ok || !bytes.Equal(bytes.TrimSpace(t), tv) {
				h.set("timeout", tv)
				upd = true
			}
			if upd {
				return h.marshal(), false
			}
			return nil, false
		})
		if !found {
			entry := l.handler(command, tv)
			if l.grouped {
				if hk.Matcher != "" {
					entry = newObject("matcher", hk.Matcher, "hooks", marshalList([]json.RawMessage{entry}))
				} else {
					entry = newObject("hooks", marshalList([]json.RawMessage{entry}))
				}
			}
			list = append(list, entry)
			ch = true
		}
		if ch {
			changed = true
			s.hooks.set(hk.Event, marshalList(list))
		}
	}
	if !changed {
		return data, false, nil
	}
	if agent == Cursor {
		if _, ok := s.root.get("version"); !ok {
			s.root.setFirst("version", mustJSON(1))
		}
	}
	s.root.set("hooks", s.hooks.marshal())
	return formatFile(s.root.marshal(), data), true, nil
}

// Uninstall returns the settings file data without agate's hooks for
// agent, on any event; changed is false (and out is data) when there were
// none. Matcher groups, events and the hooks object that held only
// agate's hooks go too; everything else stays, in its order.
func Uninstall(agent string, data []byte) (out []byte, changed bool, err error) {
	l, err := layoutOf(agent)
	if err != nil {
		return nil, false, err
	}
	s, err := parseSettings(data)
	if err != nil {
		return nil, false, err
	}
	events := make([]string, 0, s.hooks.len())
	for _, m := range s.hooks.members {
		events = append(events, m.key)
	}
	for _, ev := range events {
		raw, _ := s.hooks.get(ev)
		items, ok := asList(raw)
		if !ok {
			continue
		}
		list, ch := l.walk(agent, items, func(string, *object) (json.RawMessage, bool) { return nil, true })
		if !ch {
			continue
		}
		changed = true
		if len(list) == 0 {
			s.hooks.del(ev)
		} else {
			s.hooks.set(ev, marshalList(list))
		}
	}
	if !changed {
		return data, false, nil
	}
	if s.hooks.len() == 0 {
		s.root.del("hooks")
	} else {
		s.root.set("hooks", s.hooks.marshal())
	}
	return formatFile(s.root.marshal(), data), true, nil
}

// Inspect lists agate's hooks for agent in a settings file, in the file's
// order.
func Inspect(agent string, data []byte) ([]Entry, error) {
	l, err := layoutOf(agent)
	if err != nil {
		return nil, err
	}
	s, err := parseSettings(data)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for _, m := range s.hooks.members {
		items, ok := asList(m.value)
		if !ok {
			continue
		}
		l.walk(agent, items, func(matcher string, h *object) (json.RawMessage, bool) {
			e := Entry{Event: m.key, Matcher: matcher}
			e.Command, _ = h.getString("command")
			e.Bin, _ = ParseCommand(e.Command, agent)
			if t, ok := h.get("timeout"); ok {
				e.Timeout = string(bytes.TrimSpace(t))
			}
			entries = append(entries, e)
			return nil, false
		})
	}
	return entries, nil
}

// Missing returns the hooks Install registers for agent that entries (as
// Inspect found them) lack.
func Missing(agent string, entries []Entry) []Hook {
	var missing []Hook
	for _, h := range Hooks(agent) {
		found := false
		for _, e := range entries {
			if e.Event == h.Event && sameMatcher(e.Matcher, h.Matcher) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, h)
		}
	}
	return missing
}
