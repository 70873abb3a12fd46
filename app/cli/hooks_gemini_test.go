package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/settings"
	"github.com/agatehq/agate/app/hooks/settings/settingsjson"
)

// TestHooksGeminiInstall: `agate hooks install gemini` writes hooks whose
// command names the socket and the config, and agate's Gemini policy in
// ~/.gemini/policies; status reports both; uninstall removes exactly
// what install added, and leaves a policy file of the person's own.
func TestHooksGeminiInstall(t *testing.T) {
	w := newHooksWorld(t)
	file := filepath.Join(w.home, ".gemini", "settings.json")
	mustWrite(t, file, `{"general": {"vimMode": true}}`+"\n")
	other := filepath.Join(w.home, ".gemini", "policies", "mine.toml")
	mustWrite(t, other, "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git push\"\ndecision = \"deny\"\npriority = 500\n")
	before, _ := os.ReadFile(file)

	code, out, errOut := runHooks(t, "install", "gemini", "--bin", w.bin)
	if code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	policy := filepath.Join(w.home, ".gemini", "policies", settingsjson.GeminiPolicyFile)
	if !strings.Contains(out, policy) {
		t.Errorf("install does not name the policy: %s", out)
	}
	data, err := os.ReadFile(policy)
	if err != nil || string(data) != string(settingsjson.GeminiPolicy()) {
		t.Fatalf("policy %q, %v", data, err)
	}
	p, _ := api.ResolvePaths("", "")
	st := settings.Status("gemini", file)
	if !st.Installed() || st.GeminiPolicy != policy {
		t.Fatalf("status %+v", st)
	}
	for _, e := range st.Entries {
		hc, ok := hooks.ParseCommandWith(e.Command, "gemini")
		if !ok || hc.Socket != p.Socket || hc.Config != p.Config || hc.Bin != w.bin {
			t.Errorf("%s: command %q: %+v", e.Event, e.Command, hc)
		}
	}
	code, out, _ = runHooks(t, "status")
	if code != 0 || !strings.Contains(out, "policy "+policy+": Gemini CLI leaves each call to agate's hook") {
		t.Errorf("status: %s", out)
	}

	// Install again: nothing changes.
	if code, out, _ = runHooks(t, "install", "gemini", "--bin", w.bin); code != 0 || !strings.Contains(out, "already") {
		t.Errorf("reinstall: %d %s", code, out)
	}

	code, out, errOut = runHooks(t, "uninstall", "gemini")
	if code != 0 || !strings.Contains(out, "removed agate's Gemini CLI policy "+policy) {
		t.Fatalf("uninstall: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(policy); !os.IsNotExist(err) {
		t.Errorf("the policy is still there: %v", err)
	}
	if b, _ := os.ReadFile(other); !strings.Contains(string(b), "git push") {
		t.Error("the person's own policy was touched")
	}
	after, _ := os.ReadFile(file)
	if strings.Contains(string(after), "agate") || !strings.Contains(string(after), "vimMode") {
		t.Errorf("settings after uninstall:\n%s\nbefore:\n%s", after, before)
	}

	// A policy file agate did not write is never replaced, nor removed.
	mustWrite(t, policy, "# mine\n")
	if code, _, errOut = runHooks(t, "install", "gemini", "--bin", w.bin); code == 0 || !strings.Contains(errOut, "not agate's") {
		t.Errorf("install over a policy of the person's: %d %s", code, errOut)
	}
	runHooks(t, "uninstall", "gemini")
	if b, _ := os.ReadFile(policy); string(b) != "# mine\n" {
		t.Errorf("uninstall touched the person's file: %q", b)
	}
}

// TestHooksGeminiPolicyAlone: a policy with agate's hooks gone is a
// warning in status (Gemini would run every call unasked).
func TestHooksGeminiPolicyAlone(t *testing.T) {
	w := newHooksWorld(t)
	policy := filepath.Join(w.home, ".gemini", "policies", settingsjson.GeminiPolicyFile)
	mustWrite(t, policy, string(settingsjson.GeminiPolicy()))
	mustWrite(t, filepath.Join(w.home, ".gemini", "settings.json"), "{}\n")
	_, out, _ := runHooks(t, "status")
	if !strings.Contains(out, "WARNING") {
		t.Errorf("status: %s", out)
	}
}

// TestHooksGeminiHooksOff: hooks switched off in Gemini's settings, or
// agate's turned off by name, with agate's policy there, is a warning:
// Gemini would run every call unasked.
func TestHooksGeminiHooksOff(t *testing.T) {
	for _, off := range []string{`{"hooksConfig": {"enabled": false}}`, `{"hooksConfig": {"disabled": ["other", "agate"]}}`} {
		w := newHooksWorld(t)
		file := filepath.Join(w.home, ".gemini", "settings.json")
		mustWrite(t, file, off+"\n")
		if code, out, errOut := runHooks(t, "install", "gemini", "--bin", w.bin); code != 0 {
			t.Fatalf("install: %d %s %s", code, out, errOut)
		}
		if st := settings.Status("gemini", file); st.HooksOff == "" || st.GeminiPolicy == "" {
			t.Errorf("%s: status %+v", off, st)
		}
		if _, out, _ := runHooks(t, "status"); !strings.Contains(out, "WARNING: Gemini CLI does not run agate's hooks") {
			t.Errorf("%s: status: %s", off, out)
		}
	}
	if off := settingsjson.GeminiHooksOff([]byte(`{"hooksConfig": {"enabled": true, "disabled": ["agatex"]}}`)); off != "" {
		t.Errorf("hooks on: %q", off)
	}
}

// TestHooksGeminiProject: hooks in a project do not get the policy:
// Gemini CLI 0.61 reads policies only from the user's folder, and one
// there would let every project's calls run unasked.
func TestHooksGeminiProject(t *testing.T) {
	w := newHooksWorld(t)
	proj := t.TempDir()
	code, out, errOut := runHooks(t, "install", "gemini", "--project", proj, "--bin", w.bin)
	if code != 0 {
		t.Fatalf("%d %s %s", code, out, errOut)
	}
	for _, p := range []string{filepath.Join(w.home, ".gemini", "policies", settingsjson.GeminiPolicyFile), filepath.Join(proj, ".gemini", "policies", settingsjson.GeminiPolicyFile)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: %v", p, err)
		}
	}
	if !strings.Contains(out, "still asks") {
		t.Errorf("install does not say Gemini still asks: %s", out)
	}
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
