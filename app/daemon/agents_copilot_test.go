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

// copilotWorld is an agentWorld with Copilot CLI installed and set up.
type copilotWorld struct {
	*agentWorld
	copilot string
}

func newCopilotWorld(t *testing.T, turns ...agenttest.Turn) *copilotWorld {
	t.Helper()
	w := newAgentWorld(t, "", turns...)
	c := &copilotWorld{agentWorld: w, copilot: agenttest.Install(t, agenttest.CopilotCLI)}
	w.h.InstallHooks(t, w.bin, "copilot", w.h.Env(w.s.CopilotEnv(w.h)...))
	return c
}

// run runs copilot headless with every tool allowed by Copilot itself:
// agate is the only gate.
func (c *copilotWorld) run(t *testing.T, extra []string, prompt string) *agenttest.Result {
	t.Helper()
	env := c.h.Env(append(c.s.CopilotEnv(c.h), extra...)...)
	r := c.h.Run(t, agenttest.Cmd{Bin: c.copilot, Args: []string{"-p", prompt, "--allow-all-tools"}, Env: env, Timeout: 3 * time.Minute})
	t.Logf("copilot -p %q: %s\nmodel server:\n%s", prompt, r, c.s.Dump())
	return r
}

// TestCopilotGate: agate's allow runs the call; its deny, in JSON, blocks
// it and the model is told agate's reason; with no daemon the call is
// blocked, in JSON too, saying why.
func TestCopilotGate(t *testing.T) {
	t.Run("allowed", func(t *testing.T) {
		c := newCopilotWorld(t, agenttest.Call("bash", map[string]any{"command": "touch made.txt", "description": "make"}), agenttest.Say("done"))
		if r := c.run(t, nil, "make a file"); r.Code != 0 {
			t.Fatalf("copilot: %s", r)
		}
		if _, err := os.Stat(filepath.Join(c.h.Work, "made.txt")); err != nil {
			t.Fatalf("the allowed command did not run: %v\naudit:\n%s", err, c.auditDump(t))
		}
		if ev := c.auditEvents(t, "bash"); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision allow") {
			t.Fatalf("audit: %q\n%s", ev, c.auditDump(t))
		}
	})
	t.Run("denied", func(t *testing.T) {
		c := newCopilotWorld(t, agenttest.Call("bash", map[string]any{"command": "rm -f scratch.txt", "description": "clean"}), agenttest.Say("finished"))
		tooBigToKeep(t, filepath.Join(c.h.Work, "scratch.txt"))
		if r := c.run(t, nil, "clean up"); r.Code != 0 {
			t.Fatalf("copilot: %s", r)
		}
		if _, err := os.Stat(filepath.Join(c.h.Work, "scratch.txt")); err != nil {
			t.Fatalf("the denied command ran: %v", err)
		}
		if res := resultsText(c.s); !strings.Contains(res, "scratch.txt, which git cannot give back") {
			t.Fatalf("the model was not told agate's reason; tool results: %q", res)
		}
		// The payload does not say Copilot runs headless: the ask is
		// handed to Copilot's prompt, which -p turns into a deny with
		// agate's reason.
		if ev := c.auditEvents(t, "bash"); len(ev) != 1 || ev[0] != "decision ask agent" {
			t.Fatalf("audit: %q\n%s", ev, c.auditDump(t))
		}
	})
	t.Run("daemon unreachable", func(t *testing.T) {
		c := newCopilotWorld(t, agenttest.Call("bash", map[string]any{"command": "touch made.txt", "description": "make"}), agenttest.Say("done"))
		if r := c.run(t, []string{"AGATE_SOCKET=" + filepath.Join(t.TempDir(), "agate.sock")}, "make a file"); r.Code != 0 {
			t.Fatalf("copilot: %s", r)
		}
		if _, err := os.Stat(filepath.Join(c.h.Work, "made.txt")); err == nil {
			t.Fatal("the command ran with no daemon to ask")
		}
		if res := resultsText(c.s); !strings.Contains(res, "agate: the daemon is not running") {
			t.Fatalf("the model was not told why; tool results: %q", res)
		}
	})
	t.Run("a file tool", func(t *testing.T) {
		c := newCopilotWorld(t)
		c.s = agenttest.NewServer(t, agenttest.Call("create", map[string]any{"path": filepath.Join(c.h.Work, "notes.md"), "file_text": "hello\n"}), agenttest.Say("done"))
		if r := c.run(t, nil, "write notes"); r.Code != 0 {
			t.Fatalf("copilot: %s", r)
		}
		if b, err := os.ReadFile(filepath.Join(c.h.Work, "notes.md")); err != nil || string(b) != "hello\n" {
			t.Fatalf("the allowed write: %q, %v\naudit:\n%s", b, err, c.auditDump(t))
		}
		if ev := c.auditEvents(t, "create"); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision allow") {
			t.Fatalf("audit: %q\n%s", ev, c.auditDump(t))
		}
	})
}
