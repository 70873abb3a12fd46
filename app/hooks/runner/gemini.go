package runner

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/agatehq/agate/app/hooks"
)

// surroundings adds to a call what its payload does not say but the hook
// can see around it: whether the Gemini CLI or Codex that runs it is
// headless.
func surroundings(ev *hooks.Event) {
	codexSurroundings(ev)
	if ev.Agent == hooks.Gemini && ev.Kind == hooks.KindCall && ev.AgentPrompt {
		if why := geminiHeadless(); why != "" {
			ev.NoAgentPrompt(why)
		}
	}
}

// geminiProc is what the hook can read of the Gemini CLI process that
// started it.
type geminiProc struct {
	args         []string          // Gemini's own arguments, after its script
	env          map[string]string // its environment
	stdinTTY     bool              // fd 0 is a terminal
	stdoutTTY    bool              // fd 1 is a terminal
	unreadable   bool              // the process was found but could not be read
	unreadableAt string
}

// headless tells, as Gemini CLI 0.61 does (isHeadlessMode, and the
// interactive flag of loadCliConfig), whether it runs without a person at
// its terminal, and why; "" when it is interactive.
//
// Interactive: -i/--prompt-interactive, --acp. Headless: CI=true or
// GITHUB_ACTIONS=true in its environment (unless
// GEMINI_CLI_INTEGRATION_TEST=true), stdin or stdout not a terminal,
// -p/--prompt.
func (g *geminiProc) headless() string {
	if g.unreadable {
		return "agate cannot tell whether gemini runs with a person at its terminal (" + g.unreadableAt + ")"
	}
	for _, a := range g.args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-i", "--prompt-interactive", "--acp", "--experimental-acp":
			return ""
		}
	}
	if g.env["GEMINI_CLI_INTEGRATION_TEST"] != "true" && (g.env["CI"] == "true" || g.env["GITHUB_ACTIONS"] == "true") {
		return "gemini runs headless (in CI), where nobody answers its prompt"
	}
	if !g.stdinTTY || !g.stdoutTTY {
		return "gemini runs headless (no terminal), where nobody answers its prompt"
	}
	if slices.ContainsFunc(g.args, func(a string) bool {
		name, _, _ := strings.Cut(a, "=")
		return name == "-p" || name == "--prompt"
	}) {
		return "gemini runs headless (-p), where nobody answers its prompt"
	}
	return ""
}

// geminiArgs returns the arguments Gemini CLI got, from its process's
// command line (node [node flags] SCRIPT ARGS...), and whether the
// command line is Gemini CLI's: its script is the gemini launcher or
// bundle/gemini.js of @google/gemini-cli.
func geminiArgs(cmdline []string) ([]string, bool) {
	if len(cmdline) < 2 {
		return nil, false
	}
	if b := filepath.Base(cmdline[0]); b != "node" && !strings.HasPrefix(b, "node") {
		return nil, false
	}
	for i, a := range cmdline[1:] {
		if strings.HasPrefix(a, "-") {
			continue // a node flag
		}
		b := filepath.Base(a)
		if b == "gemini" || b == "gemini.js" || strings.Contains(a, "/@google/gemini-cli/") {
			return cmdline[i+2:], true
		}
		return nil, false
	}
	return nil, false
}
