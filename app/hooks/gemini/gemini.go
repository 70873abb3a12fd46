// Package gemini is Gemini CLI's hook protocol (docs/hook-protocols.md):
// BeforeTool answered with decision allow, deny or ask, MCP tools named
// from mcp_context, AfterTool and BeforeAgent for a run's taint and its
// start.
package gemini

import (
	"cmp"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/internal/hookjson"
	"github.com/agatehq/agate/policy/verdict"
)

// geminiInput is the part of a Gemini CLI hook input agate reads.
type geminiInput struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	MCPContext    json.RawMessage `json:"mcp_context"`
	Prompt        string          `json:"prompt"` // BeforeAgent's
}

// geminiMCP is the part of mcp_context agate reads.
type geminiMCP struct {
	ServerName string `json:"server_name"`
	ToolName   string `json:"tool_name"`
}

// geminiOutsideTools are Gemini CLI's built-in tools whose results come
// from outside the machine; every MCP tool does too.
var geminiOutsideTools = map[string]bool{
	"web_fetch":         true,
	"google_web_search": true,
}

// geminiTool names a Gemini CLI tool for the policy. MCP tools, which
// Gemini has named "tool", "server__tool" and "mcp_server_tool" over its
// versions, are named from mcp_context as mcp__SERVER__TOOL, the way
// Claude Code and agate's catalog name them. isMCP says mcp_context was
// there.
func geminiTool(in *geminiInput) (name string, isMCP bool) {
	if len(in.MCPContext) == 0 || hookjson.IsNull(in.MCPContext) {
		return in.ToolName, false
	}
	var mc geminiMCP
	if json.Unmarshal(in.MCPContext, &mc) == nil && mc.ServerName != "" && mc.ToolName != "" {
		return hooks.MCPToolName(mc.ServerName, mc.ToolName), true
	}
	// An MCP tool whose server is not named must never pass for a
	// built-in tool of the same name (a server's "read_file").
	tool := in.ToolName
	if mc.ToolName != "" {
		tool = mc.ToolName
	}
	return "mcp__unknown__" + tool, true
}

// Parse reads a Gemini CLI hook input.
func Parse(data []byte, getenv func(string) string) (*hooks.Event, error) {
	var in geminiInput
	if err := hookjson.DecodeInput(data, &in); err != nil {
		return nil, err
	}
	ev := &hooks.Event{
		Name:        in.HookEventName,
		Session:     in.SessionID,
		Cwd:         in.Cwd,
		Workspace:   cmp.Or(getenv("GEMINI_PROJECT_DIR"), getenv("CLAUDE_PROJECT_DIR")),
		Interactive: true,
		// Gemini CLI takes "ask" from BeforeTool since PR #21146 (March
		// 2026); older versions ignore it and run their own confirmation.
		AgentPrompt: true,
	}
	switch in.HookEventName {
	case "":
		return nil, errors.New("no hook_event_name")
	case "BeforeTool":
		if in.ToolName == "" {
			return nil, errors.New("BeforeTool without a tool_name")
		}
		args, err := hookjson.DecodeArgs(in.ToolInput)
		if err != nil {
			return nil, err
		}
		ev.Kind, ev.Args = hooks.KindCall, args
		var isMCP bool
		ev.Tool, isMCP = geminiTool(&in)
		if why := geminiUnconfirmed(in.ToolName, isMCP); why != "" {
			ev.NoAgentPrompt(why)
		}
	case "AfterTool":
		tool, isMCP := geminiTool(&in)
		if isMCP || geminiOutsideTools[in.ToolName] || strings.HasPrefix(in.ToolName, "mcp_") {
			ev.Kind, ev.Tool = hooks.KindTaint, tool
		}
	case "BeforeAgent":
		ev.Kind, ev.Prompt = hooks.KindNewRun, in.Prompt
	}
	return ev, nil
}

// geminiUnconfirmed says why Gemini CLI may run a call without showing
// its dialog even when a hook answers "ask", or "" when it shows it.
// Gemini forces its dialog for an ask, but a tool can still decline to
// confirm (Gemini CLI 0.61, packages/core/src/tools): an MCP tool of a
// server with `trust: true`, or one the person allowed "always" earlier in
// the session (an in-memory allowlist the hook cannot see); a built-in
// skill's activate_skill.
func geminiUnconfirmed(tool string, isMCP bool) string {
	switch {
	case isMCP || strings.HasPrefix(tool, "mcp_"):
		return "gemini may run an MCP tool without asking (its server is trusted, or was allowed for the session)"
	case tool == "activate_skill":
		return "gemini activates a built-in skill without asking"
	}
	return ""
}

// geminiOutput is Gemini CLI's BeforeTool answer. reason goes to the model
// when the call is blocked; systemMessage to the person (in the
// confirmation dialog for an ask).
type geminiOutput struct {
	Decision      verdict.Verdict `json:"decision"`
	Reason        string          `json:"reason,omitempty"`
	SystemMessage string          `json:"systemMessage,omitempty"`
}

// Render answers a BeforeTool.
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	out := geminiOutput{Decision: a.Decision}
	switch a.Decision {
	case verdict.Allow:
		out.Reason = a.UserText()
	case verdict.Ask:
		out.Reason = a.UserText()
		out.SystemMessage = a.UserText()
	default:
		out.Reason = a.ModelText()
		out.SystemMessage = a.UserText()
	}
	return hookjson.Output(out)
}

// Neutral is an empty object: no decision.
func Neutral(*hooks.Event) hooks.Output { return hooks.Output{Stdout: []byte("{}\n")} }
