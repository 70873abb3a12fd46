package hooks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tailscale/hujson"
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
	handler func(command string, timeout []byte) node
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
			handler: func(c string, t []byte) node {
				return obj("type", lit(mustJSON("command")), "command", lit(mustJSON(c)), "timeout", lit(t))
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
			handler: func(c string, t []byte) node {
				return obj("name", lit(mustJSON("agate")), "type", lit(mustJSON("command")), "command", lit(mustJSON(c)), "timeout", lit(t))
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
			handler: func(c string, t []byte) node {
				return obj("command", lit(mustJSON(c)), "timeout", lit(t))
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
	doc   *jsonDoc
	root  box
	hooks *box // nil when the file has none
}

// parseSettings parses a settings file. Empty data is an empty file.
func parseSettings(data []byte) (*settings, error) {
	d, err := parseJSONDoc(data)
	if err != nil {
		return nil, err
	}
	s := &settings{doc: d, root: d.rootBox()}
	if v, ok := get(s.root.object(), "hooks"); ok {
		if _, ok := v.Value.(*hujson.Object); !ok {
			return nil, errors.New(`"hooks" is not a JSON object`)
		}
		b := d.boxOf(s.root, v)
		s.hooks = &b
	}
	return s, nil
}

// hooksBox returns the hooks object, adding it when the file has none.
func (s *settings) hooksBox() box {
	if s.hooks == nil {
		s.doc.setMember(s.root, "hooks", obj())
		v, _ := get(s.root.object(), "hooks")
		b := s.doc.boxOf(s.root, v)
		s.hooks = &b
	}
	return *s.hooks
}

// events are the keys of the hooks object, each once, in their order.
func (s *settings) events() []string {
	if s.hooks == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range s.hooks.object().Members {
		if k := m.Name.Value.(hujson.Literal).String(); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// list returns an event's list of hooks; ok is false when there is none
// (or null), and isList false when it is something else.
func (s *settings) list(event string) (b box, ok, isList bool) {
	if s.hooks == nil {
		return box{}, false, true
	}
	v, ok := get(s.hooks.object(), event)
	if !ok {
		return box{}, false, true
	}
	if _, isArr := v.Value.(*hujson.Array); !isArr {
		return box{}, true, false
	}
	return s.doc.boxOf(*s.hooks, v), true, true
}

// handlerFunc looks at one of agate's handlers (matcher is its group's),
// changes it in place if it must, and says whether it goes.
type handlerFunc func(matcher string, h box) (drop bool)

// walk calls fn on each of agate's handlers in an event's list, in order,
// and removes those fn drops. Anything that is not agate's, or that agate
// cannot read, stays as it was. A group left with no handlers by fn is
// removed, unless a comment is written in it.
func (l *layout) walk(d *jsonDoc, agent string, list box, fn handlerFunc) {
	agates := func(h *hujson.Value) bool {
		o, ok := h.Value.(*hujson.Object)
		if !ok {
			return false
		}
		cmd, _ := getString(o, "command")
		_, ok = ParseCommand(cmd, agent)
		return ok
	}
	// handlers walks one list of handlers and returns whether it dropped one.
	handlers := func(b box, matcher string) bool {
		a := b.array()
		var drop []int
		for i := range a.Elements {
			h := &a.Elements[i]
			if !agates(h) {
				continue
			}
			m := matcher
			if !l.grouped {
				m, _ = getString(h.Value.(*hujson.Object), "matcher")
			}
			if fn(m, d.boxOf(b, h)) {
				drop = append(drop, i)
			}
		}
		for k := len(drop) - 1; k >= 0; k-- {
			d.remove(b, drop[k])
		}
		return len(drop) > 0
	}
	if !l.grouped {
		handlers(list, "")
		return
	}
	a := list.array()
	var empty []int
	for i := range a.Elements {
		g, ok := a.Elements[i].Value.(*hujson.Object)
		if !ok {
			continue
		}
		hv, ok := get(g, "hooks")
		if !ok {
			continue
		}
		if _, ok := hv.Value.(*hujson.Array); !ok {
			continue
		}
		gb := d.boxOf(list, &a.Elements[i])
		matcher, _ := getString(g, "matcher")
		hb := d.boxOf(gb, hv)
		if handlers(hb, matcher) && len(hb.array().Elements) == 0 && !holdsComment(&a.Elements[i]) {
			empty = append(empty, i) // the group held only agate's hooks
		}
	}
	for k := len(empty) - 1; k >= 0; k-- {
		d.remove(list, empty[k])
	}
}

// matchesAll reports whether a matcher picks every tool, in the agents'
// spellings.
func matchesAll(m string) bool { return m == "" || m == "*" || m == ".*" }

func sameMatcher(a, b string) bool { return a == b || matchesAll(a) && matchesAll(b) }

// timeoutValue is timeout in the agent's unit, rounded up, as JSON.
func (l *layout) timeoutValue(timeout time.Duration) []byte {
	n := (timeout + l.unit - 1) / l.unit
	return mustJSON(int64(n))
}

// Install returns the settings file data with agate's hooks for agent in
// it, each running command and waiting up to timeout; changed is false
// (and out is data) when they were all there already.
//
// Everything else in the file stays as it was, byte for byte: other keys,
// other hooks on the same events, the comments of a settings file that
// has them. An agate hook already there is updated in place (a new path,
// a new timeout); a second one on the same event is removed. What is
// added is laid out in the file's own indentation, and is plain JSON.
// Data that is not a JSON object is an error that says where, and nothing
// is returned.
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
	d := s.doc
	tv := l.timeoutValue(timeout)
	for _, hk := range l.hooks {
		list, ok, isList := s.list(hk.Event)
		if !isList {
			return nil, false, fmt.Errorf("hooks.%s is not a list", hk.Event)
		}
		before := d.edits
		found := false
		if ok {
			l.walk(d, agent, list, func(matcher string, h box) bool {
				if found || !sameMatcher(matcher, hk.Matcher) {
					return true // a duplicate, or agate's hook with another matcher
				}
				found = true
				if c, _ := getString(h.object(), "command"); c != command {
					d.setMember(h, "command", lit(mustJSON(command)))
				}
				if t, ok := get(h.object(), "timeout"); !ok || raw(t) != string(tv) {
					d.setMember(h, "timeout", lit(tv))
				}
				return false
			})
		}
		if !found {
			entry := l.handler(command, tv)
			if l.grouped {
				if hk.Matcher != "" {
					entry = obj("matcher", lit(mustJSON(hk.Matcher)), "hooks", arr(entry))
				} else {
					entry = obj("hooks", arr(entry))
				}
			}
			if ok {
				d.appendElement(list, entry)
			} else {
				d.setMember(s.hooksBox(), hk.Event, arr(entry))
			}
		}
		if d.edits > before {
			d.dedupe(*s.hooks, hk.Event)
		}
	}
	if d.edits == 0 {
		return data, false, nil
	}
	if agent == Cursor {
		if len(indices(s.root.object(), "version")) == 0 {
			d.addMember(s.root, "version", lit(mustJSON(1)), true)
		}
	}
	d.dedupe(s.root, "hooks")
	out, err = d.bytes()
	return out, err == nil, err
}

// Uninstall returns the settings file data without agate's hooks for
// agent, on any event; changed is false (and out is data) when there were
// none. Matcher groups, events and the hooks object that held only
// agate's hooks go too (unless a comment is written in them); everything
// else stays as it was, comments included.
func Uninstall(agent string, data []byte) (out []byte, changed bool, err error) {
	l, err := layoutOf(agent)
	if err != nil {
		return nil, false, err
	}
	s, err := parseSettings(data)
	if err != nil {
		return nil, false, err
	}
	d := s.doc
	for _, ev := range s.events() {
		list, ok, isList := s.list(ev)
		if !ok || !isList {
			continue
		}
		before := d.edits
		l.walk(d, agent, list, func(string, box) bool { return true })
		if d.edits == before {
			continue
		}
		if len(list.array().Elements) == 0 && !holdsComment(list.v) {
			d.removeMember(*s.hooks, ev)
		} else {
			d.dedupe(*s.hooks, ev)
		}
	}
	if d.edits == 0 {
		return data, false, nil
	}
	if len(s.hooks.object().Members) == 0 && !holdsComment(s.hooks.v) {
		d.removeMember(s.root, "hooks")
	} else {
		d.dedupe(s.root, "hooks")
	}
	out, err = d.bytes()
	return out, err == nil, err
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
	for _, ev := range s.events() {
		list, ok, isList := s.list(ev)
		if !ok || !isList {
			continue
		}
		l.walk(s.doc, agent, list, func(matcher string, h box) bool {
			e := Entry{Event: ev, Matcher: matcher}
			e.Command, _ = getString(h.object(), "command")
			e.Bin, _ = ParseCommand(e.Command, agent)
			if t, ok := get(h.object(), "timeout"); ok {
				e.Timeout = raw(t)
			}
			entries = append(entries, e)
			return false
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
