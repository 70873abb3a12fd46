// Package cursor is Cursor's hook protocol (docs/hook-protocols.md):
// beforeShellExecution, beforeMCPExecution and beforeReadFile answered
// with permission allow, deny or ask, and preToolUse with decision allow
// or deny.
package cursor

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/internal/hookjson"
	"github.com/agatehq/agate/policy/verdict"
)

// cursorInput is the part of a Cursor hook input agate reads. The fields
// beyond the common ones depend on the event.
type cursorInput struct {
	ConversationID string          `json:"conversation_id"`
	GenerationID   string          `json:"generation_id"`
	SessionID      string          `json:"session_id"`
	HookEventName  string          `json:"hook_event_name"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Command        *string         `json:"command"`   // beforeShellExecution; the server's command for MCP events
	Cwd            string          `json:"cwd"`       // beforeShellExecution, preToolUse
	FilePath       *string         `json:"file_path"` // beforeReadFile
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"` // MCP events: a JSON string (or an object); preToolUse: an object
	URL            string          `json:"url"`        // MCP events, remote servers
	Prompt         string          `json:"prompt"`     // beforeSubmitPrompt
}

// Parse reads a Cursor hook input.
func Parse(data []byte, getenv func(string) string) (*hooks.Event, error) {
	var in cursorInput
	if err := hookjson.DecodeInput(data, &in); err != nil {
		return nil, err
	}
	root := ""
	if len(in.WorkspaceRoots) > 0 {
		root = in.WorkspaceRoots[0]
	}
	ev := &hooks.Event{
		Name:        in.HookEventName,
		Session:     cmp.Or(in.ConversationID, in.SessionID),
		Run:         in.GenerationID,
		Cwd:         cmp.Or(in.Cwd, root),
		Workspace:   cmp.Or(getenv("CURSOR_PROJECT_DIR"), root),
		Interactive: true,
		AgentPrompt: true,
	}
	switch in.HookEventName {
	case "":
		return nil, errors.New("no hook_event_name")
	case "beforeShellExecution":
		if in.Command == nil {
			return nil, errors.New("beforeShellExecution without a command")
		}
		ev.Kind, ev.Tool, ev.Args = hooks.KindCall, "bash", map[string]any{"command": *in.Command}
	case "beforeMCPExecution":
		if in.ToolName == "" {
			return nil, errors.New("beforeMCPExecution without a tool_name")
		}
		args, err := cursorMCPArgs(in.ToolInput)
		if err != nil {
			return nil, err
		}
		ev.Kind, ev.Tool, ev.Args = hooks.KindCall, cursorMCPName(&in), args
	case "beforeReadFile":
		if in.FilePath == nil || *in.FilePath == "" {
			return nil, errors.New("beforeReadFile without a file_path")
		}
		ev.Kind, ev.Tool, ev.Args = hooks.KindCall, "read_file", map[string]any{"path": *in.FilePath}
		ev.AgentPrompt = false // beforeReadFile takes allow or deny only
	case "preToolUse":
		if in.ToolName == "" {
			return nil, errors.New("preToolUse without a tool_name")
		}
		args, err := hookjson.DecodeArgs(in.ToolInput)
		if err != nil {
			return nil, err
		}
		ev.Kind, ev.Args = hooks.KindCall, args
		ev.Tool = cursorTool(in.ToolName)
		if wd, ok := args["working_directory"].(string); ok && wd != "" {
			ev.Cwd = wd
		}
		ev.AgentPrompt = false // preToolUse takes allow or deny only
	case "afterMCPExecution":
		ev.Kind, ev.Tool = hooks.KindTaint, cursorMCPName(&in)
	case "beforeSubmitPrompt":
		ev.Kind, ev.Prompt = hooks.KindNewRun, in.Prompt
	}
	return ev, nil
}

// cursorTools maps preToolUse's tool types to agate's names where agate
// knows the tool; the others keep Cursor's name.
var cursorTools = map[string]string{
	"Shell":  "bash",
	"Read":   "read_file",
	"Write":  "write_file",
	"Delete": "delete_file",
}

func cursorTool(name string) string {
	if t, ok := cursorTools[name]; ok {
		return t
	}
	return name
}

