// Package settingsjson edits agate's hooks in the agents' JSON settings
// (Claude Code's, Gemini CLI's and Qwen Code's settings.json, Cursor's
// hooks.json) as
// bytes, with package jsonc: every key agate does not own stays, in its
// order, and so do the comments and trailing commas of a file that has
// them (JSON with comments, as Gemini CLI and VS Code allow). What agate
// adds is plain JSON laid out like the file, so a plain JSON file stays
// plain JSON. Install, Uninstall and Inspect read and write agate's
// entries; GeminiPolicy is the policy file agate puts beside Gemini CLI's
// settings. It is pure: the caller reads and writes the files.
package settingsjson

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/internal/hookjson"
	"github.com/agatehq/agate/app/internal/jsonc"
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
	// handlers (hooks.Cursor).
	grouped bool
	hooks   []Hook
	unit    time.Duration // the unit of the handler's timeout
	// handler returns a new handler for command.
	handler func(command string, timeout []byte) jsonc.Node
}

func layoutOf(agent string) (*layout, error) {
	switch agent {
	case hooks.ClaudeCode, hooks.ClaudeCompatible:
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
			handler: func(c string, t []byte) jsonc.Node {
				return jsonc.Obj("type", jsonc.Lit(hookjson.Must("command")), "command", jsonc.Lit(hookjson.Must(c)), "timeout", jsonc.Lit(t))
			},
		}, nil
	case hooks.Gemini:
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
			handler: func(c string, t []byte) jsonc.Node {
				return jsonc.Obj("name", jsonc.Lit(hookjson.Must("agate")), "type", jsonc.Lit(hookjson.Must("command")), "command", jsonc.Lit(hookjson.Must(c)), "timeout", jsonc.Lit(t))
			},
		}, nil
	case hooks.QwenCode:
		return &layout{
			grouped: true,
			hooks: []Hook{
				// No matcher: every tool (Qwen's matcher is a regex).
				{"PreToolUse", ""},
				// Outside content taints the run; what a call wrote is
				// the session's as it stands once it ran.
				{"PostToolUse", ""},
				{"UserPromptSubmit", ""},
				{"Stop", ""},
			},
			// Milliseconds: Qwen Code reads a timeout under 1000 as
			// seconds and one of 1000 or more as milliseconds, so a
			// timeout in seconds past 999 would be read as a second.
			unit: time.Millisecond,
			handler: func(c string, t []byte) jsonc.Node {
				return jsonc.Obj("type", jsonc.Lit(hookjson.Must("command")), "command", jsonc.Lit(hookjson.Must(c)), "timeout", jsonc.Lit(t))
			},
		}, nil
	case hooks.Copilot:
		return &layout{
			hooks: []Hook{
				{"preToolUse", ""},
				// Outside content taints the run.
				{"postToolUse", ""},
				{"userPromptSubmitted", ""},
			},
			unit: time.Second,
			handler: func(c string, t []byte) jsonc.Node {
				// command and timeout: Copilot's aliases of bash and
				// timeoutSec, the keys agate reads back.
				return jsonc.Obj("type", jsonc.Lit(hookjson.Must("command")), "command", jsonc.Lit(hookjson.Must(c)), "timeout", jsonc.Lit(t))
			},
		}, nil
	case hooks.Cursor:
		return &layout{
			hooks: []Hook{
				{"beforeShellExecution", ""},
				{"beforeMCPExecution", ""},
				{"beforeReadFile", ""},
				{"afterMCPExecution", ""},
				{"beforeSubmitPrompt", ""},
			},
			unit: time.Second,
			handler: func(c string, t []byte) jsonc.Node {
				return jsonc.Obj("command", jsonc.Lit(hookjson.Must(c)), "timeout", jsonc.Lit(t))
			},
		}, nil
	}
	return nil, fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(hooks.Agents(), ", "))
}

