package runner

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/agents"
	"github.com/agatehq/agate/policy/verdict"
)

// TestCodexCommand: the hook tells codex exec from the TUI and the
// app-server by the subcommand of the codex above it.
func TestCodexCommand(t *testing.T) {
	native := "/usr/lib/node_modules/@openai/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
	for _, c := range []struct {
		name     string
		cmdline  []string
		codex    bool
		headless bool
	}{
		{"exec", []string{native, "exec", "--skip-git-repo-check", "say hello"}, true, true},
		{"e", []string{"codex", "e", "hi"}, true, true},
		{"options before exec", []string{"codex", "-c", "model=x", "-m", "gpt-5.5", "--full-auto", "exec", "hi"}, true, true},
		{"review", []string{"codex", "review"}, true, true},
		{"mcp-server", []string{"codex", "mcp-server"}, true, true},
		{"npm launcher", []string{"/usr/bin/node", "/usr/lib/node_modules/@openai/codex/bin/codex.js", "exec", "x"}, true, true},
		{"tui", []string{"codex"}, true, false},
		{"tui with a prompt", []string{"codex", "fix the tests"}, true, false},
		{"tui -c", []string{"codex", "-c", "exec=1"}, true, false},
		{"tui --no-daemon", []string{native, "--no-daemon"}, true, false},
		{"app-server daemon", []string{"/h/.codex/packages/app-server-daemon/releases/0.171.0/bin/codex", "app-server", "--listen", "unix://", "--managed-daemon"}, true, false},
		{"resume", []string{"codex", "resume", "--last"}, true, false},
		{"not codex", []string{"/bin/bash", "-lc", "codex exec"}, false, false},
		{"node, not codex", []string{"node", "server.js", "exec"}, false, false},
		{"empty", nil, false, false},
	} {
		sub, ok := codexCommand(c.cmdline)
		if ok != c.codex {
			t.Errorf("%s: codex %v, want %v", c.name, ok, c.codex)
			continue
		}
		if ok && (codexHeadlessSub(sub) != "") != c.headless {
			t.Errorf("%s: sub %q headless %q, want %v", c.name, sub, codexHeadlessSub(sub), c.headless)
		}
	}
}

// TestCodexNoCodexAbove: run by anything but Codex (a test, a person
// typing it), a Codex call is taken as headless: its PermissionRequest
// ask is agate's denial, never Codex's prompt.
func TestCodexNoCodexAbove(t *testing.T) {
	ev := &hooks.Event{Agent: hooks.Codex, Kind: hooks.KindCall, Name: "PermissionRequest", AgentPrompt: true, Interactive: true}
	surroundings(ev)
	if !ev.Headless || ev.AgentPrompt || ev.NoPrompt == "" {
		t.Errorf("%+v", ev)
	}
	out := agents.Render(ev, hooks.Answer{Decision: verdict.Ask, Reason: "nothing pre-approved this call"})
	if out.Code != 0 || len(out.Stdout) == 0 || string(out.Stdout) == "" {
		t.Fatalf("%+v", out)
	}
	if want := `"behavior":"deny"`; !strings.Contains(string(out.Stdout), want) {
		t.Errorf("%s: want %s", out.Stdout, want)
	}
}

// FuzzCodexCommand: any command line reads without a panic, and one
// whose program is not codex is never taken for Codex.
func FuzzCodexCommand(f *testing.F) {
	f.Add("codex\x00exec\x00hi")
	f.Add("/usr/bin/node\x00/x/codex.js\x00-c\x00a=b\x00e")
	f.Add("codex\x00--\x00exec")
	f.Add("node")
	f.Fuzz(func(t *testing.T, cmdline string) {
		args := strings.Split(cmdline, "\x00")
		sub, ok := codexCommand(args)
		if !ok && sub != "" {
			t.Fatalf("%q: not codex, yet sub %q", args, sub)
		}
		if ok {
			prog := args[0]
			if strings.HasPrefix(filepath.Base(prog), "node") && len(args) > 1 {
				prog = args[1]
			}
			if b := filepath.Base(prog); b != "codex" && b != "codex.js" {
				t.Fatalf("%q taken for codex", args)
			}
		}
		_ = codexHeadlessSub(sub)
	})
}

// TestCodexWorkspace: a Codex call's cwd is the folder the model chose
// for the command (exec_command's workdir); the project is the session's
// folder, which the hook runs in.
func TestCodexWorkspace(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	ev := &hooks.Event{Agent: hooks.Codex, Kind: hooks.KindCall, Tool: "Bash", Cwd: "/etc"}
	codexSurroundings(ev)
	if ev.Workspace != dir || ev.Cwd != "/etc" {
		t.Errorf("workspace %q, cwd %q; want %q, /etc", ev.Workspace, ev.Cwd, dir)
	}
	// Another agent's workspace is its own adapter's.
	ev = &hooks.Event{Agent: hooks.ClaudeCode, Kind: hooks.KindCall, Tool: "Bash", Cwd: "/etc"}
	codexSurroundings(ev)
	if ev.Workspace != "" {
		t.Errorf("claude-code's workspace: %q", ev.Workspace)
	}
}

// TestCodexSandboxed: only a Codex whose command line or config says
// danger-full-access runs its calls without a sandbox of its own (where
// agate's can start); every other mode, a profile, and not knowing are
// Codex's sandbox.
func TestCodexSandboxed(t *testing.T) {
	for _, c := range []struct {
		name    string
		cmdline []string
		config  string
		full    bool
	}{
		{"exec, nothing said", []string{"codex", "exec", "hi"}, "", false},
		{"-s danger-full-access", []string{"codex", "exec", "-s", "danger-full-access", "hi"}, "", true},
		{"--sandbox=danger-full-access", []string{"codex", "--sandbox=danger-full-access"}, "", true},
		{"--sandbox workspace-write", []string{"codex", "exec", "--sandbox", "workspace-write", "hi"}, `sandbox_mode = "danger-full-access"`, false},
		{"--yolo", []string{"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js", "--yolo"}, "", true},
		{"--dangerously-bypass-approvals-and-sandbox", []string{"codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "x"}, "", true},
		{"--full-auto", []string{"codex", "--full-auto"}, `sandbox_mode = "danger-full-access"`, false},
		{"-c sandbox_mode", []string{"codex", "-c", `sandbox_mode="danger-full-access"`}, "", true},
		{"-c another key", []string{"codex", "-c", `model="o3"`}, "", false},
		{"the config's top level", []string{"codex"}, "model = \"o3\"\nsandbox_mode = 'danger-full-access' # all of it\n", true},
		{"the config's table", []string{"codex"}, "[profiles.x]\nsandbox_mode = \"danger-full-access\"\n", false},
		{"a profile", []string{"codex", "-p", "x"}, `sandbox_mode = "danger-full-access"`, false},
		{"after --", []string{"codex", "exec", "--", "-s", "danger-full-access"}, "", false},
		{"no codex found", nil, `sandbox_mode = "danger-full-access"`, false},
	} {
		got := codexSandboxed(c.cmdline, func() string { return configModeOf(c.config) })
		if (got == "") != c.full {
			t.Errorf("%s: %q, want full access %v", c.name, got, c.full)
		}
	}
}
