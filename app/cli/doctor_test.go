package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/keystore"
	"github.com/agatehq/agate/sandbox"
)

func TestDoctor(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home+"/.config")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+home+"/no-bus")
	t.Setenv("DISPLAY", "")
	t.Setenv("AGATE_TEST_UNSET_SECRET", "")
	p := apptest.Paths(t, "[tools]\nsandbox = true\n[sandbox]\nconfine_project = true\n[secrets.env]\nOPENAI_API_KEY = \"${AGATE_TEST_UNSET_SECRET}\"\n")
	t.Setenv("AGATE_STATE_DIR", p.State)
	grants := "version = 2\n[[agents.claude-code.grant]]\ngrant = \"bash:network\"\n[[agents.claude-code.grant]]\ngrant = \"bash(ssh mini) network=mini\"\n"
	if err := os.WriteFile(p.Grants, []byte(grants), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := keystore.RecordLeak(p.State, "keystore:openai", time.Now()); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "doctor", "--json", "--config", p.Config, "--socket", p.Socket)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (problems found): %s", code, errOut)
	}
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The sandbox fields the issue names, from a real probe.
	var raw map[string]map[string]any
	json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"enabled", "platform", "launcher", "available", "version", "network_isolation", "fail_closed", "reason"} {
		if _, ok := raw["sandbox"][k]; !ok {
			t.Errorf("sandbox diagnostics lack %q", k)
		}
	}
	if !r.Sandbox.Enabled || r.Sandbox.ProbedAt.IsZero() {
		t.Errorf("sandbox %+v", r.Sandbox)
	}
	bo := sandbox.Options{Launcher: sandbox.LauncherBwrap, FailClosed: true, WorkDir: t.TempDir()}
	if _, err := sandbox.Prepare(context.Background(), bo, []string{"true"}); err == nil && (!r.Sandbox.Available || !r.Sandbox.NetworkIsolation) {
		t.Errorf("bwrap can run here but the probe says %+v", r.Sandbox)
	}
	if len(r.Leaked) != 1 || r.Leaked[0].Name != "keystore:openai" {
		t.Errorf("leaked %+v", r.Leaked)
	}
	if len(r.Unset) != 1 || !strings.Contains(r.Unset[0], "OPENAI_API_KEY") {
		t.Errorf("unset %v", r.Unset)
	}
	if !strings.Contains(r.Daemon, "not running") {
		t.Errorf("daemon %q", r.Daemon)
	}
	if len(r.Hooks) != 7 || r.Hooks[0].Installed || r.Hooks[3].Agent != "codex" || r.Hooks[4].Agent != "qwen-code" || r.Hooks[5].Agent != "copilot" || r.Hooks[6].Agent != "opencode" {
		t.Errorf("hooks %+v", r.Hooks)
	}
	if len(r.Grants) != 2 || !r.Grants[0].Broad || r.Grants[1].Broad {
		t.Errorf("grants %+v: want bash:network broad, the ssh one not", r.Grants)
	}
	if !r.Confine.On || r.Confine.Works != r.Sandbox.Available {
		t.Errorf("confine %+v with the sandbox available=%v", r.Confine, r.Sandbox.Available)
	}
	// The text form names the problems.
	_, text, _ := runCLI(t, nil, "doctor", "--config", p.Config, "--socket", p.Socket)
	for _, want := range []string{"keystore:openai appeared in an agent's arguments", "OPENAI_API_KEY is referenced but unset", "daemon is not running",
		`the saved grant "bash:network" for claude-code is broad`, `agate grants revoke claude-code "bash:network"`, "grants:    2 saved, 1 broad", "confine:   on"} {
		if !strings.Contains(text, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, text)
		}
	}
}

