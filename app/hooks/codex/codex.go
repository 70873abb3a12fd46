// Package codex is Codex CLI's hook protocol (docs/hook-protocols.md §9):
// PreToolUse, which honours only a block, and PermissionRequest, Codex's
// own prompt about to be shown.
package codex

import (
	"cmp"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/internal/hookjson"
	"github.com/agatehq/agate/policy/verdict"
)

// Codex CLI (docs/hook-protocols.md §9) runs a hook as Claude Code does,
// with one difference that shapes this adapter: its PreToolUse honours
// only a block. An allow, an ask, a failure, a crash or a timeout all let
// the call run. So agate never answers allow or ask there: an allow is no
// output at all, and an ask is the daemon's to settle (its own prompt, or
// a deny that says how to approve the call in agate). Codex's own prompt
// is reachable only through PermissionRequest, which fires where Codex
// itself would ask, and never in `codex exec`.

// codexInput is the part of a Codex hook payload agate reads.
type codexInput struct {
	SessionID      string          `json:"session_id"`
	TurnID         string          `json:"turn_id"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	PermissionMode string          `json:"permission_mode"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	Prompt         string          `json:"prompt"` // UserPromptSubmit's
}

// codexEvents are the hook events of Codex that agate knows.
var codexEvents = map[string]bool{
	"PreToolUse": true, "PermissionRequest": true, "PostToolUse": true, "UserPromptSubmit": true,
	"SessionStart": true, "Stop": true,
}

// codexOutside reports whether a Codex tool brings outside content into
// the run: every MCP tool does (web_search runs at the model's provider,
// where no hook sees it).
func codexOutside(tool string) bool { return strings.HasPrefix(tool, "mcp__") }

// Parse reads a Codex hook input.
func Parse(data []byte, getenv func(string) string) (*hooks.Event, error) {
	var in codexInput
	if err := hookjson.DecodeInput(data, &in); err != nil {
		return nil, err
	}
	ev := &hooks.Event{
		Name:    in.HookEventName,
		Session: in.SessionID,
		Run:     in.TurnID,
		Cwd:     in.Cwd,
		// permission_mode says nothing of a person: `codex exec` always
		// reports bypassPermissions. Whether anyone is at Codex's side is
		// told from the process tree by the caller (Headless).
		Interactive: true,
	}
	event := in.HookEventName
	if in.ToolName != "" && !codexEvents[event] {
		// An event agate does not know that names a tool (PreToolUse
		// spelled otherwise, one a later Codex adds): no output would
		// let the call run, so it is decided as a PreToolUse is.
		event = "PreToolUse"
	}
	switch event {
	case "":
		return nil, errors.New("no hook_event_name")
	case "PreToolUse", "PermissionRequest":
		if in.ToolName == "" {
			return nil, errors.New(in.HookEventName + " without a tool_name")
		}
		args, err := hookjson.DecodeArgs(in.ToolInput)
		if err != nil {
			return nil, err
		}
		if event == "PermissionRequest" {
			delete(args, "description") // the model's justification, not the call's
		}
		ev.Kind, ev.Tool, ev.Args, ev.ToolUseID = hooks.KindCall, in.ToolName, args, in.ToolUseID
		if event == "PreToolUse" && in.ToolName == "Bash" {
			ev.Input = hookjson.ObjectOrEmpty(in.ToolInput) // for a rewrite that confines it
		}
		// PreToolUse cannot hand a call to Codex's prompt;
		// PermissionRequest is Codex's prompt about to be shown.
		ev.AgentPrompt = event == "PermissionRequest"
		ev.Reasks = ev.AgentPrompt
		if !ev.AgentPrompt {
			ev.NoPrompt = "codex runs a call its hook does not block, so it cannot ask"
		}
	case "PostToolUse":
		if codexOutside(in.ToolName) {
			ev.Kind, ev.Tool = hooks.KindTaint, in.ToolName
		}
	case "UserPromptSubmit":
		ev.Kind, ev.Prompt = hooks.KindNewRun, in.Prompt
	}
	return ev, nil
}

// codexPermission is PermissionRequest's answer.
type codexPermission struct {
	HookSpecificOutput struct {
		HookEventName string `json:"hookEventName"`
		Decision      struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message,omitempty"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// codexRewrite is PreToolUse's allow with the call's input rewritten.
// Codex's output schema admits no other field: one more turns the answer
// into a failure, and the original command runs.
type codexRewrite struct {
	HookSpecificOutput codexRewritten `json:"hookSpecificOutput"`
}

type codexRewritten struct {
	HookEventName      string          `json:"hookEventName"`
	PermissionDecision string          `json:"permissionDecision"`
	UpdatedInput       json.RawMessage `json:"updatedInput"`
	AdditionalContext  string          `json:"additionalContext,omitempty"`
}

// Render answers a call. PreToolUse: an allow is no output (or, for a
// call confined, the input rewritten), anything
// else blocks with exit 2 and the reason on stderr (the one answer Codex
// cannot misread: an extra field in a JSON deny turns it into a failure,
// and a failure runs the call). PermissionRequest: allow or deny by
// behavior; an ask is no output, which leaves the call to Codex's own
// prompt.
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	if ev.Name == "PermissionRequest" {
		var out codexPermission
		out.HookSpecificOutput.HookEventName = "PermissionRequest"
		switch a.Decision {
		case verdict.Ask:
			return hooks.Output{}
		case verdict.Allow:
			out.HookSpecificOutput.Decision.Behavior = "allow"
		default:
			out.HookSpecificOutput.Decision.Behavior = "deny"
			out.HookSpecificOutput.Decision.Message = a.ModelText()
		}
		return hookjson.Output(out)
	}
	if a.Decision == verdict.Allow {
		if a.UpdatedInput != nil {
			// The one allow Codex takes: with the input rewritten, the
			// rewritten command runs (docs/hook-protocols.md §9.4).
			return hookjson.Output(codexRewrite{HookSpecificOutput: codexRewritten{
				HookEventName: "PreToolUse", PermissionDecision: "allow", UpdatedInput: a.UpdatedInput, AdditionalContext: a.Context,
			}})
		}
		return hooks.Output{}
	}
	if a.By == "unattended" {
		// agate denied an ask itself, nobody being there to answer:
		// say how a person can be asked next time.
		a.Reason = cmp.Or(a.Reason, "needs approval") + "; " + HowTo
	}
	// Codex adds ". Command: …" after the reason.
	return hooks.Blocked(strings.TrimSuffix(a.ModelText(), "."))
}

// Neutral is no output: Codex reads it as no decision.
func Neutral(*hooks.Event) hooks.Output { return hooks.Output{} }

// HowTo says how a person approves a Codex call agate could not ask
// about: Codex never shows a prompt for what its hook lets through, so
// agate's own prompt is the only way to be asked.
const HowTo = "to be asked, run `agate approvals --watch` in a terminal or keep agate's tray running, then retry; or allow it with a rule in agate's config"
