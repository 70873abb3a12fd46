package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/internal/agenttest"
)

// These tests run the real OpenCode (agenttest.OpenCode) against the fake
// model server's Chat Completions API, with agate's plugin installed by
// `agate-cli hooks install opencode`, the real agate-hook and a real
// daemon. A plugin that fails to load leaves OpenCode with no gate, and
// one that hangs hangs it: each is checked against what OpenCode did.

// openCodeWorld is an agentWorld with OpenCode installed and set up.
type openCodeWorld struct {
	*agentWorld
	opencode string
	plugin   string
}

func newOpenCodeWorld(t *testing.T, turns ...agenttest.Turn) *openCodeWorld {
	t.Helper()
	w := newAgentWorld(t, "", turns...)
	o := &openCodeWorld{agentWorld: w, opencode: agenttest.Install(t, agenttest.OpenCode)}
	w.h.OpenCodeConfig(t, w.s)
	w.h.InstallHooks(t, w.bin, "opencode", w.h.Env())
	o.plugin = filepath.Join(w.h.Config, "opencode", "plugin", "agate.js")
	return o
}

// run runs `opencode run` with prompt; --auto approves OpenCode's own
// asks, so agate's plugin is the only gate.
func (o *openCodeWorld) run(t *testing.T, extra []string, prompt string) *agenttest.Result {
	t.Helper()
	env := o.h.Env(append(o.s.OpenCodeEnv(), extra...)...)
	r := o.h.Run(t, agenttest.Cmd{Bin: o.opencode, Args: []string{"run", "--auto", prompt}, Env: env, Timeout: 3 * time.Minute})
	t.Logf("opencode run %q: %s\nmodel server:\n%s", prompt, r, o.s.Dump())
	return r
}

// TestOpenCodeGate: agate's plugin lets an allowed call run, blocks a
// denied one (the model told why), blocks every call when the daemon
// cannot be reached, and is reported loaded by `agate hooks status`.
func TestOpenCodeGate(t *testing.T) {
	t.Run("allowed", func(t *testing.T) {
		o := newOpenCodeWorld(t, agenttest.Call("bash", map[string]any{"command": "touch made.txt", "description": "make"}), agenttest.Say("done"))
		if r := o.run(t, nil, "make a file"); r.Code != 0 {
			t.Fatalf("opencode: %s", r)
		}
		if _, err := os.Stat(filepath.Join(o.h.Work, "made.txt")); err != nil {
			t.Fatalf("the allowed command did not run: %v\naudit:\n%s", err, o.auditDump(t))
		}
		if ev := o.auditEvents(t, "bash"); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision allow") {
			t.Fatalf("audit: %q\n%s", ev, o.auditDump(t))
		}
		st := o.h.Run(t, agenttest.Cmd{Bin: filepath.Join(o.bin, "agate-cli"), Args: []string{"hooks", "status"}, Env: o.h.Env()})
		if !strings.Contains(st.Stdout, o.plugin+": installed") || strings.Contains(st.Stdout, "does not parse") {
			t.Errorf("hooks status: %s", st)
		}
	})
	t.Run("denied", func(t *testing.T) {
		o := newOpenCodeWorld(t, agenttest.Call("bash", map[string]any{"command": "rm -f scratch.txt", "description": "clean"}), agenttest.Say("finished"))
		tooBigToKeep(t, filepath.Join(o.h.Work, "scratch.txt"))
		if r := o.run(t, nil, "clean up"); r.Code != 0 {
			t.Fatalf("opencode: %s", r)
		}
		if _, err := os.Stat(filepath.Join(o.h.Work, "scratch.txt")); err != nil {
			t.Fatalf("the denied command ran: %v", err)
		}
		if res := resultsText(o.s); !strings.Contains(res, "scratch.txt, which git cannot give back") {
			t.Fatalf("the model was not told agate's reason; tool results: %q", res)
		}
		if ev := o.auditEvents(t, "bash"); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision deny") {
			t.Fatalf("audit: %q\n%s", ev, o.auditDump(t))
		}
	})
	t.Run("daemon unreachable", func(t *testing.T) {
		o := newOpenCodeWorld(t, agenttest.Call("bash", map[string]any{"command": "touch made.txt", "description": "make"}), agenttest.Say("done"))
		if r := o.run(t, []string{"AGATE_SOCKET=" + filepath.Join(t.TempDir(), "agate.sock")}, "make a file"); r.Code != 0 {
			t.Fatalf("opencode: %s", r)
		}
		if _, err := os.Stat(filepath.Join(o.h.Work, "made.txt")); err == nil {
			t.Fatal("the command ran with no daemon to ask")
		}
		if res := resultsText(o.s); !strings.Contains(res, "agate: the daemon is not running") {
			t.Fatalf("the model was not told why; tool results: %q", res)
		}
	})
	t.Run("a broken plugin is reported", func(t *testing.T) {
		o := newOpenCodeWorld(t)
		data, _ := os.ReadFile(o.plugin)
		agenttest.WriteFile(t, o.plugin, append(data, []byte("\n}}} broken\n")...))
		st := o.h.Run(t, agenttest.Cmd{Bin: filepath.Join(o.bin, "agate-cli"), Args: []string{"hooks", "status"}, Env: o.h.Env()})
		if !strings.Contains(st.Stdout, "WARNING") || !strings.Contains(st.Stdout, "does not parse") {
			t.Errorf("hooks status of a plugin that does not parse: %s", st)
		}
	})
}