// TestDoctorNoSessionBus: where there is no D-Bus session bus, doctor says
// what that means for the keychain (the passphrase is used; agate starts no
// bus), and a store whose master key is in the keychain is a problem with
// what to do.
func TestDoctorNoSessionBus(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Secret Service lives on the session bus on Linux")
	}
	runUser := fmt.Sprintf("/run/user/%d", os.Getuid())
	for _, f := range []string{"bus", "dbus-session"} {
		if _, err := os.Stat(filepath.Join(runUser, f)); err == nil {
			t.Skipf("%s/%s exists: this user has a session bus", runUser, f)
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home+"/.config")
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(home, "run"))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("DISPLAY", "")
	t.Setenv("PATH", t.TempDir()) // no dbus-launch, whatever happens
	p := apptest.Paths(t, "")
	t.Setenv("AGATE_STATE_DIR", p.State)
	// A store whose master key the keychain keeps.
	if err := os.MkdirAll(p.State, 0o700); err != nil {
		t.Fatal(err)
	}
	store := `{"version": 1, "master": {"backend": "keychain", "key_id": "AAAAAAAAAAAAAAAAAAAAAA=="}, "entries": {}}` + "\n"
	if err := os.WriteFile(p.KeyStore(), []byte(store), 0o600); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := runCLI(t, nil, "doctor", "--json", "--config", p.Config, "--socket", p.Socket)
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s %s", err, out, errOut)
	}
	if !r.Keychain.NoSessionBus || r.Keychain.Backend != "keychain" ||
		!strings.Contains(r.Keychain.Health, "no D-Bus session bus") || !strings.Contains(r.Keychain.Health, "keys use the passphrase") ||
		strings.Contains(r.Keychain.Health, "org.freedesktop") {
		t.Errorf("keychain %+v", r.Keychain)
	}
	found := false
	for _, pr := range r.Problems {
		found = found || strings.Contains(pr, "cannot be reached without a D-Bus session bus") && strings.Contains(pr, "--migrate passphrase")
	}
	if !found {
		t.Errorf("problems %q lack the keychain out of reach", r.Problems)
	}
}

// TestDoctorMCP: doctor reads the MCP clients' files, writing nothing:
// servers through agate's proxy, servers started directly, HTTP ones;
// a client with no hook of agate's that starts a server itself is a
// problem.
func TestDoctorMCP(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+home+"/no-bus")
	p := apptest.Paths(t, "")
	t.Setenv("AGATE_STATE_DIR", p.State)
	claude := `{"mcpServers": {"fs": {"command": "/usr/local/bin/agate", "args": ["mcp", "run", "--name", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
  "web": {"type": "http", "url": "https://mcp.example.com/mcp"}}}`
	os.WriteFile(filepath.Join(home, ".claude.json"), []byte(claude), 0o600)
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	os.MkdirAll(filepath.Dir(desktop), 0o700)
	desktopText := `{"mcpServers": {"notes": {"command": "uvx", "args": ["notes-server"]}}}`
	os.WriteFile(desktop, []byte(desktopText), 0o600)

	_, out, errOut := runCLI(t, nil, "doctor", "--json", "--config", p.Config, "--socket", p.Socket)
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, errOut)
	}
	got := map[string]MCPReport{}
	for _, m := range r.MCP {
		got[m.Client] = m
	}
	if c := got["claude-code"]; strings.Join(c.Proxied, ",") != "fs" || strings.Join(c.Remote, ",") != "web" || len(c.Direct) != 0 {
		t.Errorf("claude-code: %+v", c)
	}
	if d := got["claude-desktop"]; strings.Join(d.Direct, ",") != "notes" {
		t.Errorf("claude-desktop: %+v", d)
	}
	if !strings.Contains(strings.Join(r.Problems, "\n"), "claude-desktop starts MCP servers agate does not gate (notes") {
		t.Errorf("problems: %q", r.Problems)
	}
	if b, _ := os.ReadFile(desktop); string(b) != desktopText {
		t.Error("doctor changed a client's file")
	}
	_, out, _ = runCLI(t, nil, "doctor", "--config", p.Config, "--socket", p.Socket)
	if !strings.Contains(out, "mcp:       claude-code  1 through agate's proxy; 1 over HTTP/SSE, not gated (web; agate mcp install claude-code runs those it can through agate's bridge)") {
		t.Errorf("doctor's text:\n%s", out)
	}
}