// Hooks returns the hooks Install registers for agent.
func Hooks(agent string) []Hook {
	if agent == hooks.OpenCode {
		// (agate's plugin, not JSON settings: package settings writes it;
		// these are the plugin hooks it holds)
		return []Hook{{"tool.execute.before", ""}, {"tool.execute.after", ""}}
	}
	l, err := layoutOf(agent)
	if err != nil {
		return nil
	}
	return l.hooks
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
	doc   *jsonc.Doc
	root  jsonc.Box
	hooks *jsonc.Box // nil when the file has none
}

// parseSettings parses a settings file. Empty data is an empty file.
func parseSettings(data []byte) (*settings, error) {
	d, err := jsonc.Parse(data)
	if err != nil {
		return nil, err
	}
	s := &settings{doc: d, root: d.Root()}
	if v, ok := jsonc.Get(s.root.Object(), "hooks"); ok {
		if _, ok := v.Value.(*hujson.Object); !ok {
			return nil, errors.New(`"hooks" is not a JSON object`)
		}
		b := d.BoxOf(s.root, v)
		s.hooks = &b
	}
	return s, nil
}

// hooksBox returns the hooks object, adding it when the file has none.
func (s *settings) hooksBox() jsonc.Box {
	if s.hooks == nil {
		s.doc.SetMember(s.root, "hooks", jsonc.Obj())
		v, _ := jsonc.Get(s.root.Object(), "hooks")
		b := s.doc.BoxOf(s.root, v)
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
	for _, m := range s.hooks.Object().Members {
		if k := m.Name.Value.(hujson.Literal).String(); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// list returns an event's list of hooks; ok is false when there is none
// (or null), and isList false when it is something else.
func (s *settings) list(event string) (b jsonc.Box, ok, isList bool) {
	if s.hooks == nil {
		return jsonc.Box{}, false, true
	}
	v, ok := jsonc.Get(s.hooks.Object(), event)
	if !ok {
		return jsonc.Box{}, false, true
	}
	if _, isArr := v.Value.(*hujson.Array); !isArr {
		return jsonc.Box{}, true, false
	}
	return s.doc.BoxOf(*s.hooks, v), true, true
}

// handlerFunc looks at one of agate's handlers (matcher is its group's),
// changes it in place if it must, and says whether it goes.
type handlerFunc func(matcher string, h jsonc.Box) (drop bool)

// walk calls fn on each of agate's handlers in an event's list, in order,
// and removes those fn drops. Anything that is not agate's, or that agate
// cannot read, stays as it was. A group left with no handlers by fn is
// removed, unless a comment is written in it.
func (l *layout) walk(d *jsonc.Doc, agent string, list jsonc.Box, fn handlerFunc) {
	agates := func(h *hujson.Value) bool {
		o, ok := h.Value.(*hujson.Object)
		if !ok {
			return false
		}
		cmd, _ := jsonc.GetString(o, "command")
		_, ok = hooks.ParseCommand(cmd, agent)
		return ok
	}
	// handlers walks one list of handlers and returns whether it dropped one.
	handlers := func(b jsonc.Box, matcher string) bool {
		a := b.Array()
		var drop []int
		for i := range a.Elements {
			h := &a.Elements[i]
			if !agates(h) {
				continue
			}
			m := matcher
			if !l.grouped {
				m, _ = jsonc.GetString(h.Value.(*hujson.Object), "matcher")
			}
			if fn(m, d.BoxOf(b, h)) {
				drop = append(drop, i)
			}
		}
		for k := len(drop) - 1; k >= 0; k-- {
			d.Remove(b, drop[k])
		}
		return len(drop) > 0
	}
	if !l.grouped {
		handlers(list, "")
		return
	}
	a := list.Array()
	var empty []int
	for i := range a.Elements {
		g, ok := a.Elements[i].Value.(*hujson.Object)
		if !ok {
			continue
		}
		hv, ok := jsonc.Get(g, "hooks")
		if !ok {
			continue
		}
		if _, ok := hv.Value.(*hujson.Array); !ok {
			continue
		}
		gb := d.BoxOf(list, &a.Elements[i])
		matcher, _ := jsonc.GetString(g, "matcher")
		hb := d.BoxOf(gb, hv)
		if handlers(hb, matcher) && len(hb.Array().Elements) == 0 && !jsonc.HoldsComment(&a.Elements[i]) {
			empty = append(empty, i) // the group held only agate's hooks
		}
	}
	for k := len(empty) - 1; k >= 0; k-- {
		d.Remove(list, empty[k])
	}
}

// matchesAll reports whether a matcher picks every tool, in the agents'
// spellings.
func matchesAll(m string) bool { return m == "" || m == "*" || m == ".*" }

func sameMatcher(a, b string) bool { return a == b || matchesAll(a) && matchesAll(b) }

// timeoutValue is timeout in the agent's unit, rounded up, as JSON.
func (l *layout) timeoutValue(timeout time.Duration) []byte {
	n := (timeout + l.unit - 1) / l.unit
	return hookjson.Must(int64(n))
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
	if _, ok := hooks.ParseCommand(command, agent); !ok {
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
		before := d.Edits()
		found := false
		if ok {
			l.walk(d, agent, list, func(matcher string, h jsonc.Box) bool {
				if found || !sameMatcher(matcher, hk.Matcher) {
					return true // a duplicate, or agate's hook with another matcher
				}
				found = true
				if c, _ := jsonc.GetString(h.Object(), "command"); c != command {
					d.SetMember(h, "command", jsonc.Lit(hookjson.Must(command)))
				}
				if t, ok := jsonc.Get(h.Object(), "timeout"); !ok || jsonc.Raw(t) != string(tv) {
					d.SetMember(h, "timeout", jsonc.Lit(tv))
				}
				return false
			})
		}
		if !found {
			entry := l.handler(command, tv)
			if l.grouped {
				if hk.Matcher != "" {
					entry = jsonc.Obj("matcher", jsonc.Lit(hookjson.Must(hk.Matcher)), "hooks", jsonc.Arr(entry))
				} else {
					entry = jsonc.Obj("hooks", jsonc.Arr(entry))
				}
			}
			if ok {
				d.AppendElement(list, entry)
			} else {
				d.SetMember(s.hooksBox(), hk.Event, jsonc.Arr(entry))
			}
		}
		if d.Edits() > before {
			d.Dedupe(*s.hooks, hk.Event)
		}
	}
	if d.Edits() == 0 {
		return data, false, nil
	}
	if agent == hooks.Cursor || agent == hooks.Copilot {
		if len(jsonc.Indices(s.root.Object(), "version")) == 0 {
			d.AddMember(s.root, "version", jsonc.Lit(hookjson.Must(1)), true)
		}
	}
	d.Dedupe(s.root, "hooks")
	out, err = d.Bytes()
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
		before := d.Edits()
		l.walk(d, agent, list, func(string, jsonc.Box) bool { return true })
		if d.Edits() == before {
			continue
		}
		if len(list.Array().Elements) == 0 && !jsonc.HoldsComment(list.Value()) {
			d.RemoveMember(*s.hooks, ev)
		} else {
			d.Dedupe(*s.hooks, ev)
		}
	}
	if d.Edits() == 0 {
		return data, false, nil
	}
	if len(s.hooks.Object().Members) == 0 && !jsonc.HoldsComment(s.hooks.Value()) {
		d.RemoveMember(s.root, "hooks")
	} else {
		d.Dedupe(s.root, "hooks")
	}
	out, err = d.Bytes()
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
		l.walk(s.doc, agent, list, func(matcher string, h jsonc.Box) bool {
			e := Entry{Event: ev, Matcher: matcher}
			e.Command, _ = jsonc.GetString(h.Object(), "command")
			e.Bin, _ = hooks.ParseCommand(e.Command, agent)
			if t, ok := jsonc.Get(h.Object(), "timeout"); ok {
				e.Timeout = jsonc.Raw(t)
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
