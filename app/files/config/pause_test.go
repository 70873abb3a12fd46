package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
)

func pausePaths(t *testing.T, config string) api.Paths {
	t.Helper()
	dir := t.TempDir()
	p := api.Paths{Config: filepath.Join(dir, "config.toml"), State: filepath.Join(dir, "state")}
	if config != "" {
		if err := os.WriteFile(p.Config, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestPauseResume(t *testing.T) {
	const cfg = `# mine
[auto]
mode = "accept_edits" # usually

[agents.claude-code]
mode = "ask"

[agents.gemini]
auto_approve = ["bash:none"]
`
	p := pausePaths(t, cfg)
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := Pause(p, now); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p.Config)
	want := strings.NewReplacer(`mode = "accept_edits"`, `mode = "plan"`, `mode = "ask"`, `mode = "plan"`).Replace(cfg)
	if string(data) != want {
		t.Fatalf("paused config:\n%s\nwant:\n%s", data, want)
	}
	st, paused, err := Paused(p)
	if err != nil || !paused || st.Auto != "accept_edits" || st.Agents["claude-code"] != "ask" || len(st.Agents) != 1 || !st.Since.Equal(now) {
		t.Fatalf("Paused = %+v, %v, %v", st, paused, err)
	}
	// Pausing again keeps the modes remembered first.
	if err := Pause(p, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := Paused(p); st.Auto != "accept_edits" {
		t.Fatalf("a second pause forgot the mode: %+v", st)
	}

	mode, err := Resume(p)
	if err != nil || mode != "accept_edits" {
		t.Fatalf("Resume = %q, %v", mode, err)
	}
	if data, _ := os.ReadFile(p.Config); string(data) != cfg {
		t.Fatalf("resumed config:\n%s\nwant it as it was:\n%s", data, cfg)
	}
	if _, err := os.Stat(PauseFile(p)); !os.IsNotExist(err) {
		t.Errorf("the pause file is still there: %v", err)
	}
	if _, paused, _ := Paused(p); paused {
		t.Error("still paused after Resume")
	}
}

func TestPauseEndedByHand(t *testing.T) {
	p := pausePaths(t, "[auto]\nmode = \"ask\"\n")
	if err := Pause(p, time.Now()); err != nil {
		t.Fatal(err)
	}
	// The person sets another mode by hand: that ends the pause, and
	// Resume does not overwrite their choice.
	if err := EditFile(p.Config, SetKey("auto", "mode", "manual")); err != nil {
		t.Fatal(err)
	}
	if _, paused, _ := Paused(p); paused {
		t.Error("paused after the mode was changed by hand")
	}
	mode, err := Resume(p)
	if err != nil || mode != "manual" {
		t.Fatalf("Resume = %q, %v; want the hand-set manual kept", mode, err)
	}
}

func TestPauseRefusesBrokenConfig(t *testing.T) {
	broken := "[auto]\nmode = \"ask\"\nhard_deyn = []\n"
	p := pausePaths(t, broken)
	if err := Pause(p, time.Now()); err == nil {
		t.Fatal("paused with a broken config")
	}
	if data, _ := os.ReadFile(p.Config); string(data) != broken {
		t.Errorf("the broken config was rewritten")
	}
	if _, err := os.Stat(PauseFile(p)); !os.IsNotExist(err) {
		t.Errorf("a pause was remembered though it did not happen")
	}
}

func TestPauseMissingConfig(t *testing.T) {
	p := pausePaths(t, "")
	if err := Pause(p, time.Now()); err != nil {
		t.Fatal(err)
	}
	if mode, err := Resume(p); err != nil || mode != "ask" {
		t.Fatalf("Resume = %q, %v", mode, err)
	}
}
