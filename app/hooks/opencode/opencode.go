// Package opencode is the protocol between agate's OpenCode plugin and
// agate's hook (docs/hook-protocols.md). OpenCode's plugins run inside
// its process and see every tool call in tool.execute.before, which
// blocks a call by throwing; OpenCode has no timeout for a plugin and
// skips, without a word, one that fails to load. agate's plugin (Plugin)
// is small and imports nothing but node:child_process: it runs agate's
// hook with the call as one JSON object on stdin, waits at most the
// timeout, and throws unless the hook printed an allow. The hook's
// answer is JSON: {"decision": "allow"} or {"decision": "deny",
// "reason": R}. OpenCode has no ask a plugin can raise, so an ask is
// agate's own (its tray, a terminal) or a deny.
package opencode

import (
	"encoding/json"
	"errors"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/internal/hookjson"
	"github.com/agatehq/agate/policy/verdict"
)

// input is what agate's plugin writes on the hook's stdin.
type input struct {
	Event     string          `json:"event"` // "tool.execute.before", "tool.execute.after"
	Tool      string          `json:"tool"`
	SessionID string          `json:"sessionID"`
	CallID    string          `json:"callID"`
	Args      json.RawMessage `json:"args"`
	Directory string          `json:"directory"` // the plugin's ctx.directory: where the calls run
	Worktree  string          `json:"worktree"`
}

// outsideTools are OpenCode's tools whose results come from outside the
// machine.
var outsideTools = map[string]bool{"webfetch": true, "websearch": true}

// Parse reads what agate's plugin wrote.
func Parse(data []byte, getenv func(string) string) (*hooks.Event, error) {
	var in input
	if err := hookjson.DecodeInput(data, &in); err != nil {
		return nil, err
	}
	ev := &hooks.Event{
		Name:        in.Event,
		Session:     in.SessionID,
		Cwd:         in.Directory,
		Workspace:   in.Worktree,
		Interactive: true,
		NoPrompt:    "opencode has no prompt a plugin can raise",
		ToolUseID:   in.CallID,
	}
	if ev.Workspace == "/" {
		ev.Workspace = in.Directory // (OpenCode's worktree outside a git repository)
	}
	switch in.Event {
	case "tool.execute.before":
		if in.Tool == "" {
			return nil, errors.New("tool.execute.before without a tool")
		}
		args, err := hookjson.DecodeArgs(in.Args)
		if err != nil {
			return nil, err
		}
		ev.Kind, ev.Tool, ev.Args = hooks.KindCall, in.Tool, args // (not rewritten: no Input)
	case "tool.execute.after":
		if outsideTools[in.Tool] {
			ev.Kind, ev.Tool = hooks.KindTaint, in.Tool
		}
	case "":
		return nil, errors.New("no event")
	}
	return ev, nil
}

// output is the hook's answer to agate's plugin.
type output struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// Render answers a call: allow, or deny with the reason the model is
// given (the plugin throws it). An ask that reaches here is a deny.
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	if a.Decision == verdict.Allow {
		return hookjson.Output(output{Decision: "allow"})
	}
	return hookjson.Output(output{Decision: "deny", Reason: a.ModelText()})
}

// Block is a deny with its reason, for a call agate could not decide.
func Block(ev *hooks.Event, msg string) hooks.Output {
	out := hookjson.Output(output{Decision: "deny", Reason: msg})
	out.Stderr = msg + "\n"
	return out
}

// Neutral answers an event that decides no call.
func Neutral(*hooks.Event) hooks.Output { return hookjson.Output(output{Decision: "none"}) }
