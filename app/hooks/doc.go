// Package hook adapts agate to the hook protocols of real agents: Claude
// Code, Gemini CLI, Cursor and Codex CLI. It is pure: it reads bytes and returns
// bytes, and never touches a file, the network or the environment (the
// caller passes an environment lookup in).
//
// An agent runs `agate hook AGENT` for each hook event, with one JSON
// object on stdin. Parse turns it into an Event of one of four kinds:
//
//   - KindCall: a tool call to decide (Claude Code PreToolUse, Gemini
//     BeforeTool, Cursor beforeShellExecution, beforeMCPExecution,
//     beforeReadFile and preToolUse, Codex PreToolUse and
//     PermissionRequest). The caller asks the daemon and
//     Render writes the daemon's Answer in the agent's own JSON.
//   - KindTaint: a tool has brought outside content into the run (web
//     fetches and searches, MCP tools); the caller marks the run tainted.
//   - KindNewRun: the person sent a new prompt, so a new run begins.
//   - KindOther: anything else, answered neutrally by Neutral: the agent
//     goes on as if agate had no opinion. Neutral never allows a call.
//
// When the daemon cannot answer, Unreachable fails closed: exit status 2,
// which every supported agent treats as "block this call", with the
// reason on stderr; or, when the person chose on_daemon_down = "ask", the
// call is handed to the agent's own prompt where the agent has one.
//
// Install, Uninstall and Inspect edit and read the agents' settings files
// (Claude Code's and Gemini CLI's settings.json, Cursor's hooks.json;
// Codex's config.toml is package codexhooks') as
// bytes, through github.com/tailscale/hujson's syntax tree: every key
// agate does not own stays, in its order, and so do the comments and
// trailing commas of a file that has them (JSON with comments, as Gemini
// CLI and VS Code allow). What agate adds is plain JSON laid out like the
// file, so a plain JSON file stays plain JSON.
//
// docs/hook-protocols.md records the protocols and where each fact comes
// from; testdata/hooks holds recorded payloads.
package hooks
