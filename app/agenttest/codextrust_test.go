package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexHookHash: the hashes Codex 0.171.0 itself reported (app-server
// hooks/list, currentHash) for these hooks.
func TestCodexHookHash(t *testing.T) {
	for _, c := range []struct {
		hook CodexHook
		want string
	}{
		{CodexHook{Event: "PreToolUse", Matcher: ".*", Command: "/tmp/cx/hook.sh PreToolUse", Timeout: 30},
			"sha256:4596e8b1389ae288758d289e2630ae6c3314326231b03873a3447aedbda716d9"},
		{CodexHook{Event: "PreToolUse", Matcher: "*", Command: "/usr/local/bin/agate-cli hook codex --agent-timeout 60s", Timeout: 70},
			"sha256:1109cd179ae60aa3872018859d97917d27d7008868230dda1b5759e7e204c0a6"},
		// No timeout: 600 s is hashed.
		{CodexHook{Event: "PreToolUse", Matcher: "Bash", Command: "/tmp/cx/hook.sh proj_toml"},
			"sha256:264ece991687cdced04ee6adf86c586d5ce555fdaf2677bded27f5cfbbf1fe81"},
		{CodexHook{Event: "PostToolUse", Command: "/tmp/cx/hook.sh proj_json"},
			"sha256:7ee8e1d8c51d2ae0b674a4554575801f9265797907db39634c7a1dbcfa764766"},
		// timeout = 0 is hashed as 1; statusMessage is part of the hash.
		{CodexHook{Event: "PreToolUse", Matcher: "Bash", Command: "/tmp/cx/hook.sh PreToolUse # <a&b> \u00e9 \"q\"\ttab \\ back \u2028 ls \u007f del \u0001 ctl", Timeout: -1, StatusMessage: "Checking with agate"},
			"sha256:8f4505f3412b3b65d1bd7ae40cdedb4978215a92a9bd1c31d5cf82683fc34740"},
		{CodexHook{Event: "PreToolUse", Matcher: "Bash", Command: "/tmp/cx/hook.sh second", Async: true},
			"sha256:4b7acf3ae779b0c185104080d1618993b035cb5cd88cce0385cd1eb4730b45ee"},
		{CodexHook{Event: "PreToolUse", Matcher: "esc", Command: "e \b \f \u001f \u2028 \u2029 \U0001F600 </script> &amp; \u0000"},
			"sha256:0b5e49e6e083da4ee0a7f7526f75baaf4ad3e67488c26008b6f3e3ee349b630d"},
		{CodexHook{Event: "SessionStart", Matcher: "startup|resume", Command: "/tmp/cx/hook.sh ss"},
			"sha256:397070dfdde47d88a41f7fb249a5a5e9f459ee406d78517f4c521363adb94e7c"},
		// SessionEnd: 1 s by default, at most 3 s.
		{CodexHook{Event: "SessionEnd", Command: "/tmp/cx/hook.sh se2"},
			"sha256:cb2ade88cb3bda235332092a3d1a268b8606c8dd591ebb58de17b1e3ac839ab5"},
		{CodexHook{Event: "SessionEnd", Command: "/tmp/cx/hook.sh SessionEnd", Timeout: 30},
			"sha256:e1137b110add50756728e710d039819dd94530d1c3254cda2641dc9bee8961db"},
		// UserPromptSubmit's matcher ("ignored" in the config) is dropped.
		{CodexHook{Event: "UserPromptSubmit", Matcher: "ignored", Command: "/tmp/cx/hook.sh ups"},
			"sha256:a2b1b6f37f62eb9f70c152fa02991628864b3ca520894066dd627ba2134af584"},
	} {
		if got := c.hook.Hash(); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.hook, got, c.want)
		}
	}
	if got, want := CodexHookKey("/home/u/.codex/config.toml", "PermissionRequest", 2, 1), "/home/u/.codex/config.toml:permission_request:2:1"; got != want {
		t.Errorf("key %s, want %s", got, want)
	}
}

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
