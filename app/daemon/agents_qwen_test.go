package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/internal/agenttest"
)

// These tests run the real Qwen Code (agenttest.QwenCode) against the
// fake model server's Chat Completions API, with agate's hooks installed
// by `agate-cli hooks install qwen-code`, the real agate-hook and a real
// daemon. Qwen Code runs a call whose hook fails in any way but exit 2,
// so each way agate says no is checked against what Qwen then did.

// qwenWorld sets up Qwen Code for turns: its settings, agate's hooks.
func qwenWorld(t *testing.T, turns ...agenttest.Turn) *agentWorld {
	t.Helper()
	w := newAgentWorld(t, "", turns...)
	w.h.QwenSettings(t, nil)
	out := w.h.InstallHooks(t, w.bin, "qwen-code", w.h.Env())
	if !strings.Contains(out, "safe-mode") {
		t.Errorf("the installer does not say what turns Qwen's hooks off:\n%s", out)
	}
	return w
}

// runQwen runs qwen headless in yolo mode (every tool offered, none asked
// by Qwen itself: agate is the only gate) with prompt.
func runQwen(t *testing.T, w *agentWorld, extra []string, prompt string) *agenttest.Result {
	t.Helper()
	env := w.h.Env(append(w.s.QwenEnv(), extra...)...)
	r := w.h.Run(t, agenttest.Cmd{Bin: agenttest.Install(t, agenttest.QwenCode), Args: []string{"-p", prompt, "--yolo"}, Env: env, Timeout: 90 * time.Second})
	t.Logf("qwen -p %q: %s\nmodel server:\n%s", prompt, r, w.s.Dump())
	return r
}

// TestQwenGate: agate's allow runs the call, its deny (exit 2) blocks it
// and the model is told why, and a daemon that cannot be reached blocks
// every call; the settings agate wrote hold a timeout in milliseconds,
// and a file tool is decided as agate's catalog says.
func TestQwenGate(t *testing.T) {
	agenttest.Install(t, agenttest.QwenCode)
	gateCases(t, gateAgent{shell: "run_shell_command", args: func(c string) map[string]any { return map[string]any{"command": c} }, world: qwenWorld, run: runQwen})
	t.Run("settings", func(t *testing.T) {
		w := qwenWorld(t)
		var s struct {
			Hooks map[string][]struct {
				Hooks []struct {
					Timeout int64 `json:"timeout"`
				} `json:"hooks"`
			} `json:"hooks"`
		}
		data, _ := os.ReadFile(filepath.Join(w.h.Home, ".qwen", "settings.json"))
		if err := json.Unmarshal(data, &s); err != nil || len(s.Hooks["PreToolUse"]) != 1 || s.Hooks["PreToolUse"][0].Hooks[0].Timeout < 1000 {
			t.Fatalf("settings (%v): %s", err, data)
		}
	})
	t.Run("a file tool", func(t *testing.T) {
		w := qwenWorld(t)
		w.s = agenttest.NewServer(t, agenttest.Call("write_file", map[string]any{"file_path": filepath.Join(w.h.Work, "notes.md"), "content": "hello\n"}), agenttest.Say("done"))
		if r := runQwen(t, w, nil, "write notes"); r.Code != 0 {
			t.Fatalf("qwen: %s", r)
		}
		if b, err := os.ReadFile(filepath.Join(w.h.Work, "notes.md")); err != nil || string(b) != "hello\n" {
			t.Fatalf("the allowed write: %q, %v\naudit:\n%s", b, err, w.auditDump(t))
		}
		if ev := w.auditEvents(t, "write_file"); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision allow") {
			t.Fatalf("audit: %q\n%s", ev, w.auditDump(t))
		}
	})
}
