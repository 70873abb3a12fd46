// Package qwen is Qwen Code's hook protocol (docs/hook-protocols.md).
// Qwen Code is a fork of Gemini CLI that kept Claude Code's hook
// protocol, not Gemini's: PreToolUse with tool_name and tool_input (in
// Gemini's tool names: run_shell_command, write_file, edit), answered
// with permissionDecision allow or ask, and the events after a call. It
// runs a call whose hook exits 1, is killed, prints garbage, prints
// nothing or times out; only exit 2 blocks. So a deny is exit 2 with the
// reason on stderr (which the model is given), never a JSON answer Qwen
// might not read, and an allow or ask is always JSON.
package qwen

import (
	"encoding/json"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/claude"
	"github.com/agatehq/agate/policy/verdict"
)

// qwenInput is what agate reads beyond Claude Code's fields.
type qwenInput struct {
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode"`
	ToolName       string `json:"tool_name"`
}

// outsideTools are Qwen Code's tools whose results come from outside the
// machine (and every mcp__ tool, as for Claude Code).
var outsideTools = map[string]bool{"web_fetch": true, "web_search": true, "google_web_search": true}

// Parse reads a Qwen Code hook input: Claude Code's shape, with Qwen's
// project folder (QWEN_PROJECT_DIR), modes and tools.
func Parse(data []byte, getenv func(string) string) (*hooks.Event, error) {
	ev, err := claude.Parse(data, func(k string) string {
		if k == "CLAUDE_CODE_ENTRYPOINT" {
			return "" // (Claude Code's; Qwen sets no such thing)
		}
		return getenv(k)
	})
	if err != nil {
		return nil, err
	}
	var in qwenInput
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, err
	}
	if ws := getenv("QWEN_PROJECT_DIR"); ws != "" {
		ev.Workspace = ws
	}
	// yolo runs every call unasked: an ask there is a deny.
	ev.Interactive = in.PermissionMode != "yolo"
	ev.Input = nil // (Qwen's calls are not rewritten: api.Rewritable)
	if (in.HookEventName == "PostToolUse" || in.HookEventName == "PostToolUseFailure") && outsideTools[in.ToolName] {
		ev.Kind = hooks.KindTaint
	}
	return ev, nil
}

// Render answers a PreToolUse: an allow or an ask as Claude Code's JSON,
// a deny as exit 2 with the reason on stderr, the one answer Qwen Code
// always obeys.
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	if a.Decision == verdict.Allow || a.Decision == verdict.Ask {
		a.UpdatedInput = nil // (Qwen's calls are not rewritten: api.Rewritable)
		return claude.Render(ev, a)
	}
	return hooks.Blocked(a.ModelText())
}

// PostContext answers a post-tool event with text for the model.
func PostContext(ev *hooks.Event, text string) hooks.Output { return claude.PostContext(ev, text) }

// Neutral is no output, which Qwen Code reads as no decision; it is given
// only to events that decide no call.
func Neutral(ev *hooks.Event) hooks.Output { return hooks.Output{} }
