package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/internal/agenttest"
	"github.com/agatehq/agate/policy"
)

// agentWorld is a scratch home where a real agent runs: agate's daemon
// serves on the home's default paths (its XDG folders), agate's hooks are
// installed by agate's own installer, and the model is a fake server.
type agentWorld struct {
	h     *agenttest.Home
	s     *agenttest.Server
	paths api.Paths
	d     *Daemon
	c     *api.Client
	bin   string // the folder holding agate-cli and agate-hook
}

func newAgentWorld(t *testing.T, config string, turns ...agenttest.Turn) *agentWorld {
	t.Helper()
	agenttest.Require(t)
	bin := agenttest.AgateBin(t)
	h := agenttest.NewHome(t)
	p := api.Paths{
		Config: filepath.Join(h.Config, "agate", "config.toml"),
		State:  filepath.Join(h.State, "agate"),
		Socket: filepath.Join(h.Runtime, "agate", "agate.sock"),
	}
	p.Grants = filepath.Join(filepath.Dir(p.Config), "grants.toml")
	if config != "" {
		agenttest.WriteFile(t, p.Config, []byte(config))
	}
	d, c := startDaemon(t, p)
	return &agentWorld{h: h, s: agenttest.NewServer(t, turns...), paths: p, d: d, c: c, bin: bin}
}

// approvals is what an attached approver saw.
type approvals struct {
	mu   sync.Mutex
	seen []api.Approval
}

func (a *approvals) list() []api.Approval {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]api.Approval(nil), a.seen...)
}

