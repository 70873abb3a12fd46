package codexconfig

import (
	"fmt"
	"slices"
	"sort"

	"github.com/agatehq/agate/app/hooks"
)

// Trust is what Codex would do with one hook, going by its state.
type Trust string

// The trust a hook can have.
const (
	// Trusted: the recorded hash is the hook's: Codex runs it.
	Trusted Trust = "trusted"
	// Stale: a hash is recorded, but not this hook's (its command,
	// timeout, matcher or position changed): Codex skips it.
	Stale Trust = "stale hash"
	// Untrusted: no hash is recorded: Codex skips it.
	Untrusted Trust = "untrusted"
	// Disabled: the state says enabled = false: Codex skips it.
	Disabled Trust = "disabled"
)

// Entry is one of agate's hooks found in a config.toml.
type Entry struct {
	Event   string
	Matcher string // "" when the group has none
	Command string
	Bin     string // the program the command runs
	Timeout int    // seconds, as written; 0 when absent
	Key     string // its hook-state key
	Hash    string // the hash Codex computes for it now
	Trust   Trust
}

// Status is what a config.toml says about agate's hooks.
type Status struct {
	Entries []Entry
	Missing []Spec // hooks Install writes that are not there
	// HooksOff says why Codex runs no hooks at all from its config
	// ([features] hooks = false), "" when nothing turns them off. Only
	// the user's file (state) is looked at for it.
	HooksOff string
}

// Inspect reads agate's hooks in data, the config.toml Codex keys by
// source, and their trust in state, the user's config.toml (data itself
// for the user's file; nil reads no trust: every hook is Untrusted).
func Inspect(data []byte, source string, state []byte) (Status, error) {
	var st Status
	doc, err := decode(data)
	if err != nil {
		return st, err
	}
	trust := map[string]any{}
	if state != nil {
		sdoc, err := decode(state)
		if err != nil {
			return st, fmt.Errorf("the user's config: %w", err)
		}
		if h, ok := sdoc["hooks"].(map[string]any); ok {
			if s, ok := h["state"].(map[string]any); ok {
				trust = s
			}
		}
		st.HooksOff = hooksOff(sdoc)
	}
	evs, _ := doc["hooks"].(map[string]any)
	events := make([]string, 0, len(evs))
	for ev := range evs {
		if ev != "state" {
			events = append(events, ev)
		}
	}
	sort.Strings(events)
	for _, ev := range events {
		groups, ok := evs[ev].([]any)
		if !ok {
			continue
		}
		for gi, g := range groups {
			gm, _ := g.(map[string]any)
			matcher, _ := gm["matcher"].(string)
			handlers, _ := gm["hooks"].([]any)
			for hi, h := range handlers {
				hm, _ := h.(map[string]any)
				cmd, _ := hm["command"].(string)
				if typ, _ := hm["type"].(string); typ != "command" {
					continue
				}
				hc, ok := hooks.ParseCommandWith(cmd, hooks.Codex)
				if !ok {
					continue
				}
				timeout, _ := hm["timeout"].(int64)
				async, _ := hm["async"].(bool)
				status, _ := hm["statusMessage"].(string)
				e := Entry{Event: ev, Matcher: matcher, Command: cmd, Bin: hc.Bin, Timeout: int(timeout),
					Key: Key(source, ev, gi, hi)}
				e.Hash = Hook{Event: ev, Matcher: matcher, Command: cmd, Timeout: int(timeout), Async: async, StatusMessage: status}.Hash()
				e.Trust = trustOf(trust, e)
				st.Entries = append(st.Entries, e)
			}
		}
	}
	for _, s := range Hooks() {
		if !slices.ContainsFunc(st.Entries, func(e Entry) bool { return e.Event == s.Event }) {
			st.Missing = append(st.Missing, s)
		}
	}
	return st, nil
}

func trustOf(states map[string]any, e Entry) Trust {
	var s map[string]any
	for k, v := range states {
		if trimmed(k) == e.Key {
			s, _ = v.(map[string]any)
		}
	}
	if s == nil {
		return Untrusted
	}
	if en, ok := s["enabled"].(bool); ok && !en {
		return Disabled
	}
	switch h, _ := s["trusted_hash"].(string); {
	case h == "":
		return Untrusted
	case h == e.Hash:
		return Trusted
	}
	return Stale
}

// trimmed is a state key as Codex reads it: surrounding spaces trimmed.
func trimmed(k string) string {
	for len(k) > 0 && (k[0] == ' ' || k[0] == '\t') {
		k = k[1:]
	}
	for len(k) > 0 && (k[len(k)-1] == ' ' || k[len(k)-1] == '\t') {
		k = k[:len(k)-1]
	}
	return k
}

// hooksOff says why a user config turns every hook off, or "".
func hooksOff(doc map[string]any) string {
	f, _ := doc["features"].(map[string]any)
	for _, k := range []string{"hooks", "codex_hooks"} {
		if on, ok := f[k].(bool); ok && !on {
			return "[features] " + k + " = false"
		}
	}
	return ""
}

// ProjectTrusted reports whether the user's config.toml (state) trusts
// the project folder dir ([projects."DIR"] trust_level = "trusted"):
// Codex loads a project's .codex/config.toml only then. A file that does
// not parse trusts nothing.
func ProjectTrusted(state []byte, dir string) bool {
	doc, err := decode(state)
	if err != nil {
		return false
	}
	projects, _ := doc["projects"].(map[string]any)
	p, _ := projects[dir].(map[string]any)
	level, _ := p["trust_level"].(string)
	return level == "trusted"
}
