package runner

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agatehq/agate/app/hooks"
)

// codexKillMargin is how long before Codex's own hook timeout the hook
// gives up and blocks the call: Codex runs a call whose hook timed out.
const codexKillMargin = 5 * time.Second

// codexSurroundings tells, for a Codex call, whether a person is at
// Codex's side (docs/hook-protocols.md §9.7): nothing in the payload or
// the environment says, the process tree does. `codex exec` (and `e`,
// `review`, `mcp-server`) is headless; the TUI (`codex`, with or without
// a prompt, `resume`, `fork`) and `codex app-server` (the TUI's daemon,
// an IDE's client) have a person. A hook with no codex above it is taken
// as headless: unknown is not safe.
//
// The project is the folder the hook runs in, the session's: the
// payload's cwd is the command's working folder, which the model chooses
// (exec_command's workdir), and a project the model could move would let
// it call any folder "the project".
func codexSurroundings(ev *hooks.Event) {
	if ev.Agent != hooks.Codex || ev.Kind != hooks.KindCall {
		return
	}
	if ev.Workspace == "" {
		if wd, err := os.Getwd(); err == nil && filepath.IsAbs(wd) {
			ev.Workspace = wd
		}
	}
	if why := codexHeadless(); why != "" {
		ev.Headless = true
		ev.NoAgentPrompt(why)
	}
}

// codexOptionsWithValue are Codex's global options that take the next
// argument as their value.
var codexOptionsWithValue = map[string]bool{
	"-c": true, "--config": true, "-m": true, "--model": true, "-p": true, "--profile": true,
	"-s": true, "--sandbox": true, "-a": true, "--ask-for-approval": true, "-C": true, "--cd": true,
	"-i": true, "--image": true, "--add-dir": true, "--enable": true, "--disable": true,
	"--local-provider": true, "--remote": true, "--remote-auth-token-env": true,
}

// codexCommand reads a process's command line: whether it is Codex's
// (the native binary, or its npm launcher run by node), and its
// subcommand ("" for none: the TUI).
func codexCommand(cmdline []string) (sub string, ok bool) {
	if len(cmdline) == 0 {
		return "", false
	}
	args := cmdline
	if b := filepath.Base(args[0]); b == "node" || strings.HasPrefix(b, "node") {
		if len(args) < 2 {
			return "", false
		}
		args = args[1:]
	}
	if b := filepath.Base(args[0]); b != "codex" && b != "codex.js" {
		return "", false
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", true
		case codexOptionsWithValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, true
		}
	}
	return "", true
}

// codexHeadlessSub says why a Codex subcommand runs with nobody at its
// prompt, or "" when a person's client is attached.
func codexHeadlessSub(sub string) string {
	switch sub {
	case "exec", "e", "review":
		return "codex runs headless (codex " + sub + "), where nobody answers its prompt"
	case "mcp-server":
		return "codex runs as an MCP server, where nobody answers its prompt"
	}
	// The TUI (no subcommand, or a prompt), resume, fork, app-server.
	return ""
}
