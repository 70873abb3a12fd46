package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/hooks/settings/codexrules"
)

// TestHooksCodexCLI: `agate hooks install codex` writes the hooks, their
// trust and agate's rules (from hard_deny); status reports each hook's
// trust, the rules and what they cannot say; a changed timeout is a stale
// hash until installed again; uninstall removes all of it and keeps the
// person's settings.
func TestHooksCodexCLI(t *testing.T) {
	w := newHooksWorld(t)
	cfg := os.Getenv("AGATE_CONFIG")
	os.WriteFile(cfg, []byte("[approvals]\ntimeout = \"2m\"\n\n[auto]\nhard_deny = [\"bash terraform destroy*\", \"bash *sudo*\"]\n"), 0o600)
	codexHome := filepath.Join(w.home, "cx")
	t.Setenv("CODEX_HOME", codexHome)
	os.MkdirAll(codexHome, 0o700)
	file := filepath.Join(codexHome, "config.toml")
	mine := "model = \"gpt-5.5\" # mine\n"
	os.WriteFile(file, []byte(mine), 0o600)
	t.Chdir(w.home)

	code, stdout, stderr := runHooks(t, "install", "codex", "--bin", w.bin)
	if code != 0 {
		t.Fatalf("install: %d %s %s", code, stdout, stderr)
	}
	for _, want := range []string{"installed agate's codex hooks in " + file, "(trusted)", "2m15s", "agate.rules", "3 entries no prefix can say"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("install output lacks %q:\n%s", want, stdout)
		}
	}
	rules, err := os.ReadFile(filepath.Join(codexHome, "rules", "agate.rules"))
	if err != nil || !strings.Contains(string(rules), `"terraform", "destroy"`) || !strings.Contains(string(rules), "*sudo*") {
		t.Fatalf("rules (%v):\n%s", err, rules)
	}
	state := os.Getenv("AGATE_STATE_DIR")
	rulesPath := filepath.Join(codexHome, "rules", "agate.rules")
	if rec, err := codexrules.Recorded(state); err != nil || !slices.Equal(rec, []string{rulesPath}) {
		t.Errorf("recorded rules %q, %v (state %q)", rec, err, state)
	}
	code, stdout, _ = runHooks(t, "status")
	if code != 0 || !strings.Contains(stdout, "PreToolUse (*) -> "+w.bin+" (ok, trusted)") ||
		!strings.Contains(stdout, "not in the rules (agate's hook still denies it): hard_deny[1]: bash *sudo*") {
		t.Errorf("status:\n%s", stdout)
	}
	// A timeout changed by hand: Codex would skip the hook.
	data, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(data), "timeout = 135\n", "timeout = 99\n", 1)), 0o600)
	if _, stdout, _ = runHooks(t, "status"); !strings.Contains(stdout, "stale hash") || !strings.Contains(stdout, "skips a hook that is not trusted") {
		t.Errorf("status after an edit:\n%s", stdout)
	}
	if code, stdout, stderr = runHooks(t, "install", "codex", "--bin", w.bin); code != 0 {
		t.Fatalf("reinstall: %d %s %s", code, stdout, stderr)
	}
	if _, stdout, _ = runHooks(t, "status"); strings.Contains(stdout, "stale hash") {
		t.Errorf("still stale after a reinstall:\n%s", stdout)
	}
	// Codex's hooks switched off.
	data, _ = os.ReadFile(file)
	os.WriteFile(file, append([]byte("[features]\nhooks = false\n\n"), data...), 0o600)
	if _, stdout, _ = runHooks(t, "status"); !strings.Contains(stdout, "Codex does not run these hooks ([features] hooks = false)") {
		t.Errorf("status with hooks off:\n%s", stdout)
	}
	os.WriteFile(file, data, 0o600)

	code, stdout, stderr = runHooks(t, "uninstall", "codex")
	if code != 0 || !strings.Contains(stdout, "removed agate's Codex rules") {
		t.Fatalf("uninstall: %d %s %s", code, stdout, stderr)
	}
	if data, _ := os.ReadFile(file); string(data) != mine {
		t.Errorf("after uninstall:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(codexHome, "rules", "agate.rules")); err == nil {
		t.Error("the rules file is still there")
	}
	if rec, _ := codexrules.Recorded(state); len(rec) != 0 {
		t.Errorf("still recorded after uninstall: %q", rec)
	}
}

