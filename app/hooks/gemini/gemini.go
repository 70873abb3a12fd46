// Package gemini is Gemini CLI's hook protocol (docs/hook-protocols.md):
// BeforeTool answered with decision allow, deny or ask (an allow may
// rewrite a shell call's input, hookSpecificOutput.tool_input, to run it
// confined), MCP tools named from mcp_context, AfterTool for a run's
// taint and what became of a shell call, BeforeAgent for a run's start.
package gemini

import (
	"cmp"
	"encoding/json"
	"errors"
	"path/filepath"
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
	ToolResponse  json.RawMessage `json:"tool_response"` // AfterTool's
	Prompt        string          `json:"prompt"`        // BeforeAgent's
}

// shellTool is Gemini CLI's shell tool.
const shellTool = "run_shell_command"

// geminiShellInput is the part of run_shell_command's input agate reads
// besides the command: the folder it runs in, relative to the project.
type geminiShellInput struct {
	DirPath string `json:"dir_path"`
}

// geminiResponse is the part of AfterTool's tool_response agate reads.
type geminiResponse struct {
	LLMContent json.RawMessage `json:"llmContent"`
	Error      json.RawMessage `json:"error"`
}

// failedExit reports whether text, what Gemini CLI's shell tool tells
// the model, has the line it writes for a command that failed: "Exit
// Code: N", N not 0.
func failedExit(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		n, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "Exit Code: ")
		if ok && n != "" && n != "0" && strings.Trim(n, "0123456789") == "" {
			return true
		}
	}
	return false
}

// shellFailed reports whether an AfterTool's tool_response says the shell
// command failed: an error, or an exit code other than 0.
func shellFailed(raw json.RawMessage) bool {
	var r geminiResponse
	if json.Unmarshal(raw, &r) != nil {
		return false
	}
	if len(r.Error) > 0 && !hookjson.IsNull(r.Error) {
		return true
	}
	var text string
	if json.Unmarshal(r.LLMContent, &text) == nil {
		return failedExit(text)
	}
	return failedExit(string(r.LLMContent))
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
		if ev.Tool == shellTool && !isMCP {
			// The input as sent, for a rewrite that confines the command;
			// the command runs in dir_path, which Gemini resolves against
			// the project (its target dir, the hook's cwd).
			ev.Input = hookjson.ObjectOrEmpty(in.ToolInput)
			var sh geminiShellInput
			if json.Unmarshal(in.ToolInput, &sh) == nil && sh.DirPath != "" {
				if base := cmp.Or(ev.Workspace, in.Cwd); filepath.IsAbs(sh.DirPath) {
					ev.Cwd = filepath.Clean(sh.DirPath)
				} else if base != "" {
					ev.Cwd = filepath.Join(base, sh.DirPath)
				}
			}
		}
		if why := geminiUnconfirmed(in.ToolName, isMCP); why != "" {
			ev.NoAgentPrompt(why)
		}
	case "AfterTool":
		tool, isMCP := geminiTool(&in)
		switch {
		case isMCP || geminiOutsideTools[in.ToolName] || strings.HasPrefix(in.ToolName, "mcp_"):
			ev.Kind, ev.Tool = hooks.KindTaint, tool
		case tool == shellTool:
			// What became of a shell call (of one that ran confined, the
			// daemon tells from its command).
			ev.Kind, ev.Tool, ev.Outcome = hooks.KindOutcome, tool, outcomeRan
			if shellFailed(in.ToolResponse) {
				ev.Outcome = outcomeFailed
			}
			if args, err := hookjson.DecodeArgs(in.ToolInput); err == nil {
				ev.Args = args
			}
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

// The outcomes the adapter reports (api.OutcomeRan, api.OutcomeFailed;
// the hooks packages do not import the API).
const (
	outcomeRan    = "ran"
	outcomeFailed = "failed"
)

// geminiOutput is Gemini CLI's BeforeTool answer. reason goes to the model
// when the call is blocked; systemMessage to the person (in the
// confirmation dialog for an ask); hookSpecificOutput.tool_input, with an
// allow, is the call's input rewritten.
type geminiOutput struct {
	Decision           verdict.Verdict `json:"decision"`
	Reason             string          `json:"reason,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

type geminiSpecific struct {
	HookEventName     string          `json:"hookEventName"`
	ToolInput         json.RawMessage `json:"tool_input,omitempty"`
	AdditionalContext string          `json:"additionalContext,omitempty"`
}

// Render answers a BeforeTool.
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	out := geminiOutput{Decision: a.Decision}
	switch a.Decision {
	case verdict.Allow:
		out.Reason = a.UserText()
		if a.UpdatedInput != nil {
			// The whole input, the command rewritten: Gemini merges it
			// into the call's arguments, or builds the call from it alone.
			out.HookSpecificOutput = &geminiSpecific{HookEventName: ev.Name, ToolInput: a.UpdatedInput}
		}
	case verdict.Ask:
		out.Reason = a.UserText()
		out.SystemMessage = a.UserText()
	default:
		out.Reason = a.ModelText()
		out.SystemMessage = a.UserText()
	}
	return hookjson.Output(out)
}

// PostContext answers an AfterTool with text for the model, which Gemini
// adds to the tool's result: what became of a call it should know.
func PostContext(ev *hooks.Event, text string) hooks.Output {
	return hookjson.Output(struct {
		HookSpecificOutput geminiSpecific `json:"hookSpecificOutput"`
	}{geminiSpecific{HookEventName: ev.Name, AdditionalContext: text}})
}

// Neutral is an empty object: no decision.
func Neutral(*hooks.Event) hooks.Output { return hooks.Output{Stdout: []byte("{}\n")} }
