package agenttest

import (
	"strings"
	"testing"
)

// TestGeminiSmoke: Gemini CLI runs against the fake server, calls the
// tool the script gives, and sends its result back.
func TestGeminiSmoke(t *testing.T) {
	Require(t)
	bin := Install(t, GeminiCLI)
	s := NewServer(t, Call("list_directory", map[string]any{"dir_path": "."}), Say("all done"))
	h := NewHome(t)
	WriteFile(t, h.Work+"/hello.txt", []byte("hi\n"))
	h.GeminiSettings(t, nil)
	r := h.Run(t, Cmd{Bin: bin, Args: []string{"-p", "list the files", "--output-format", "json"}, Env: h.Env(s.GeminiEnv()...)})
	t.Logf("%s\n%s", r, s.Dump())
	if r.Code != 0 {
		t.Fatalf("gemini: %s", r)
	}
	res := s.ToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Output, "hello.txt") {
		t.Fatalf("tool results %+v", res)
	}
}

// TestClaudeSmoke: Claude Code runs against the fake server, calls the
// tool the script gives, and sends its result back.
func TestClaudeSmoke(t *testing.T) {
	Require(t)
	bin := Install(t, ClaudeCode)
	h := NewHome(t)
	WriteFile(t, h.Work+"/hello.txt", []byte("hi from the file\n"))
	s := NewServer(t, Call("Read", map[string]any{"file_path": h.Work + "/hello.txt"}), Say("all done"))
	r := h.Run(t, Cmd{Bin: bin, Args: []string{"-p", "read hello.txt", "--output-format", "json"}, Env: h.Env(s.ClaudeEnv()...)})
	t.Logf("%s\n%s", r, s.Dump())
	if r.Code != 0 {
		t.Fatalf("claude: %s", r)
	}
	res := s.ToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Output, "hi from the file") {
		t.Fatalf("tool results %+v", res)
	}
	if !strings.Contains(r.Stdout, "all done") {
		t.Fatalf("the final answer is not in the output: %s", r.Stdout)
	}
}

// TestCodexSmoke: Codex runs one task (codex exec) against the fake
// Responses API, runs the shell command the script gives, and sends its
// output back.
func TestCodexSmoke(t *testing.T) {
	Require(t)
	bin := Install(t, Codex)
	h := NewHome(t)
	s := NewServer(t, Call("exec_command", map[string]any{"cmd": "echo hello-from-codex"}), Say("all done"))
	h.WriteCodexConfig(t, s, "")
	r := h.Run(t, Cmd{Bin: bin, Args: []string{"exec", "--skip-git-repo-check", "say hello"}, Env: h.Env(s.CodexEnv()...)})
	t.Logf("%s\n%s\ntools: %v", r, s.Dump(), s.Offered())
	if r.Code != 0 {
		t.Fatalf("codex: %s", r)
	}
	res := s.ToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Output, "hello-from-codex") {
		t.Fatalf("tool results %+v", res)
	}
}
