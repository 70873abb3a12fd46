package settings

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/settings/settingsjson"
	"github.com/agatehq/agate/app/internal/apptest"
)

// newHookWorld points agate at a config with configText and every
// agent's project at /home/dev/project.
func newHookWorld(t *testing.T, configText string) *apptest.Setting {
	t.Helper()
	w := apptest.UseConfig(t, configText)
	apptest.ProjectEnv(t, "/home/dev/project")
	return w
}

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
	t.Setenv("CODEX_HOME", "")
	w.bin = filepath.Join(w.home, "bin", "agate-cli")
	if err := os.MkdirAll(filepath.Dir(w.bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
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

// TestHooksInstallFunc: Install keeps the file's other content in
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
	edit, err := Install("claude-code", file, w.bin, Timeout(2*time.Minute))
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
	st := Status("claude-code", file)
	if !st.Installed() || len(st.Entries) != len(settingsjson.Hooks("claude-code")) {
		t.Fatalf("status %+v", st)
	}
	for _, e := range st.Entries {
		if e.Bin != w.bin || e.BinProblem != "" || e.Timeout != "135" {
			t.Errorf("entry %+v", e)
		}
	}

	// Again: no change, no new backup.
	edit, err = Install("claude-code", file, w.bin, Timeout(2*time.Minute))
	if err != nil || edit.Changed || edit.Backup != "" {
		t.Errorf("second install: %+v, %v", edit, err)
	}
	if n := len(backups(t, file)); n != 1 {
		t.Errorf("%d backups, want 1", n)
	}

	// The binary moved: agate's entries follow, as many as before.
	moved := filepath.Join(w.home, "opt", "agate")
	edit, err = Install("claude-code", file, moved, Timeout(2*time.Minute))
	if err != nil || !edit.Changed {
		t.Fatalf("install after a move: %+v, %v", edit, err)
	}
	st = Status("claude-code", file)
	if len(st.Entries) != len(settingsjson.Hooks("claude-code")) {
		t.Fatalf("entries %+v", st.Entries)
	}
	for _, e := range st.Entries {
		if e.Bin != moved || e.BinProblem != "missing" {
			t.Errorf("entry %+v, want %s, missing", e, moved)
		}
	}

	// Uninstall: only agate's entries go.
	edit, err = Uninstall("claude-code", file)
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
	if edit, err := Uninstall("claude-code", file); err != nil || edit.Changed {
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
	broken := "{\n  \"a\": 1\n  \"b\": 2\n}\n" // no comma
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func() (Edit, error){
		func() (Edit, error) { return Install("gemini", file, w.bin, time.Minute) },
		func() (Edit, error) { return Uninstall("gemini", file) },
	} {
		_, err := f()
		if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "line 3, column 3") {
			t.Errorf("err = %v, want one naming %s and line 3, column 3", err, file)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != broken {
		t.Errorf("the file changed: %q", b)
	}
	if b := backups(t, file); len(b) != 0 {
		t.Errorf("backups %v", b)
	}
	if st := Status("gemini", file); st.Err == nil || st.Installed() {
		t.Errorf("status %+v, want an error", st)
	}
}

// TestHooksInstallCreatesAndFollowsLinks: a missing file and folder are
// created; a symlinked settings file (dotfiles) is edited where it points.
func TestHooksInstallCreatesAndFollowsLinks(t *testing.T) {
	w := newHooksWorld(t)
	file := filepath.Join(w.home, "proj", ".cursor", "hooks.json")
	edit, err := Install("cursor", file, w.bin, time.Minute)
	if err != nil || !edit.Changed || edit.Backup != "" {
		t.Fatalf("install: %+v, %v", edit, err)
	}
	if st := Status("cursor", file); !st.Installed() || len(st.Entries) != len(settingsjson.Hooks("cursor")) {
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
	if _, err := Install("claude-code", link, w.bin, time.Minute); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	if st := Status("claude-code", real); !st.Installed() {
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
	st := Status("claude-code", file)
	if st.Installed() || len(st.Entries) != 1 || len(st.Missing) != len(settingsjson.Hooks("claude-code"))-1 || st.Entries[0].BinProblem != "not executable" {
		t.Errorf("status %+v", st)
	}
	if st := Status("claude-code", filepath.Join(w.home, "none.json")); st.Exists || st.Err != nil || st.Installed() {
		t.Errorf("status of no file %+v", st)
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
		{"codex", "", "", filepath.Join(w.home, ".codex", "config.toml")},
		{"codex", "/p", "", "/p/.codex/config.toml"},
	} {
		t.Setenv("CLAUDE_CONFIG_DIR", c.env)
		got, err := Path(c.agent, c.project)
		if err != nil || got != c.want {
			t.Errorf("%s %q (CLAUDE_CONFIG_DIR=%q): %q, %v; want %q", c.agent, c.project, c.env, got, err, c.want)
		}
	}
	if _, err := Path("aider", ""); err == nil {
		t.Error("aider: no error")
	}
	t.Setenv("CODEX_HOME", "/cx")
	if got, err := Path("codex", ""); err != nil || got != "/cx/config.toml" {
		t.Errorf("CODEX_HOME: %q %v", got, err)
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
	if got, err := Binary(); err != nil || got != exe {
		t.Errorf("Binary() = %q, %v; want %q", got, err, exe)
	}
}

// TestHooksInstallKeepsComments: Gemini CLI's settings may carry
// comments; installing agate's hooks keeps every one of them, backs the
// file up as it was, and uninstalling gives the file back.
func TestHooksInstallKeepsComments(t *testing.T) {
	w := newHooksWorld(t)
	file := filepath.Join(w.home, ".gemini", "settings.json")
	commented := "{\n  // Gemini allows comments; agate keeps them\n  \"general\": {\"vimMode\": true}, /* mine */\n}\n"
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(commented), 0o644); err != nil {
		t.Fatal(err)
	}
	edit, err := Install("gemini", file, w.bin, time.Minute)
	if err != nil || !edit.Changed {
		t.Fatalf("install: %+v, %v", edit, err)
	}
	if b, _ := os.ReadFile(edit.Backup); string(b) != commented {
		t.Errorf("backup %q, want the file as it was", b)
	}
	data, _ := os.ReadFile(file)
	for _, c := range []string{"// Gemini allows comments; agate keeps them\n", "/* mine */"} {
		if !strings.Contains(string(data), c) {
			t.Errorf("the comment %q is gone:\n%s", c, data)
		}
	}
	if st := Status("gemini", file); !st.Installed() {
		t.Errorf("status %+v", st)
	}
	if _, err := Uninstall("gemini", file); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(file); string(data) != commented {
		t.Errorf("after uninstall:\n%s\nwant the file as it was:\n%s", data, commented)
	}
}

// TestCopilotHooksFile: agate's Copilot hooks are a file of its own in
// Copilot's hooks folder ($COPILOT_HOME/hooks/agate.json), a repository's
// in .github/hooks, in Copilot's format (version 1, a list of handlers
// per event); disableAllHooks in Copilot's settings is reported.
func TestCopilotHooksFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("COPILOT_HOME", filepath.Join(home, ".copilot"))
	file, err := Path(hooks.Copilot, "")
	if err != nil || file != filepath.Join(home, ".copilot", "hooks", "agate.json") {
		t.Fatalf("Path: %s, %v", file, err)
	}
	if p, _ := Path(hooks.Copilot, home); p != filepath.Join(home, ".github", "hooks", "agate.json") {
		t.Errorf("project Path: %s", p)
	}
	bin := filepath.Join(home, "agate-hook")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	if _, err := Install(hooks.Copilot, file, bin, 135*time.Second); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version int `json:"version"`
		Hooks   map[string][]struct {
			Type, Command string
			Timeout       int
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(file)
	if err := json.Unmarshal(data, &doc); err != nil || doc.Version != 1 || len(doc.Hooks["preToolUse"]) != 1 ||
		doc.Hooks["preToolUse"][0].Type != "command" || doc.Hooks["preToolUse"][0].Timeout != 135 ||
		!strings.Contains(doc.Hooks["preToolUse"][0].Command, "hook copilot") {
		t.Fatalf("the hooks file (%v):\n%s", err, data)
	}
	if st := Status(hooks.Copilot, file); !st.Installed() || st.HooksOff != "" {
		t.Errorf("status: %+v", st)
	}
	os.WriteFile(filepath.Join(home, ".copilot", "config.json"), []byte("// Copilot's config\n{\"disableAllHooks\": true}\n"), 0o644)
	if st := Status(hooks.Copilot, file); !strings.Contains(st.HooksOff, "disableAllHooks") {
		t.Errorf("disableAllHooks not seen: %+v", st)
	}
}

// TestManagedSettingsReadable: a managed settings file is left readable
// by every user, and a folder above it that they cannot enter is an
// error saying what to change (Claude Code would read no managed
// settings at all).
func TestManagedSettingsReadable(t *testing.T) {
	if !IsManaged(hooks.ClaudeCode, "/etc/claude-code/managed-settings.json") || IsManaged(hooks.ClaudeCode, "/etc/claude-code/other.json") || IsManaged(hooks.Gemini, "/etc/claude-code/managed-settings.json") {
		t.Error("IsManaged")
	}
	if !IsUser(hooks.ClaudeCode, "/etc/claude-code/managed-settings.json") {
		t.Error("managed settings name a user's socket")
	}
	dir, err := os.MkdirTemp("", "agate-managed") // (t.TempDir's parent is closed to others)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	f := filepath.Join(dir, "managed-settings.json")
	os.WriteFile(f, []byte("{}"), 0o600)
	if err := sharedReadable(f); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	closed := filepath.Join(dir, "closed")
	os.Mkdir(closed, 0o700)
	g := filepath.Join(closed, "managed-settings.json")
	os.WriteFile(g, []byte("{}"), 0o600)
	if err := sharedReadable(g); err == nil || !strings.Contains(err.Error(), "chmod o+x "+closed) {
		t.Errorf("a closed folder: %v", err)
	}
}
