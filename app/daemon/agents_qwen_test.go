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

// qwenWorld is an agentWorld with Qwen Code installed and set up.
type qwenWorld struct {
	*agentWorld
	qwen     string
	settings string
}

func newQwenWorld(t *testing.T, config string, turns ...agenttest.Turn) *qwenWorld {
	t.Helper()
	w := newAgentWorld(t, config, turns...)
	q := &qwenWorld{agentWorld: w, qwen: agenttest.Install(t, agenttest.QwenCode)}
	q.settings = w.h.QwenSettings(t, nil)
	out := w.h.InstallHooks(t, w.bin, "qwen-code", w.h.Env())
	if !strings.Contains(out, "safe-mode") {
		t.Errorf("the installer does not say what turns Qwen's hooks off:\n%s", out)
	}
	return q
}

// run runs qwen headless in yolo mode (every tool offered, none asked by
// Qwen itself: agate is the only gate) with prompt.
func (q *qwenWorld) run(t *testing.T, extra []string, prompt string) *agenttest.Result {
	t.Helper()
	env := q.h.Env(append(q.s.QwenEnv(), extra...)...)
	r := q.h.Run(t, agenttest.Cmd{Bin: q.qwen, Args: []string{"-p", prompt, "--yolo"}, Env: env, Timeout: 90 * time.Second})
	t.Logf("qwen -p %q: %s\nmodel server:\n%s", prompt, r, q.s.Dump())
	return r
}

// TestQwenGate: agate's allow runs the call, its deny (exit 2) blocks it
// and the model is told why, and a daemon that cannot be reached blocks
// every call; the settings agate wrote hold its hooks and a timeout in
// milliseconds.
func TestQwenGate(t *testing.T) {
	t.Run("allowed", func(t *testing.T) {
		q := newQwenWorld(t, "", agenttest.Call("run_shell_command", map[string]any{"command": "touch made.txt"}), agenttest.Say("done"))
		r := q.run(t, nil, "make a file")
		if r.Code != 0 {
			t.Fatalf("qwen: %s", r)
		}
		if _, err := os.Stat(filepath.Join(q.h.Work, "made.txt")); err != nil {
			t.Fatalf("the allowed command did not run: %v\naudit:\n%s", err, q.auditDump(t))
		}
		if ev := q.auditEvents(t, "run_shell_command"); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision allow") {
			t.Fatalf("audit: %q\n%s", ev, q.auditDump(t))
		}
		var s struct {
			Hooks map[string][]struct {
				Hooks []struct {
					Command string `json:"command"`
					Timeout int64  `json:"timeout"`
				} `json:"hooks"`
			} `json:"hooks"`
		}
		data, _ := os.ReadFile(q.settings)
		if err := json.Unmarshal(data, &s); err != nil || len(s.Hooks["PreToolUse"]) != 1 || s.Hooks["PreToolUse"][0].Hooks[0].Timeout < 1000 {
			t.Fatalf("settings (%v): %s", err, data)
		}
	})
	t.Run("denied", func(t *testing.T) {
		q := newQwenWorld(t, "", agenttest.Call("run_shell_command", map[string]any{"command": "rm -f scratch.txt"}), agenttest.Say("finished"))
		tooBigToKeep(t, filepath.Join(q.h.Work, "scratch.txt"))
		r := q.run(t, nil, "clean up")
		if r.Code != 0 {
			t.Fatalf("qwen: %s", r)
		}
		if _, err := os.Stat(filepath.Join(q.h.Work, "scratch.txt")); err != nil {
			t.Fatalf("the denied command ran: %v", err)
		}
		if res := resultsText(q.s); !strings.Contains(res, "agate: ") || !strings.Contains(res, "scratch.txt, which git cannot give back") {
			t.Fatalf("the model was not told agate's reason; tool results: %q", res)
		}
		if ev := q.auditEvents(t, "run_shell_command"); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision deny") {
			t.Fatalf("audit: %q\n%s", ev, q.auditDump(t))
		}
	})
	t.Run("daemon unreachable", func(t *testing.T) {
		q := newQwenWorld(t, "", agenttest.Call("run_shell_command", map[string]any{"command": "touch made.txt"}), agenttest.Say("done"))
		nowhere := t.TempDir()
		r := q.run(t, []string{"AGATE_SOCKET=" + filepath.Join(nowhere, "agate.sock")}, "make a file")
		if r.Code != 0 {
			t.Fatalf("qwen: %s", r)
		}
		if _, err := os.Stat(filepath.Join(q.h.Work, "made.txt")); err == nil {
			t.Fatalf("the command ran with no daemon to ask")
		}
		if res := resultsText(q.s); !strings.Contains(res, "agate: the daemon is not running") {
			t.Fatalf("the model was not told why; tool results: %q", res)
		}
	})
	t.Run("edit tools", func(t *testing.T) {
		q := newQwenWorld(t, "")
		q.s = agenttest.NewServer(t, agenttest.Call("write_file", map[string]any{"file_path": filepath.Join(q.h.Work, "notes.md"), "content": "hello\n"}), agenttest.Say("done"))
		r := q.run(t, nil, "write notes")
		if r.Code != 0 {
			t.Fatalf("qwen: %s", r)
		}
		if b, err := os.ReadFile(filepath.Join(q.h.Work, "notes.md")); err != nil || string(b) != "hello\n" {
			t.Fatalf("the allowed write: %q, %v\naudit:\n%s", b, err, q.auditDump(t))
		}
		if ev := q.auditEvents(t, "write_file"); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision allow") {
			t.Fatalf("audit: %q\n%s", ev, q.auditDump(t))
		}
	})
}