// attachApprover attaches a person at a terminal, as `agate approvals
// --watch` does (the /v1/events?approver=terminal stream), who answers
// every approval with answer; hold keeps them from answering at all.
func (w *agentWorld) attachApprover(t *testing.T, answer policy.Verdict, hold bool) *approvals {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	seen := &approvals{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.c.Events(ctx, true, func(ev api.Event) error {
			if ev.Type != "approval.requested" || ev.Approval == nil {
				return nil
			}
			seen.mu.Lock()
			seen.seen = append(seen.seen, *ev.Approval)
			seen.mu.Unlock()
			if !hold {
				w.c.Answer(ctx, &api.AnswerRequest{IDs: []string{ev.Approval.ID}, Answer: api.Answer{Decision: answer, Scope: api.ScopeOnce, Via: "terminal"}})
			}
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(w.d.Prompters(), "terminal") {
		if time.Now().After(deadline) {
			t.Fatal("the terminal approver did not attach")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return seen
}

// audit reads the audit log.
func (w *agentWorld) audit(t *testing.T) []audit.Record {
	t.Helper()
	f, err := os.Open(w.paths.AuditLog())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []audit.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r audit.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// auditEvents lists the audit log's events for tool, as "event decision
// by", for a test's log and checks.
func (w *agentWorld) auditEvents(t *testing.T, tool string) []string {
	t.Helper()
	var out []string
	for _, r := range w.audit(t) {
		if r.Tool == tool {
			out = append(out, strings.TrimSpace(r.Event+" "+r.Decision+" "+string(r.By)))
		}
	}
	return out
}

// auditDump describes the audit log, for a failing test.
func (w *agentWorld) auditDump(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, r := range w.audit(t) {
		b.WriteString(strings.Join([]string{r.Event, r.Agent, r.Tool, r.Subject, r.Decision, string(r.By), r.Layer, r.Reason, r.Note}, " | "))
		b.WriteString("\n")
	}
	return b.String()
}

// resultsText joins the tool results the agent sent the model.
func resultsText(s *agenttest.Server) string {
	var b strings.Builder
	for _, r := range s.ToolResults() {
		b.WriteString(r.Output)
		b.WriteString("\n")
	}
	return b.String()
}

// tooBigToKeep makes an untracked file larger than the default [undo]
// max_call_mb (a sparse one: it costs no disk), so that a delete of it,
// which git cannot give back and agate cannot keep a copy of, asks.
func tooBigToKeep(t *testing.T, p string) {
	t.Helper()
	agenttest.WriteFile(t, p, []byte("keep me\n"))
	if err := os.Truncate(p, int64(policy.DefaultConfig().Undo.MaxCallMB+1)<<20); err != nil {
		t.Fatal(err)
	}
}

// checkKeptAndUndo checks what became of an untracked file the agent
// deleted unasked: it is gone, the audit line of the call that deleted
// it says agate kept it, `agate undo` lists it, and `agate undo ID` puts
// it back byte for byte.
func (w *agentWorld) checkKeptAndUndo(t *testing.T, tool, path string, want []byte) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Fatalf("%s is still there: the call did not run\n%s", path, w.auditDump(t))
	}
	var kept *api.Kept
	for _, rec := range w.audit(t) {
		if rec.Tool == tool && rec.Event != "decision" {
			t.Errorf("it asked: %s %s (%s)", rec.Event, rec.Subject, rec.Reason)
		}
		if rec.Tool == tool && rec.Event == "decision" && rec.Kept != nil {
			if rec.Decision != "allow" || !strings.Contains(rec.Reason, "agate undo "+rec.Kept.ID) {
				t.Errorf("the keep's line: %s (%s)", rec.Decision, rec.Reason)
			}
			kept = rec.Kept
		}
	}
	if kept == nil || !slices.Contains(kept.Paths, path) {
		t.Fatalf("no audit line says %s was kept (%+v)\n%s", path, kept, w.auditDump(t))
	}
	cli := filepath.Join(w.bin, "agate-cli")
	list := w.h.Run(t, agenttest.Cmd{Bin: cli, Args: []string{"undo"}, Env: w.h.Env()})
	if list.Code != 0 || !strings.Contains(list.Stdout, kept.ID) {
		t.Fatalf("agate undo: %s", list)
	}
	put := w.h.Run(t, agenttest.Cmd{Bin: cli, Args: []string{"undo", kept.ID}, Env: w.h.Env()})
	if put.Code != 0 || !strings.Contains(put.Stdout, "put back  "+path) {
		t.Fatalf("agate undo %s: %s", kept.ID, put)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after agate undo %s: %q %v, want %q", kept.ID, got, err, want)
	}
}

// gateAgent is how gateCases drives one agent: the name of its shell tool
// and its arguments for a command, a world with the agent set up for
// turns, and a run of it headless with prompt (extra on top of its
// environment), where agate is the only gate.
type gateAgent struct {
	shell    string
	args     func(cmd string) map[string]any
	world    func(t *testing.T, turns ...agenttest.Turn) *agentWorld
	run      func(t *testing.T, w *agentWorld, extra []string, prompt string) *agenttest.Result
	askAudit string // the audit line of an ask with nobody in agate to put it to ("" for "decision deny ...")
}

// gateCases checks, with the real agent, that agate's allow runs a
// command, its deny blocks one and the model is told agate's reason, and
// a daemon that cannot be reached blocks every call, saying why.
func gateCases(t *testing.T, g gateAgent) {
	t.Run("allowed", func(t *testing.T) {
		w := g.world(t, agenttest.Call(g.shell, g.args("touch made.txt")), agenttest.Say("done"))
		if r := g.run(t, w, nil, "make a file"); r.Code != 0 {
			t.Fatalf("%s", r)
		}
		if _, err := os.Stat(filepath.Join(w.h.Work, "made.txt")); err != nil {
			t.Fatalf("the allowed command did not run: %v\naudit:\n%s", err, w.auditDump(t))
		}
		if ev := w.auditEvents(t, g.shell); len(ev) != 1 || !strings.HasPrefix(ev[0], "decision allow") {
			t.Fatalf("audit: %q\n%s", ev, w.auditDump(t))
		}
	})
	t.Run("denied", func(t *testing.T) {
		w := g.world(t, agenttest.Call(g.shell, g.args("rm -f scratch.txt")), agenttest.Say("finished"))
		tooBigToKeep(t, filepath.Join(w.h.Work, "scratch.txt"))
		if r := g.run(t, w, nil, "clean up"); r.Code != 0 {
			t.Fatalf("%s", r)
		}
		if _, err := os.Stat(filepath.Join(w.h.Work, "scratch.txt")); err != nil {
			t.Fatalf("the denied command ran: %v", err)
		}
		if res := resultsText(w.s); !strings.Contains(res, "agate: ") || !strings.Contains(res, "scratch.txt, which git cannot give back") {
			t.Fatalf("the model was not told agate's reason; tool results: %q", res)
		}
		ev := w.auditEvents(t, g.shell)
		if len(ev) != 1 || g.askAudit == "" && !strings.HasPrefix(ev[0], "decision deny") || g.askAudit != "" && ev[0] != g.askAudit {
			t.Fatalf("audit: %q\n%s", ev, w.auditDump(t))
		}
	})
	t.Run("daemon unreachable", func(t *testing.T) {
		w := g.world(t, agenttest.Call(g.shell, g.args("touch made.txt")), agenttest.Say("done"))
		if r := g.run(t, w, []string{"AGATE_SOCKET=" + filepath.Join(t.TempDir(), "agate.sock")}, "make a file"); r.Code != 0 {
			t.Fatalf("%s", r)
		}
		if _, err := os.Stat(filepath.Join(w.h.Work, "made.txt")); err == nil {
			t.Fatal("the command ran with no daemon to ask")
		}
		if res := resultsText(w.s); !strings.Contains(res, "agate: the daemon is not running") {
			t.Fatalf("the model was not told why; tool results: %q", res)
		}
	})
}

// confinedCalls are the shell calls of a confined-run check, in the
// agent's own words (args makes a call's arguments from its command): a
// read of a link to a credential store, the project's script reaching
// for loopback, and go test.
func confinedCalls(shell string, args func(cmd string) map[string]any) []agenttest.Turn {
	return []agenttest.Turn{
		agenttest.Call(shell, args("cat \"$(printf k)\"")),
		agenttest.Call(shell, args("sh run_tests.sh")),
		agenttest.Call(shell, args("go test ./...")),
	}
}

// prepareConfined lays out w for confinedCalls: a credential store with
// a canary and a link to it in the project (named by a path agate cannot
// know before the command runs: judged an unnamed read, it runs confined
// and must meet the sandbox, not the store), a script that reaches for
// the listener on port, and a Go module with a test. It skips where the
// kernel sandbox or go is missing.
func prepareConfined(t *testing.T, w *agentWorld, port string) {
	t.Helper()
	needKernelSandbox(t, w.d)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go here")
	}
	agenttest.WriteFile(t, filepath.Join(w.h.Home, ".aws", "credentials"), []byte("[default]\naws_secret_access_key = CANARY_aws_51c0\n"))
	if err := os.Symlink("../home/.aws/credentials", filepath.Join(w.h.Work, "k")); err != nil {
		t.Fatal(err)
	}
	agenttest.WriteFile(t, filepath.Join(w.h.Work, "run_tests.sh"), []byte(
		"curl -sS -m 5 http://127.0.0.1:"+port+"/ >/dev/null 2>&1 && echo REACHED || echo NO-NETWORK\n"))
	agenttest.WriteFile(t, filepath.Join(w.h.Work, "go.mod"), []byte("module m\ngo 1.21\n"))
	agenttest.WriteFile(t, filepath.Join(w.h.Work, "m_test.go"), []byte("package m\nimport \"testing\"\nfunc TestM(t *testing.T) {}\n"))
}

// checkConfined checks the results of confinedCalls (outs, the first
// three) and that every one of the n calls of shell in the audit log was
// allowed, confined: the credential read denied, loopback not reached,
// go test passing.
func checkConfined(t *testing.T, w *agentWorld, shell string, n int, outs []string, reached chan string) {
	t.Helper()
	if len(outs) < 3 {
		t.Fatalf("tool results %q", outs)
	}
	if strings.Contains(outs[0], "CANARY") || !strings.Contains(outs[0], "Permission denied") {
		t.Errorf("a link to a credential store: %q", outs[0])
	}
	if !strings.Contains(outs[1], "NO-NETWORK") || len(reached) > 0 {
		t.Errorf("the project's code reached the network: %q (%d connections)", outs[1], len(reached))
	}
	if !strings.Contains(outs[2], "ok") {
		t.Errorf("go test confined: %q", outs[2])
	}
	seen := 0
	for _, rec := range w.audit(t) {
		if rec.Tool != shell || rec.Event != "decision" {
			continue
		}
		seen++
		if rec.Decision != "allow" || rec.Confined == "" {
			t.Errorf("%s: %s, confined %q (%s): want an allow, confined, no ask", rec.Subject, rec.Decision, rec.Confined, rec.Reason)
		}
	}
	if seen != n {
		t.Errorf("%d %s decisions, want %d", seen, shell, n)
	}
}

// proxyDecisions splits the audit log's decisions of the tools match
// picks into the hook's (stepping aside for a proxy) and the proxy's
// own, each as "TOOL DECISION".
func (w *agentWorld) proxyDecisions(t *testing.T, match func(tool string) bool) (hook, proxy []string) {
	t.Helper()
	for _, rec := range w.audit(t) {
		if rec.Event != "decision" || !match(rec.Tool) {
			continue
		}
		if rec.By == api.ByMCPProxy {
			hook = append(hook, rec.Tool+" "+rec.Decision)
		} else {
			proxy = append(proxy, rec.Tool+" "+rec.Decision)
		}
	}
	return hook, proxy
}
