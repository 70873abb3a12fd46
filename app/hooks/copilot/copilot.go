// Package copilot is GitHub Copilot CLI's hook protocol
// (docs/hook-protocols.md): command hooks in ~/.copilot/hooks/*.json
// (a repository's .github/hooks/ in a folder it trusts), a preToolUse
// payload of toolName and toolArgs, answered with permissionDecision
// allow, deny or ask in JSON on stdout. Copilot runs a call whose hook
// prints nothing or garbage (under --allow-all-tools) or times out, and
// drops the reason of a hook that exits 2: so every call is answered in
// JSON, a deny with its reason in the JSON, never with silence.
package copilot

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/internal/hookjson"
	"github.com/agatehq/agate/policy/verdict"
)

// copilotInput is what agate reads of a Copilot hook input. The events
// share one command and their payloads name no event: a preToolUse has
// toolName and no toolResult, a postToolUse a toolResult, a
// userPromptSubmitted a prompt.
type copilotInput struct {
	SessionID  string          `json:"sessionId"`
	Cwd        string          `json:"cwd"`
	ToolName   string          `json:"toolName"`
	ToolArgs   json.RawMessage `json:"toolArgs"` // an object; the docs say a JSON string
	ToolResult json.RawMessage `json:"toolResult"`
	Prompt     *string         `json:"prompt"`
}

// shellTool is Copilot's shell tool, whose calls agate can rewrite.
const shellTool = "bash"

// outsideTools are Copilot's tools whose results come from outside the
// machine.
var outsideTools = map[string]bool{"web_fetch": true, "web_search": true, "fetch": true}

// Parse reads a Copilot CLI hook input.
func Parse(data []byte, getenv func(string) string) (*hooks.Event, error) {
	var in copilotInput
	if err := hookjson.DecodeInput(data, &in); err != nil {
		return nil, err
	}
	ev := &hooks.Event{
		Session:     in.SessionID,
		Cwd:         in.Cwd,
		Workspace:   getenv("COPILOT_PROJECT_DIR"),
		Interactive: true,
		AgentPrompt: true, // (in -p Copilot turns an ask into a deny itself)
	}
	switch {
	case in.ToolResult != nil && !bytes.Equal(in.ToolResult, []byte("null")):
		ev.Name = "postToolUse"
		if outsideTools[in.ToolName] {
			ev.Kind, ev.Tool = hooks.KindTaint, in.ToolName
		}
	case in.Prompt != nil && in.ToolName == "":
		ev.Name, ev.Kind, ev.Prompt = "userPromptSubmitted", hooks.KindNewRun, *in.Prompt
	case in.ToolName != "":
		ev.Name = "preToolUse"
		raw := in.ToolArgs
		var s string
		if json.Unmarshal(raw, &s) == nil {
			raw = json.RawMessage(s) // (toolArgs as a JSON string)
		}
		args, err := hookjson.DecodeArgs(raw)
		if err != nil {
			return nil, err
		}
		ev.Kind, ev.Tool, ev.Args = hooks.KindCall, in.ToolName, args
		if in.ToolName == shellTool {
			// The arguments as sent, for a rewrite that confines the
			// command: modifiedArgs replaces them whole.
			ev.Input = hookjson.ObjectOrEmpty(raw)
		}
	default:
		return nil, errors.New("neither a tool call, its result, nor a prompt")
	}
	return ev, nil
}

// copilotOutput is a preToolUse answer.
type copilotOutput struct {
	PermissionDecision       verdict.Verdict `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	// ModifiedArgs replaces an allowed call's arguments whole (Copilot
	// 1.0.24 and later): a confined call's, its command rewritten.
	ModifiedArgs json.RawMessage `json:"modifiedArgs,omitempty"`
	// AdditionalContext is text for the model: how a confined call runs.
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// Render answers a preToolUse in JSON, exit 0: the reason of a deny goes
// to the model ("Denied by preToolUse hook: R"), that of an ask to the
// person. An allow of a call that runs confined carries its rewritten
// arguments; Copilot checks them against the tool's schema again, and an
// allow skips its own permission rules, so only the daemon's allow
// carries them.
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	o := copilotOutput{PermissionDecision: a.Decision}
	switch a.Decision {
	case verdict.Allow:
		o.PermissionDecisionReason = a.UserText()
		o.ModifiedArgs, o.AdditionalContext = a.UpdatedInput, a.Context
	case verdict.Ask:
		o.PermissionDecisionReason = a.UserText()
	default:
		o.PermissionDecision = verdict.Deny
		o.PermissionDecisionReason = a.ModelText()
	}
	return hookjson.Output(o)
}

// Block is a deny that carries its reason, for a call agate could not
// decide (the daemon unreachable): exit 2 would lose the reason.
func Block(ev *hooks.Event, msg string) hooks.Output {
	out := hookjson.Output(copilotOutput{PermissionDecision: verdict.Deny, PermissionDecisionReason: msg})
	out.Stderr = msg + "\n"
	return out
}

// Neutral is no output: an event that decides no call.
func Neutral(*hooks.Event) hooks.Output { return hooks.Output{} }
