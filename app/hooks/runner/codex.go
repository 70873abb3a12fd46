package runner

import (
	"io"
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
	cmdline, why := codexProcess()
	if why == "" {
		sub, _ := codexCommand(cmdline)
		why = codexHeadlessSub(sub)
	} else {
		why += ", so it cannot tell whether a person is at codex's prompt"
	}
	if why != "" {
		ev.Headless = true
		ev.NoAgentPrompt(why)
	}
	if ev.Tool == "Bash" {
		ev.AgentSandbox = codexSandboxed(cmdline, codexConfigMode)
	}
}

// codexSandboxed says why a Codex shell call runs inside Codex's own
// sandbox, where agate's cannot start (it needs a user namespace, which
// Codex's sandbox refuses), or "" when Codex runs it with full access.
// Only a Codex whose command line or config says danger-full-access is
// taken to run without one: unknown is Codex's own default, a sandbox. A
// wrong guess either way is safe: a call agate confines inside Codex's
// sandbox fails to start and runs nothing; one it leaves to Codex's
// sandbox is judged as agate judges without confinement.
func codexSandboxed(cmdline []string, configMode func() string) string {
	mode := ""
	if cmdline != nil {
		mode = codexModeFromArgs(cmdline)
	}
	if mode == "" && cmdline != nil {
		mode = configMode()
	}
	if mode == "danger-full-access" {
		return ""
	}
	switch mode {
	case "":
		mode = "its default"
	case "profile":
		mode = "as its --profile sets"
	}
	return "codex runs the command in its own sandbox (" + mode + ")"
}

// codexModeFromArgs is the sandbox mode Codex's command line sets, "" for
// none, "profile" when a --profile may set it.
func codexModeFromArgs(cmdline []string) string {
	mode := ""
	for i := 1; i < len(cmdline); i++ {
		a := cmdline[i]
		next := func() string {
			if i+1 < len(cmdline) {
				i++
				return cmdline[i]
			}
			return ""
		}
		switch {
		case a == "--":
			return mode
		case a == "--dangerously-bypass-approvals-and-sandbox" || a == "--yolo":
			return "danger-full-access"
		case a == "-s" || a == "--sandbox":
			mode = next()
		case strings.HasPrefix(a, "--sandbox="):
			mode = strings.TrimPrefix(a, "--sandbox=")
		case a == "--full-auto":
			mode = "workspace-write"
		case a == "-c" || a == "--config":
			if k, v, ok := strings.Cut(next(), "="); ok && strings.TrimSpace(k) == "sandbox_mode" {
				mode = strings.Trim(strings.TrimSpace(v), `"'`)
			}
		case a == "-p" || a == "--profile":
			next()
			if mode == "" {
				mode = "profile"
			}
		case codexOptionsWithValue[a]:
			i++
		}
	}
	return mode
}

// codexConfigMode is the top-level sandbox_mode of Codex's config
// ($CODEX_HOME/config.toml, else ~/.codex/config.toml), "" when it sets
// none or cannot be read. It reads the lines before the first table
// only: the hook links no TOML parser, and a mode it misreads is safe
// either way (see codexSandboxed).
func codexConfigMode() string {
	home := os.Getenv("CODEX_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = filepath.Join(h, ".codex")
	}
	f, err := os.Open(filepath.Join(home, "config.toml"))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return ""
	}
	return configModeOf(string(data))
}

// configModeOf reads sandbox_mode from a Codex config's top level.
func configModeOf(config string) string {
	for _, line := range strings.Split(config, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			return ""
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "sandbox_mode" {
			continue
		}
		v, _, _ = strings.Cut(strings.TrimSpace(v), "#")
		return strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return ""
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
