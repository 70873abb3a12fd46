package hooks

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
)

// The agents with an adapter, as `agate hook AGENT` and [agents.NAME] in
// the config name them.
const (
	ClaudeCode = "claude-code"
	Gemini     = "gemini"
	Cursor     = "cursor"
	Codex      = "codex"
	QwenCode   = "qwen-code"
	Copilot    = "copilot" // GitHub Copilot CLI
	OpenCode   = "opencode"
	// ClaudeCompatible is any agent that speaks Claude Code's hook
	// protocol (Factory's Droid among them), in a settings file named at
	// install. Its calls are never rewritten: whether it honours
	// updatedInput is not known.
	ClaudeCompatible = "claude-compatible"
)

// Agents returns the names of the agents with an adapter.
func Agents() []string {
	return []string{ClaudeCode, Gemini, Cursor, Codex, QwenCode, Copilot, OpenCode, ClaudeCompatible}
}

// Known reports whether agent is one of Agents.
func Known(agent string) bool { return slices.Contains(Agents(), agent) }

// Kind is what a hook event asks of agate.
type Kind uint8

// The kinds of event.
const (
	// KindOther is an event agate does not act on: answer it with Neutral.
	KindOther Kind = iota
	// KindCall is a tool call to decide.
	KindCall
	// KindTaint says a tool has brought outside content into the run.
	KindTaint
	// KindNewRun says the person sent a new prompt: a new run begins.
	KindNewRun
	// KindOutcome says what became of a call (Event.Outcome): it ran, it
	// was denied, or the turn ended. The caller tells the daemon, which
	// records the person's answer for a call whose ask went to the
	// agent's own prompt; it never blocks anything.
	KindOutcome
)

// String returns "other", "call", "taint", "new-run" or "outcome".
func (k Kind) String() string {
	switch k {
	case KindCall:
		return "call"
	case KindTaint:
		return "taint"
	case KindNewRun:
		return "new-run"
	case KindOutcome:
		return "outcome"
	}
	return "other"
}

// Event is one hook event, normalized. For KindCall its fields are those
// of the daemon's decide request; for KindTaint, Tool names the tool that
// brought the content in.
type Event struct {
	Agent string // one of Agents
	Name  string // the event as the agent names it: "PreToolUse", "BeforeTool", "beforeShellExecution"
	Kind  Kind

	// Tool is the tool's name as agate's policy knows it: the agent's own
	// name (Claude Code's "Bash"), or agate's where the agent has none
	// (Cursor's shell command is "bash"). MCP tools are
	// "mcp__SERVER__TOOL" for every agent.
	Tool string
	// Args are the tool's arguments, numbers kept as json.Number.
	Args map[string]any
	// Input is the tool_input object exactly as the agent sent it, for
	// SandboxBash (Claude Code only; nil for the others).
	Input json.RawMessage

	Session   string // the agent's session or conversation id
	Run       string // the prompt's id within the session, where the agent has one
	Cwd       string // where the call runs, as the agent says ("" if it does not)
	Workspace string // the project's root folder, as the agent says ("" if it does not)

	// Interactive is false when the agent runs in a mode where nobody is
	// asked (Claude Code's bypassPermissions and dontAsk).
	Interactive bool
	// AgentPrompt is true when the agent can ask the person about this
	// call itself, so Render can hand it an "ask".
	AgentPrompt bool
	// Headless is true when the agent runs with nobody at its own prompt
	// (Claude Code's -p and SDK runs): an ask goes to agate's own prompt,
	// or is denied.
	Headless bool
	// ToolUseID is the agent's id for the call (Claude Code's
	// tool_use_id), "" when it has none.
	ToolUseID string
	// Outcome, for an event that says what became of a call or a turn
	// (any kind), is api.OutcomeRan, api.OutcomeDenied or
	// api.OutcomeEnded; OutcomeReason is the agent's reason, if any.
	Outcome, OutcomeReason string

	// Reasks is true when the agent is about to ask its own prompt about
	// a call its pre-tool hook put to agate already (Codex's
	// PermissionRequest): a call a person allowed in agate a moment ago
	// is not asked about twice.
	Reasks bool

	// Prompt, for KindNewRun, is what the person wrote: the daemon looks
	// in it for credentials pasted into the chat, and keeps none of it.
	Prompt string

	// NoPrompt says why the agent's own prompt cannot be relied on for
	// this call, when AgentPrompt is false for a reason beyond the event
	// ("gemini runs headless"); see NoAgentPrompt.
	NoPrompt string
	// AgentSandbox says the agent runs this call inside a sandbox of its
	// own that agate's cannot start within ("" when it does not): the
	// call is not rewritten to run confined.
	AgentSandbox string
}

// NoAgentPrompt marks a call as one the agent's own prompt must not be
// handed: the daemon asks the person itself (the tray, a terminal
// approver) or denies. why says so, for the reason a deny gives.
func (ev *Event) NoAgentPrompt(why string) {
	ev.AgentPrompt = false
	if ev.NoPrompt == "" {
		ev.NoPrompt = why
	}
}

// CanAsk reports whether the call can be handed to the agent's own
// prompt: the agent has one for this event, and a person is there.
func (ev *Event) CanAsk() bool { return ev.Kind == KindCall && ev.AgentPrompt && ev.Interactive }

// MCPToolName is the name every adapter gives an MCP server's tool:
// mcp__SERVER__TOOL, as Claude Code and agate's catalog name them. The
// server's name is kept to letters, digits, '.', '-' and single inner
// '_', so that it cannot forge the "__" separators; a name with nothing
// left is "unknown".
func MCPToolName(server, tool string) string {
	return "mcp__" + mcpServerName(server) + "__" + tool
}

// mcpServerName is a server's name as MCPToolName keeps it.
func mcpServerName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s = b.String()
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	return cmp.Or(strings.Trim(s, "_"), "unknown")
}
