// Package claude is Claude Code's hook protocol (docs/hook-protocols.md):
// PreToolUse answered with permissionDecision allow, deny or ask, an
// allowed call's tool_input replaced by updatedInput (SandboxBash), and
// the events that say what became of a call.
package claude

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/internal/hookjson"
	"github.com/agatehq/agate/policy/verdict"
)

// claudeInput is the part of a Claude Code hook input agate reads. Claude
// Code keeps adding fields; the others are ignored.
type claudeInput struct {
	SessionID      string          `json:"session_id"`
	PromptID       string          `json:"prompt_id"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	Reason         string          `json:"reason"` // PermissionDenied's
	Prompt         string          `json:"prompt"` // UserPromptSubmit's
}

// The outcomes the Claude Code adapter reports (api.OutcomeRan, ...;
// package claude does not import package api).
const (
	outcomeRan    = "ran"
	outcomeDenied = "denied"
	outcomeEnded  = "ended"
	outcomeFailed = "failed"
)

// claudeOutsideTools are the Claude Code tools whose results come from
// outside the machine; every mcp__ tool does too.
var claudeOutsideTools = map[string]bool{
	"WebFetch":            true,
	"WebSearch":           true,
	"ReadMcpResourceTool": true,
}

// claudeOutside reports whether a Claude Code tool brings outside content
// into the run.
func claudeOutside(tool string) bool {
	return claudeOutsideTools[tool] || strings.HasPrefix(tool, "mcp__")
}

// Parse reads a Claude Code hook input.
func Parse(data []byte, getenv func(string) string) (*hooks.Event, error) {
	var in claudeInput
	if err := hookjson.DecodeInput(data, &in); err != nil {
		return nil, err
	}
	// Claude Code runs its hooks with CLAUDE_CODE_ENTRYPOINT: "cli" in
	// its terminal, "sdk-cli" (and other sdk-*) for -p and SDK runs, where
	// it has no prompt of its own to put a question to.
	headless := strings.HasPrefix(getenv("CLAUDE_CODE_ENTRYPOINT"), "sdk-")
	ev := &hooks.Event{
		Name:      in.HookEventName,
		Session:   in.SessionID,
		Run:       in.PromptID,
		Cwd:       in.Cwd,
		Workspace: getenv("CLAUDE_PROJECT_DIR"),
		// Nobody is asked in these modes: an ask there must be a deny.
		Interactive: in.PermissionMode != "bypassPermissions" && in.PermissionMode != "dontAsk",
		AgentPrompt: !headless,
		Headless:    headless,
	}
	switch in.HookEventName {
	case "":
		return nil, errors.New("no hook_event_name")
	case "PreToolUse":
		if in.ToolName == "" {
			return nil, errors.New("PreToolUse without a tool_name")
		}
		args, err := hookjson.DecodeArgs(in.ToolInput)
		if err != nil {
			return nil, err
		}
		ev.Kind, ev.Tool, ev.Args, ev.Input = hooks.KindCall, in.ToolName, args, hookjson.ObjectOrEmpty(in.ToolInput)
		ev.ToolUseID = in.ToolUseID
	case "PostToolUse", "PostToolUseFailure", "PermissionDenied":
		// What became of a call: it ran (a failure ran too), or the agent
		// denied it. Every tool's, for the calls whose ask went to Claude
		// Code's prompt; a tool that brings outside content in also taints
		// the run.
		ev.Kind, ev.Tool, ev.ToolUseID, ev.Outcome = hooks.KindOutcome, in.ToolName, in.ToolUseID, outcomeRan
		if in.HookEventName == "PostToolUseFailure" {
			ev.Outcome = outcomeFailed
		}
		if in.HookEventName == "PermissionDenied" {
			ev.Outcome, ev.OutcomeReason = outcomeDenied, in.Reason
		} else if claudeOutside(in.ToolName) {
			ev.Kind = hooks.KindTaint
		}
		if args, err := hookjson.DecodeArgs(in.ToolInput); err == nil {
			ev.Args = args
		}
	case "Stop", "SessionEnd":
		// The turn or the session is over: a call still waiting in Claude
		// Code's prompt did not run. (A person's "no" there, or Esc, fires
		// no event of its own.)
		ev.Kind, ev.Outcome = hooks.KindOutcome, outcomeEnded
	case "UserPromptSubmit":
		ev.Kind, ev.Outcome, ev.Prompt = hooks.KindNewRun, outcomeEnded, in.Prompt
	}
	return ev, nil
}

// claudeOutput is Claude Code's PreToolUse answer.
type claudeOutput struct {
	HookSpecificOutput claudeDecision `json:"hookSpecificOutput"`
}

type claudeDecision struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       verdict.Verdict `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
	AdditionalContext        string          `json:"additionalContext,omitempty"`
}

// Render answers a PreToolUse. The reason of a deny goes to the model,
// that of an ask to the person in Claude Code's prompt, that of an allow
// to the debug log.
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	d := claudeDecision{HookEventName: "PreToolUse", PermissionDecision: a.Decision}
	switch a.Decision {
	case verdict.Allow:
		d.PermissionDecisionReason = a.UserText()
		d.UpdatedInput = a.UpdatedInput
		d.AdditionalContext = a.Context
	case verdict.Ask:
		d.PermissionDecisionReason = a.UserText()
	default:
		d.PermissionDecisionReason = a.ModelText()
	}
	return hookjson.Output(claudeOutput{HookSpecificOutput: d})
}

// PostContext answers a post-tool event (PostToolUse, PostToolUseFailure)
// with text for the model: what became of a call it should know.
func PostContext(ev *hooks.Event, text string) hooks.Output {
	type post struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	return hookjson.Output(struct {
		HookSpecificOutput post `json:"hookSpecificOutput"`
	}{post{ev.Name, text}})
}

// Neutral is no output: Claude Code reads it as no decision.
func Neutral(*hooks.Event) hooks.Output { return hooks.Output{} }