// cursorMCPArgs decodes an MCP event's tool_input: Cursor documents a
// JSON-encoded string, and some versions send the object itself.
func cursorMCPArgs(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
		if strings.TrimSpace(s) == "" {
			return map[string]any{}, nil
		}
		args, err := hookjson.DecodeArgs(json.RawMessage(s))
		if err != nil {
			return nil, fmt.Errorf("tool_input string: %w", err)
		}
		return args, nil
	}
	return hookjson.DecodeArgs(raw)
}

// cursorMCPName names an MCP tool mcp__SERVER__TOOL. Cursor does not say
// the server's name: it is taken from a tool_name of the form
// "MCP:server:tool" where Cursor sends one, else from the server's URL
// (its host) or its command (the package or program it runs), else
// "unknown".
func cursorMCPName(in *cursorInput) string {
	if rest, ok := strings.CutPrefix(in.ToolName, "MCP:"); ok {
		if server, tool, ok := strings.Cut(rest, ":"); ok && server != "" && tool != "" {
			return hooks.MCPToolName(server, tool)
		}
	}
	server := ""
	if in.URL != "" {
		if u, err := url.Parse(in.URL); err == nil {
			server = u.Hostname()
		}
	}
	if server == "" && in.Command != nil {
		server = commandServer(*in.Command)
	}
	return hooks.MCPToolName(cmp.Or(server, "unknown"), in.ToolName)
}

// commandServer guesses an MCP server's name from the command that starts
// it: the package a runner runs ("npx -y @modelcontextprotocol/server-github"
// is "server-github", "uvx mcp-server-git --repo ." is "mcp-server-git"),
// the image a container engine runs (its last word), or else the program.
// The folder, npm scope and version are dropped.
func commandServer(cmd string) string {
	var words []string
	for _, w := range strings.Fields(cmd) {
		if w = strings.Trim(w, `'"`); w != "" {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return ""
	}
	pick := words[0]
	switch base(words[0]) {
	case "npx", "pnpx", "bunx", "uvx", "pipx", "node", "deno", "bun", "python", "python3", "uv":
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && w != "run" && w != "exec" {
				pick = w
				break
			}
		}
	case "docker", "podman":
		pick = words[len(words)-1]
		if i := strings.LastIndexByte(pick, ':'); i > strings.LastIndexByte(pick, '/') {
			pick = pick[:i] // the image's tag
		}
	}
	pick = base(pick)
	if at := strings.LastIndexByte(pick, '@'); at > 0 {
		pick = pick[:at]
	}
	return pick
}

// base is the last element of a slash or backslash path.
func base(p string) string { return path.Base(strings.ReplaceAll(p, `\`, "/")) }

// cursorPermission is the answer of beforeShellExecution and
// beforeMCPExecution (permission, user_message, agent_message) and of
// beforeReadFile (permission and user_message only). Cursor 1.7 spelled
// the messages userMessage and agentMessage; only the current spelling is
// written, since permission, the decision, is spelled the same in both.
type cursorPermission struct {
	Permission   verdict.Verdict `json:"permission"`
	UserMessage  string          `json:"user_message,omitempty"`
	AgentMessage string          `json:"agent_message,omitempty"`
}

// cursorDecision is the answer of preToolUse.
type cursorDecision struct {
	Decision verdict.Verdict `json:"decision"`
	Reason   string          `json:"reason,omitempty"`
}

// Render answers a call.
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	if ev.Name == "preToolUse" {
		out := cursorDecision{Decision: a.Decision}
		if a.Decision != verdict.Allow {
			out.Reason = a.ModelText()
		}
		return hookjson.Output(out)
	}
	out := cursorPermission{Permission: a.Decision}
	switch a.Decision {
	case verdict.Allow:
		// Nothing to show: a message here would pop up on every call.
	case verdict.Ask:
		out.UserMessage = a.UserText()
		out.AgentMessage = "agate asked the user to approve this call: " + a.Detail()
	default:
		out.UserMessage = a.UserText()
		out.AgentMessage = a.ModelText()
	}
	if ev.Name == "beforeReadFile" {
		out.AgentMessage = ""
	}
	return hookjson.Output(out)
}

// Neutral is an empty object, or for beforeSubmitPrompt "continue": the
// agent goes on.
func Neutral(ev *hooks.Event) hooks.Output {
	if ev.Name == "beforeSubmitPrompt" {
		return hooks.Output{Stdout: []byte(`{"continue":true}` + "\n")}
	}
	return hooks.Output{Stdout: []byte("{}\n")}
}
