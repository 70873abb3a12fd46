package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/internal/agenttest"
)

// These tests run the real GitHub Copilot CLI (agenttest.CopilotCLI),
// offline with its own key against the fake model server's Chat
// Completions API, with agate's hooks installed by `agate-cli hooks
// install copilot`, the real agate-hook and a real daemon. Copilot runs
// a call whose hook prints nothing or garbage under --allow-all-tools,
// or times out, so each way agate says no is checked against what
// Copilot then did.

// copilotWorld sets up Copilot CLI for turns: agate's hooks file.
func copilotWorld(t *testing.T, turns ...agenttest.Turn) *agentWorld {
	t.Helper()
	w := newAgentWorld(t, "", turns...)
	w.h.InstallHooks(t, w.bin, "copilot", w.h.Env(w.s.CopilotEnv(w.h)...))
	return w
}

// runCopilot runs copilot headless with every tool allowed by Copilot
// itself: agate is the only gate.
func runCopilot(t *testing.T, w *agentWorld, extra []string, prompt string) *agenttest.Result {
	t.Helper()
	env := w.h.Env(append(w.s.CopilotEnv(w.h), extra...)...)
	r := w.h.Run(t, agenttest.Cmd{Bin: agenttest.Install(t, agenttest.CopilotCLI), Args: []string{"-p", prompt, "--allow-all-tools"}, Env: env, Timeout: 3 * time.Minute})
	t.Logf("copilot -p %q: %s\nmodel server:\n%s", prompt, r, w.s.Dump())
	return r
}

// TestCopilotGate: agate's allow runs the call; its deny, in JSON, blocks
// it and the model is told agate's reason (the payload does not say
// Copilot runs headless: the ask goes to Copilot's prompt, which -p turns
// into a deny with agate's reason); with no daemon the call is blocked,
// in JSON too, saying why; a file tool is decided as the catalog says.
func TestCopilotGate(t *testing.T) {
	agenttest.Install(t, agenttest.CopilotCLI)
	gateCases(t, gateAgent{shell: "bash", args: func(c string) map[string]any { return map[string]any{"command": c, "description": "run"} },
		world: copilotWorld, run: runCopilot, askAudit: "decision ask agent"})
	t.Run("a file tool", func(t *testing.T) {
		w := copilotWorld(t)
		w.s = agenttest.NewServer(t, agenttest.Call("create", map[string]any{"path": filepath.Join(w.h.Work, "notes.md"), "file_text": "hello\n"}), agenttest.Say("done"))
		if r := runCopilot(t, w, nil, "write notes"); r.Code != 0 {
			t.Fatalf("copilot: %s", r)
		}
		if b, err := os.ReadFile(filepath.Join(w.h.Work, "notes.md")); err != nil || string(b) != "hello\n" {
			t.Fatalf("the allowed write: %q, %v\naudit:\n%s", b, err, w.auditDump(t))
		}
		if ev := w.auditEvents(t, "create"); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision allow") {
			t.Fatalf("audit: %q\n%s", ev, w.auditDump(t))
		}
	})
}
