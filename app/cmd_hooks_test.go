package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/hook"
)

// hooksWorld is a home folder with an agate binary in it, and agate's
// config beside.
type hooksWorld struct {
	home, bin string
}

func newHooksWorld(t *testing.T) *hooksWorld {
	t.Helper()
	w := &hooksWorld{home: t.TempDir()}
	newHookWorld(t, "[approvals]\ntimeout = \"2m\"\n")
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

// backups lists the backups of a settings file.
func backups(t *testing.T, file string) []string {
	t.Helper()
	m, err := filepath.Glob(file + ".agate-backup-*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// existingSettings is a Claude Code user settings file with other keys,
// in an order that is not sorted, and another tool's PreToolUse hook.
const existingSettings = `{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]
  },
  "model": "opus",
  "env": {"A": "1"}
}
`

// TestHooksInstallFunc: InstallHooks keeps the file's other content in
// its order, backs the file up first, keeps its mode, does nothing the
// second time, and replaces its own entry when the binary moves.
func TestHooksInstallFunc(t *testing.T) {
	w := newHooksWorld(t)
	file := filepath.Join(w.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(existingSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	edit, err := InstallHooks("claude-code", file, w.bin, HookTimeout(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !edit.Changed || edit.Backup == "" {
		t.Fatalf("edit %+v", edit)
	}
	if b, err := os.ReadFile(edit.Backup); err != nil || string(b) != existingSettings {
		t.Errorf("backup %s holds %q (%v), want the old file", edit.Backup, b, err)
	}
	if !strings.HasPrefix(filepath.Base(edit.Backup), "settings.json.agate-backup-") {
		t.Errorf("backup name %s", edit.Backup)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if strings.Join(keys, ",") != "permissions,hooks,model,env" {
		t.Errorf("keys %v, want the order kept", keys)
	}
	if !strings.Contains(string(data), `"command": "audit.sh"`) {
		t.Errorf("the other hook is gone:\n%s", data)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept (%v)", st.Mode(), err)
	}
	st := HookStatus("claude-code", file)
	if !st.Installed() || len(st.Entries) != len(hook.Hooks("claude-code")) {
		t.Fatalf("status %+v", st)
	}
	for _, e := range st.Entries {
		if e.Bin != w.bin || e.BinProblem != "" || e.Timeout != "135" {
			t.Errorf("entry %+v", e)
		}
	}

	// Again: no change, no new backup.
	edit, err = InstallHooks("claude-code", file, w.bin, HookTimeout(2*time.Minute))
	if err != nil || edit.Changed || edit.Backup != "" {
		t.Errorf("second install: %+v, %v", edit, err)
	}
	if n := len(backups(t, file)); n != 1 {
		t.Errorf("%d backups, want 1", n)
	}

	// The binary moved: agate's entries follow, as many as before.
	moved := filepath.Join(w.home, "opt", "agate")
	edit, err = InstallHooks("claude-code", file, moved, HookTimeout(2*time.Minute))
	if err != nil || !edit.Changed {
		t.Fatalf("install after a move: %+v, %v", edit, err)
	}
	st = HookStatus("claude-code", file)
	if len(st.Entries) != len(hook.Hooks("claude-code")) {
		t.Fatalf("entries %+v", st.Entries)
	}
	for _, e := range st.Entries {
		if e.Bin != moved || e.BinProblem != "missing" {
			t.Errorf("entry %+v, want %s, missing", e, moved)
		}
	}

	// Uninstall: only agate's entries go.
	edit, err = UninstallHooks("claude-code", file)
	if err != nil || !edit.Changed || edit.Backup == "" {
		t.Fatalf("uninstall: %+v, %v", edit, err)
	}
	data, _ = os.ReadFile(file)
	var got, want any
	json.Unmarshal(data, &got)
	json.Unmarshal([]byte(existingSettings), &want)
	if g, _ := json.Marshal(got); string(g) != string(must(json.Marshal(want))) {
		t.Errorf("after uninstall:\n%s\nwant the original content", data)
	}
	if edit, err := UninstallHooks("claude-code", file); err != nil || edit.Changed {
		t.Errorf("second uninstall: %+v, %v", edit, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestHooksInstallInvalid: a settings file that is not JSON is an error
// naming the file and the line, and is left as it was, with no backup.
func TestHooksInstallInvalid(t *testing.T) {
	w := newHooksWorld(t)
	file := filepath.Join(w.home, ".gemini", "settings.json")
	broken := "{\n  // Gemini allows comments; agate does not edit them\n  \"a\": 1\n}\n"
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func() (HookEdit, error){
		func() (HookEdit, error) { return InstallHooks("gemini", file, w.bin, time.Minute) },
		func() (HookEdit, error) { return UninstallHooks("gemini", file) },
	} {
		_, err := f()
		if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "line 2, column 3") {
			t.Errorf("err = %v, want one naming %s and line 2, column 3", err, file)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != broken {
		t.Errorf("the file changed: %q", b)
	}
	if b := backups(t, file); len(b) != 0 {
		t.Errorf("backups %v", b)
	}
	if st := HookStatus("gemini", file); st.Err == nil || st.Installed() {
		t.Errorf("status %+v, want an error", st)
	}
}

// TestHooksInstallCreatesAndFollowsLinks: a missing file and folder are
// created; a symlinked settings file (dotfiles) is edited where it points.
func TestHooksInstallCreatesAndFollowsLinks(t *testing.T) {
	w := newHooksWorld(t)
	file := filepath.Join(w.home, "proj", ".cursor", "hooks.json")
	edit, err := InstallHooks("cursor", file, w.bin, time.Minute)
	if err != nil || !edit.Changed || edit.Backup != "" {
		t.Fatalf("install: %+v, %v", edit, err)
	}
	if st := HookStatus("cursor", file); !st.Installed() || len(st.Entries) != len(hook.Hooks("cursor")) {
		t.Errorf("status %+v", st)
	}

	real := filepath.Join(w.home, "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte(`{"theme":"dark"}`), 0o644)
	link := filepath.Join(w.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallHooks("claude-code", link, w.bin, time.Minute); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	if st := HookStatus("claude-code", real); !st.Installed() {
		t.Errorf("the linked file was not edited: %+v", st)
	}
}

// TestHooksStatusPartial: a file with some of agate's hooks says which
// are missing, and a binary that is not executable says so.
func TestHooksStatusPartial(t *testing.T) {
	w := newHooksWorld(t)
	os.Chmod(w.bin, 0o644)
	file := filepath.Join(w.home, "s.json")
	os.WriteFile(file, []byte(`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"`+w.bin+` hook claude-code"}]}]}}`), 0o644)
	st := HookStatus("claude-code", file)
	if st.Installed() || len(st.Entries) != 1 || len(st.Missing) != len(hook.Hooks("claude-code"))-1 || st.Entries[0].BinProblem != "not executable" {
		t.Errorf("status %+v", st)
	}
	if st := HookStatus("claude-code", filepath.Join(w.home, "none.json")); st.Exists || st.Err != nil || st.Installed() {
		t.Errorf("status of no file %+v", st)
	}
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
	if st := HookStatus("gemini", filepath.Join(proj, ".gemini", "settings.json")); len(st.Entries) != 0 {
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

// TestHooksSettingsPath: where each agent keeps its hooks.
func TestHooksSettingsPath(t *testing.T) {
	w := newHooksWorld(t)
	for _, c := range []struct{ agent, project, env, want string }{
		{"claude-code", "", "", filepath.Join(w.home, ".claude", "settings.json")},
		{"claude-code", "", "/cfg/claude", "/cfg/claude/settings.json"},
		{"claude-code", "/p", "/cfg/claude", "/p/.claude/settings.json"},
		{"gemini", "", "", filepath.Join(w.home, ".gemini", "settings.json")},
		{"gemini", "/p", "", "/p/.gemini/settings.json"},
		{"cursor", "", "", filepath.Join(w.home, ".cursor", "hooks.json")},
		{"cursor", "/p", "", "/p/.cursor/hooks.json"},
	} {
		t.Setenv("CLAUDE_CONFIG_DIR", c.env)
		got, err := HookSettingsPath(c.agent, c.project)
		if err != nil || got != c.want {
			t.Errorf("%s %q (CLAUDE_CONFIG_DIR=%q): %q, %v; want %q", c.agent, c.project, c.env, got, err, c.want)
		}
	}
	if _, err := HookSettingsPath("codex", ""); err == nil {
		t.Error("codex: no error")
	}
}

// TestHooksBinary: without an agate-cli beside it, the running binary
// runs the hooks.
func TestHooksBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(exe), "agate-cli")); err == nil {
		t.Skip("an agate-cli beside the test binary")
	}
	if got, err := HookBinary(); err != nil || got != exe {
		t.Errorf("HookBinary() = %q, %v; want %q", got, err, exe)
	}
}