// TestHooksCodexBadTOML: a config.toml that does not parse is an error
// naming the file and the line, and nothing is written: no hooks, no
// rules.
func TestHooksCodexBadTOML(t *testing.T) {
	w := newHooksWorld(t)
	codexHome := filepath.Join(w.home, "cx")
	t.Setenv("CODEX_HOME", codexHome)
	os.MkdirAll(codexHome, 0o700)
	file := filepath.Join(codexHome, "config.toml")
	bad := "model = \"gpt-5.5\"\n\n[profiles.fast\nmodel = \"x\"\n"
	os.WriteFile(file, []byte(bad), 0o600)
	code, stdout, stderr := runHooks(t, "install", "codex", "--bin", w.bin)
	if code == 0 || !strings.Contains(stderr, file) || !strings.Contains(stderr, "line 3") {
		t.Errorf("install: %d\n%s\n%s", code, stdout, stderr)
	}
	if data, _ := os.ReadFile(file); string(data) != bad {
		t.Errorf("the file changed:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(codexHome, "rules")); err == nil {
		t.Error("rules written for a config that did not parse")
	}
}

// TestDoctorCodexTrust: agate doctor names a Codex hook Codex would skip
// (its hash stale), and Codex's hooks switched off.
func TestDoctorCodexTrust(t *testing.T) {
	w := newHooksWorld(t)
	codexHome := filepath.Join(w.home, "cx")
	t.Setenv("CODEX_HOME", codexHome)
	if code, out, errOut := runHooks(t, "install", "codex", "--bin", w.bin); code != 0 {
		t.Fatalf("install: %s %s", out, errOut)
	}
	file := filepath.Join(codexHome, "config.toml")
	doctor := func() Report {
		t.Helper()
		_, out, _ := runCLI(t, nil, "doctor", "--json")
		var r Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return r
	}
	codexProblems := func(r Report) string {
		var p []string
		for _, s := range r.Problems {
			if strings.Contains(s, "codex") || strings.Contains(s, "Codex") {
				p = append(p, s)
			}
		}
		return strings.Join(p, "\n")
	}
	if p := codexProblems(doctor()); p != "" {
		t.Errorf("problems right after install: %s", p)
	}
	data, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(data), "timeout = 135\n", "timeout = 99\n", 1)), 0o600)
	if p := codexProblems(doctor()); !strings.Contains(p, "stale hash, so Codex does not run it") {
		t.Errorf("a stale hash: %q", p)
	}
	os.WriteFile(file, append([]byte("[features]\nhooks = false\n"), data...), 0o600)
	if p := codexProblems(doctor()); !strings.Contains(p, "codex runs no hooks ([features] hooks = false)") {
		t.Errorf("hooks off: %q", p)
	}
}

// TestCodexRulesKnowAgate: the rules agate writes for Codex forbid every
// command of agate's but sandbox, and every first word of `agate sandbox`
// but --strict (how the hook's confined calls run): a command or a flag
// added to agate is added there too.
func TestCodexRulesKnowAgate(t *testing.T) {
	forbidden := codexrules.AgateCommands()
	for name := range commands {
		if name != "sandbox" && !slices.Contains(forbidden, name) {
			t.Errorf("agate %s is not in the Codex rules' list of agate's commands", name)
		}
	}
	if slices.Contains(forbidden, "sandbox") {
		t.Error("the rules forbid agate sandbox, which confined calls run as")
	}
	_, _, stderr := runCLI(t, nil, "sandbox", "-h")
	flags := codexrules.AgateSandboxFlags()
	n := 0
	for _, line := range strings.Split(stderr, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(line, "  -") {
			continue
		}
		name := strings.TrimPrefix(f[0], "-")
		n++
		if name == "strict" {
			if slices.Contains(flags, "--strict") || slices.Contains(flags, "-strict") {
				t.Error("the rules forbid agate sandbox --strict")
			}
			continue
		}
		for _, w := range []string{"-" + name, "--" + name} {
			if !slices.Contains(flags, w) {
				t.Errorf("agate sandbox %s is not forbidden in the Codex rules", w)
			}
		}
	}
	if n < 10 {
		t.Fatalf("read %d flags of agate sandbox from its usage:\n%s", n, stderr)
	}
}
