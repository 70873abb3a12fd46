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
				{"PostToolUse", "WebFetch|WebSearch|ReadMcpResourceTool|mcp__.*"},
				{"UserPromptSubmit", ""},
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
func Command(bin, agent string) (string, error) {
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
	return q + " hook " + agent, nil
}

// CommandWithTimeout is Command with the agent's own timeout for the hook
// passed on ("--agent-timeout 135s"), so the hook answers, and blocks if it
// must, before the agent kills it: an agent that kills a hook may let the
// call through.
func CommandWithTimeout(bin, agent string, agentTimeout time.Duration) (string, error) {
	c, err := Command(bin, agent)
	if err != nil || agentTimeout <= 0 {
		return c, err
	}
	return fmt.Sprintf("%s --agent-timeout %ds", c, int(agentTimeout/time.Second)), nil
}

// ParseCommand reports whether cmd is agate's hook for agent: one program
// whose base name is agate, agate-cli or agate-hook, then "hook AGENT",
// then optionally "--agent-timeout N". It returns the program's path,
// unquoted.
func ParseCommand(cmd, agent string) (bin string, ok bool) {
	cmd = strings.TrimSpace(cmd)
	if i := strings.LastIndex(cmd, " --agent-timeout "); i > 0 {
		if _, err := time.ParseDuration(strings.TrimSpace(cmd[i+len(" --agent-timeout "):])); err == nil {
			cmd = cmd[:i]
		}
	}
	prog, ok := strings.CutSuffix(cmd, " hook "+agent)
	if !ok {
		return "", false
	}
	prog, ok = shellWord(strings.TrimSpace(prog))
	if !ok || prog == "" {
		return "", false
	}
	base := prog[strings.LastIndexAny(prog, `/\`)+1:]
	base = strings.TrimSuffix(base, ".exe")
	if base != "agate" && base != "agate-cli" && base != "agate-hook" {
		return "", false
	}
	return prog, true
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
