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
//
// An allowed bash call that must run confined comes back with "args",
// the call's arguments with its command rewritten (confine.Shell):
// OpenCode runs the arguments object the plugin was handed, so the plugin
// replaces its members in place. After a call (tool.execute.after) the
// plugin sends what it ran and its exit status, and appends the hook's
// "context", when there is one, to the output the model reads.
package opencode

import (
	"encoding/json"
	"errors"
	"path/filepath"

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
	// Exit is, after a bash call, its exit status (the tool's
	// metadata.exit); nil when OpenCode gave none.
	Exit *int `json:"exit"`
}

// shellTool is OpenCode's shell tool, whose calls agate can rewrite.
const shellTool = "bash"

// shellInput is what agate reads of a bash call's arguments beside the
// command: the folder it runs in.
type shellInput struct {
	Workdir string `json:"workdir"`
}

// The outcomes of a call (api.OutcomeRequest.Outcome).
const (
	outcomeRan    = "ran"
	outcomeFailed = "failed"
)

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
		ev.Kind, ev.Tool, ev.Args = hooks.KindCall, in.Tool, args
		if in.Tool == shellTool {
			// The arguments as sent, for a rewrite that confines the
			// command; it runs in workdir, which OpenCode resolves against
			// the directory it runs in.
			ev.Input = hookjson.ObjectOrEmpty(in.Args)
			var sh shellInput
			if json.Unmarshal(in.Args, &sh) == nil && sh.Workdir != "" {
				if filepath.IsAbs(sh.Workdir) {
					ev.Cwd = filepath.Clean(sh.Workdir)
				} else if in.Directory != "" {
					ev.Cwd = filepath.Join(in.Directory, sh.Workdir)
				}
			}
		}
	case "tool.execute.after":
		switch {
		case outsideTools[in.Tool]:
			ev.Kind, ev.Tool = hooks.KindTaint, in.Tool
		case in.Tool != "":
			// What became of the call: it ran (a bash call that exited
			// non-zero failed). The daemon tells from the command whether
			// it ran confined.
			ev.Kind, ev.Tool, ev.Outcome = hooks.KindOutcome, in.Tool, outcomeRan
			if in.Exit != nil && *in.Exit != 0 {
				ev.Outcome = outcomeFailed
			}
			if args, err := hookjson.DecodeArgs(in.Args); err == nil {
				ev.Args = args
			}
		}
	case "":
		return nil, errors.New("no event")
	}
	return ev, nil
}

// output is the hook's answer to agate's plugin.
type output struct {
	Decision string          `json:"decision"`
	Reason   string          `json:"reason,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`    // an allowed call's arguments, rewritten
	Context  string          `json:"context,omitempty"` // after a call: text for the model
}

// Render answers a call: allow (with the arguments rewritten, when the
// call runs confined), or deny with the reason the model is given (the
// plugin throws it). An ask that reaches here is a deny.
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	if a.Decision == verdict.Allow {
		return hookjson.Output(output{Decision: "allow", Args: a.UpdatedInput})
	}
	return hookjson.Output(output{Decision: "deny", Reason: a.ModelText()})
}

// Block is a deny with its reason, for a call agate could not decide.
func Block(ev *hooks.Event, msg string) hooks.Output {
	out := hookjson.Output(output{Decision: "deny", Reason: msg})
	out.Stderr = msg + "\n"
	return out
}

// PostContext answers tool.execute.after with text the plugin appends to
// the call's output, which the model reads.
func PostContext(ev *hooks.Event, text string) hooks.Output {
	return hookjson.Output(output{Decision: "none", Context: text})
}

// Neutral answers an event that decides no call.
func Neutral(*hooks.Event) hooks.Output { return hookjson.Output(output{Decision: "none"}) }
