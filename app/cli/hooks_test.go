package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/hooks/settings"
	"github.com/agatehq/agate/app/internal/apptest"
)

// hooksWorld is a home folder with an agate binary in it, and agate's
// config beside.
type hooksWorld struct {
	home, bin string
}

func newHooksWorld(t *testing.T) *hooksWorld {
	t.Helper()
	w := &hooksWorld{home: t.TempDir()}
	apptest.UseConfig(t, "[approvals]\ntimeout = \"2m\"\n")
	t.Setenv("HOME", w.home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	w.bin = filepath.Join(w.home, "bin", "agate-cli")
	if err := os.MkdirAll(filepath.Dir(w.bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// runHooks runs `agate hooks ARGS`.
func runHooks(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code = Run(ctx, e, append([]string{"hooks"}, args...))
	return code, out.String(), errb.String()
}

// TestHooksCLI: install, status and uninstall through the command line,
// in the user's settings and a project's.
func TestHooksCLI(t *testing.T) {
	w := newHooksWorld(t)
	proj := filepath.Join(w.home, "proj")
	os.MkdirAll(proj, 0o755)
	t.Chdir(proj)

	code, stdout, stderr := runHooks(t, "install", "claude-code", "--bin", w.bin)
	if code != 0 || !strings.Contains(stdout, filepath.Join(w.home, ".claude", "settings.json")) {
		t.Fatalf("install: %d %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = runHooks(t, "install", "gemini", "--project", proj, "--bin", w.bin)
	if code != 0 || !strings.Contains(stdout, filepath.Join(proj, ".gemini", "settings.json")) {
		t.Fatalf("install --project: %d %s %s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(filepath.Join(proj, ".gemini", "settings.json"))
	if !strings.Contains(string(data), `"timeout": 135000`) {
		t.Errorf("gemini timeout not in milliseconds:\n%s", data)
	}
	code, stdout, _ = runHooks(t, "install", "claude-code", "--bin", w.bin)
	if code != 0 || !strings.Contains(stdout, "already") {
		t.Errorf("second install: %d %s", code, stdout)
	}

	code, stdout, _ = runHooks(t, "status")
	if code != 0 {
		t.Fatalf("status: %d", code)
	}
	for _, want := range []string{
		"claude-code\n  user     " + filepath.Join(w.home, ".claude", "settings.json") + ": installed\n",
		"PreToolUse (*) -> " + w.bin + " (ok)",
		"UserPromptSubmit -> " + w.bin + " (ok)",
		"project  " + filepath.Join(proj, ".claude", "settings.json") + ": no file",
		"gemini\n  user     " + filepath.Join(w.home, ".gemini", "settings.json") + ": no file\n  project  " + filepath.Join(proj, ".gemini", "settings.json") + ": installed",
		"cursor\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("status does not say %q:\n%s", want, stdout)
		}
	}

	code, stdout, _ = runHooks(t, "uninstall", "gemini", "--project", proj)
	if code != 0 || !strings.Contains(stdout, "removed") {
		t.Errorf("uninstall: %d %s", code, stdout)
	}
	if st := settings.Status("gemini", filepath.Join(proj, ".gemini", "settings.json")); len(st.Entries) != 0 {
		t.Errorf("left: %+v", st.Entries)
	}
	code, stdout, _ = runHooks(t, "uninstall", "cursor")
	if code != 0 || !strings.Contains(stdout, "no agate hooks") {
		t.Errorf("uninstall of nothing: %d %s", code, stdout)
	}
}

// TestHooksCLIUsage: wrong arguments are usage errors, and write nothing.
func TestHooksCLIUsage(t *testing.T) {
	w := newHooksWorld(t)
	for _, args := range [][]string{
		{},
		{"install"},
		{"install", "codex"},
		{"install", "claude-code", "gemini"},
		{"install", "claude-code", "--bin", "agate-cli"},
		{"install", "claude-code", "--bin", "/usr/bin/not-agate"},
		{"install", "claude-code", "--project", filepath.Join(w.home, "nowhere")},
		{"status", "claude-code"},
		{"status", "--bin", w.bin},
		{"install", "claude-compatible", "--bin", w.bin},
		{"install", "claude-code", "--settings", filepath.Join(w.home, "droid.json"), "--bin", w.bin},
		{"install", "claude-compatible", "--settings", filepath.Join(w.home, "droid.json"), "--project", w.home, "--bin", w.bin},
		{"frob"},
	} {
		code, stdout, _ := runHooks(t, args...)
		if code == 0 {
			t.Errorf("hooks %v: exit 0, stdout %s", args, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(w.home, ".claude")); err == nil {
		t.Error("a usage error wrote settings")
	}
}

// TestHooksClaudeCompatible: an agent in Claude Code's hook protocol gets
// agate's hooks in the settings file the person names, under its own
// name (so its calls are never rewritten), with the daemon's socket and
// config in the command; status and uninstall take the same file, and a
// Claude Code install in the same file is left alone.
func TestHooksClaudeCompatible(t *testing.T) {
	w := newHooksWorld(t)
	file := filepath.Join(w.home, ".factory", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "fmt.sh"}]}]}}`+"\n"), 0o644)
	code, stdout, stderr := runHooks(t, "install", "claude-compatible", "--settings", file, "--bin", w.bin)
	if code != 0 || !strings.Contains(stdout, file) {
		t.Fatalf("install: %d %s %s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(file)
	for _, want := range []string{`"model": "x"`, `"fmt.sh"`, w.bin + " hook claude-compatible", "--socket ", `"timeout": 135`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("settings lack %q:\n%s", want, data)
		}
	}
	code, stdout, _ = runHooks(t, "status", "--settings", file)
	if code != 0 || !strings.Contains(stdout, "claude-compatible\n  file     "+file+": installed") {
		t.Errorf("status: %d %s", code, stdout)
	}
	code, stdout, _ = runHooks(t, "status")
	if code != 0 || strings.Contains(stdout, "claude-compatible") {
		t.Errorf("status without --settings names claude-compatible: %s", stdout)
	}
	code, stdout, _ = runHooks(t, "uninstall", "claude-compatible", "--settings", file)
	if code != 0 || !strings.Contains(stdout, "removed") {
		t.Errorf("uninstall: %d %s", code, stdout)
	}
	data, _ = os.ReadFile(file)
	if strings.Contains(string(data), "claude-compatible") || !strings.Contains(string(data), `"fmt.sh"`) {
		t.Errorf("after uninstall:\n%s", data)
	}
}
