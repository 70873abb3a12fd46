package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexTrustedHookRuns: codex exec runs a hook whose trust state the
// test wrote itself, and skips, silently, one with no state.
func TestCodexTrustedHookRuns(t *testing.T) {
	Require(t)
	bin := Install(t, Codex)
	h := NewHome(t)
	s := NewServer(t, Call("exec_command", map[string]any{"cmd": "echo hello-from-codex"}), Say("all done"))
	trusted := filepath.Join(h.Root, "trusted.json")
	untrusted := filepath.Join(h.Root, "untrusted.json")
	cfg := h.CodexConfigPath(t)
	extra := CodexHooksTOML(cfg, []CodexHook{{Event: "PreToolUse", Matcher: "*", Command: "cat > " + trusted, Timeout: 30}}) +
		"\n[[hooks.PostToolUse]]\n[[hooks.PostToolUse.hooks]]\ntype = \"command\"\ncommand = \"cat > " + untrusted + "\"\n"
	h.WriteCodexConfig(t, s, extra)
	r := h.Run(t, Cmd{Bin: bin, Args: []string{"exec", "--skip-git-repo-check", "say hello"}, Env: h.Env(s.CodexEnv()...)})
	t.Logf("%s\n%s", r, s.Dump())
	if r.Code != 0 {
		t.Fatalf("codex: %s", r)
	}
	data, err := os.ReadFile(trusted)
	if err != nil {
		t.Fatalf("the trusted hook did not run: %v", err)
	}
	var in struct {
		Event     string         `json:"hook_event_name"`
		Tool      string         `json:"tool_name"`
		ToolInput map[string]any `json:"tool_input"`
		Mode      string         `json:"permission_mode"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if in.Event != "PreToolUse" || in.Tool != "Bash" || in.ToolInput["command"] != "echo hello-from-codex" || in.Mode != "bypassPermissions" {
		t.Errorf("payload %s", data)
	}
	if _, err := os.Stat(untrusted); err == nil {
		t.Errorf("the untrusted hook ran")
	}
	if strings.Contains(r.Stderr, "PostToolUse") {
		t.Errorf("codex exec mentioned the untrusted hook: %s", r.Stderr)
	}
}
