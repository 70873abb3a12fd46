package runner

import "testing"

// TestGeminiHeadless: the hook tells a headless Gemini CLI as Gemini does.
func TestGeminiHeadless(t *testing.T) {
	tty := func(args ...string) *geminiProc {
		return &geminiProc{args: args, env: map[string]string{}, stdinTTY: true, stdoutTTY: true}
	}
	for _, c := range []struct {
		name     string
		g        *geminiProc
		headless bool
	}{
		{"a terminal", tty(), false},
		{"a positional prompt in a terminal", tty("fix the tests"), false},
		{"-p", tty("-p", "fix it"), true},
		{"--prompt=", tty("--prompt=fix it"), true},
		{"-i", tty("-i", "fix it"), false},
		{"-i wins over a pipe", &geminiProc{args: []string{"-i", "x"}, env: map[string]string{}}, false},
		{"--acp", &geminiProc{args: []string{"--acp"}, env: map[string]string{}}, false},
		{"stdin piped", &geminiProc{env: map[string]string{}, stdoutTTY: true}, true},
		{"stdout piped", &geminiProc{env: map[string]string{}, stdinTTY: true}, true},
		{"CI", &geminiProc{env: map[string]string{"CI": "true"}, stdinTTY: true, stdoutTTY: true}, true},
		{"GitHub Actions", &geminiProc{env: map[string]string{"GITHUB_ACTIONS": "true"}, stdinTTY: true, stdoutTTY: true}, true},
		{"Gemini's own tests", &geminiProc{env: map[string]string{"CI": "true", "GEMINI_CLI_INTEGRATION_TEST": "true"}, stdinTTY: true, stdoutTTY: true}, false},
		{"unreadable", &geminiProc{unreadable: true, unreadableAt: "x"}, true},
	} {
		if got := c.g.headless(); (got != "") != c.headless {
			t.Errorf("%s: headless() = %q, want headless %v", c.name, got, c.headless)
		}
	}
}

// TestGeminiArgs: Gemini CLI's process is told by its script, with or
// without node flags, and its own arguments follow.
func TestGeminiArgs(t *testing.T) {
	for _, c := range []struct {
		cmdline []string
		args    []string
		ok      bool
	}{
		{[]string{"node", "/usr/lib/node_modules/.bin/gemini", "-p", "x"}, []string{"-p", "x"}, true},
		{[]string{"/usr/bin/node", "--max-old-space-size=12052", "/usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js"}, []string{}, true},
		{[]string{"node", "server.js", "gemini"}, nil, false},
		{[]string{"bash", "-c", "gemini"}, nil, false},
		{[]string{"node"}, nil, false},
	} {
		args, ok := geminiArgs(c.cmdline)
		if ok != c.ok || len(args) != len(c.args) {
			t.Errorf("geminiArgs(%q) = %q, %v", c.cmdline, args, ok)
		}
	}
}
