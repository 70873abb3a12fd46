package daemon

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/internal/agenttest"
)

// These tests run the real Claude Code (agenttest.ClaudeCode) with
// agate's hooks, installed by `agate-cli hooks install claude-code`, the
// real agate-hook binary and a real daemon with nobody attached, so an
// ask goes to Claude Code's own prompt. They run with AGATE_AGENT_TESTS=1
// (make test-agents).

type claudeWorld struct {
	*agentWorld
	claude string
}

func newClaudeWorld(t *testing.T, turns ...agenttest.Turn) *claudeWorld {
	t.Helper()
	w := newAgentWorld(t, "", turns...)
	c := &claudeWorld{agentWorld: w, claude: agenttest.Install(t, agenttest.ClaudeCode)}
	w.h.ClaudeState(t)
	w.h.InstallHooks(t, w.bin, "claude-code", w.h.Env())
	return c
}

func (c *claudeWorld) env() []string { return c.h.Env(c.s.ClaudeEnv()...) }

// agentOutcome waits for the audit log to record what the person answered
// in Claude Code's prompt about tool, and returns that record.
func (c *claudeWorld) agentOutcome(t *testing.T, tool string, timeout time.Duration) *audit.Record {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, r := range c.audit(t) {
			if r.Tool == tool && strings.HasPrefix(r.Event, "approval.agent_") {
				return &r
			}
		}
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkTied checks that an outcome record is tied to the decision that
// handed the ask to Claude Code: same session, tool, subject and
// tool_use_id, and Of naming its seq.
func (c *claudeWorld) checkTied(t *testing.T, out *audit.Record) {
	t.Helper()
	for _, r := range c.audit(t) {
		if r.Seq == out.Of {
			if r.Event != "decision" || r.Decision != "ask" || r.By != api.ByAgent || r.Session != out.Session ||
				r.Tool != out.Tool || r.Subject != out.Subject || r.ToolUseID == "" || r.ToolUseID != out.ToolUseID {
				t.Fatalf("%s is not tied to its decision:\n  %+v\n  %+v", out.Event, *out, r)
			}
			return
		}
	}
	t.Fatalf("%s names decision seq %d, which is not in the log", out.Event, out.Of)
}

// TestClaudeAskInPrintMode: `claude -p` has no prompt of its own, so agate
// never hands it an ask: with nobody attached to agate the call is denied
// by agate, unattended, and the model is told agate's reason.
func TestClaudeAskInPrintMode(t *testing.T) {
	c := newClaudeWorld(t, agenttest.Call("Bash", map[string]any{"command": "rm -f scratch.txt", "description": "clean up"}), agenttest.Say("done"))
	tooBigToKeep(t, filepath.Join(c.h.Work, "scratch.txt"))
	r := c.h.Run(t, agenttest.Cmd{Bin: c.claude, Args: []string{"-p", "clean up", "--output-format", "json"}, Env: c.env(), Timeout: 90 * time.Second})
	t.Logf("claude -p: %s\nmodel server:\n%s", r, c.s.Dump())
	if r.Code != 0 {
		t.Fatalf("claude: %s", r)
	}
	if _, err := os.Stat(filepath.Join(c.h.Work, "scratch.txt")); err != nil {
		t.Fatalf("the command ran: %v", err)
	}
	res := c.s.ToolResults()
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Output, "agate: nobody can be asked, so it is denied: it deletes ") ||
		!strings.Contains(res[0].Output, "scratch.txt, which git cannot give back") {
		t.Fatalf("the model was not told agate's reason: %+v", res)
	}
	if ev := c.auditEvents(t, "Bash"); len(ev) != 1 || ev[0] != "decision deny unattended" {
		t.Fatalf("audit: %q\n%s", ev, c.auditDump(t))
	}
}

// TestClaudeAskInTerminal: in Claude Code's terminal UI an ask from agate
// is Claude Code's prompt, with agate's reason; what the person answers
// there is in agate's audit log: "Yes" as approval.agent_allowed when the
// call has run, "No" as approval.agent_denied when the next prompt comes
// with the call not run.
func TestClaudeAskInTerminal(t *testing.T) {
	for _, c := range []struct {
		name, key, event string
	}{{"yes", "Enter", "approval.agent_allowed"}, {"no", "2", "approval.agent_denied"}} {
		t.Run(c.name, func(t *testing.T) {
			w := newClaudeWorld(t, agenttest.Call("Bash", map[string]any{"command": "rm -f scratch.txt", "description": "clean up"}), agenttest.Say("done"))
			tooBigToKeep(t, filepath.Join(w.h.Work, "scratch.txt"))
			u := w.h.StartTUI(t, agenttest.Cmd{Bin: w.claude, Args: []string{"clean up"}, Env: w.env()})
			if !u.WaitFor("it deletes ", 45*time.Second) || !u.WaitFor("Do you want to proceed?", 10*time.Second) {
				u.Dump("no prompt")
				t.Fatalf("Claude Code's prompt did not show agate's reason\n%s", w.s.Dump())
			}
			// A key typed while the prompt is still being drawn can be
			// lost: type it again until the prompt is answered.
			answered := func(screen string) bool {
				if c.name == "no" {
					return strings.Contains(screen, "What should Claude do instead?")
				}
				return !strings.Contains(screen, "Do you want to proceed?")
			}
			for try := 0; ; try++ {
				u.Keys(c.key)
				if u.Until(answered, 5*time.Second) {
					break
				}
				if try == 3 {
					u.Dump("not answered")
					t.Fatalf("Claude Code's prompt did not take %q", c.key)
				}
			}
			if c.name == "no" {
				// "No" stops the turn and fires no event: the next prompt
				// tells agate the call never ran.
				u.Type("never mind")
			}
			out := w.agentOutcome(t, "Bash", 30*time.Second)
			u.Dump("after the answer")
			if out == nil || out.Event != c.event {
				t.Fatalf("audit: %+v\n%s", out, w.auditDump(t))
			}
			w.checkTied(t, out)
			_, err := os.Stat(filepath.Join(w.h.Work, "scratch.txt"))
			if ran := err != nil; ran != (c.name == "yes") {
				t.Fatalf("answered %s, yet the command ran: %v", c.name, ran)
			}
		})
	}
}

// TestClaudeOfferedToolsKnown: every tool Claude Code offers the model is
// one agate's catalog knows: when Claude Code ships a new tool, this
// fails.
func TestClaudeOfferedToolsKnown(t *testing.T) {
	c := newClaudeWorld(t, agenttest.Say("hello"))
	r := c.h.Run(t, agenttest.Cmd{Bin: c.claude, Args: []string{"-p", "say hello", "--output-format", "json"}, Env: c.env(), Timeout: 90 * time.Second})
	if r.Code != 0 {
		t.Fatalf("claude: %s\n%s", r, c.s.Dump())
	}
	checkOfferedKnown(t, c.agentWorld, c.s.Offered())
}

// TestClaudeConfined: with the default config, headless (claude -p, so
// nobody could be asked), the Bash calls agate lets through on its own
// judgment run in the sandbox cut to it, through the real hook and the
// rewritten command Claude Code runs: a link made to a credential store
// reads nothing, the project's code that reaches for the network does not
// reach it, an ordinary go test passes, and nothing asks.
func TestClaudeConfined(t *testing.T) {
	port, reached := loopbackListener(t)
	c := newClaudeWorld(t,
		agenttest.Call("Bash", map[string]any{"command": "cat \"$(printf k)\"", "description": "read it"}),
		agenttest.Call("Bash", map[string]any{"command": "sh run_tests.sh", "description": "test"}),
		agenttest.Call("Bash", map[string]any{"command": "go test ./...", "description": "go test"}),
		agenttest.Say("done"))
	d, _ := c.d, c.c
	needKernelSandbox(t, d)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go here")
	}
	agenttest.WriteFile(t, filepath.Join(c.h.Home, ".aws", "credentials"), []byte("[default]\naws_secret_access_key = CANARY_aws_51c0\n"))
	// The project holds a link, named by a path agate cannot know
	// before it runs: judged an unnamed read, it runs confined and
	// must meet the sandbox, not the store.
	if err := os.Symlink("../home/.aws/credentials", filepath.Join(c.h.Work, "k")); err != nil {
		t.Fatal(err)
	}
	agenttest.WriteFile(t, filepath.Join(c.h.Work, "run_tests.sh"), []byte("(exec 3<>/dev/tcp/127.0.0.1/"+port+") 2>/dev/null && echo REACHED || echo NO-NETWORK\n"))
	agenttest.WriteFile(t, filepath.Join(c.h.Work, "go.mod"), []byte("module m\ngo 1.21\n"))
	agenttest.WriteFile(t, filepath.Join(c.h.Work, "m_test.go"), []byte("package m\nimport \"testing\"\nfunc TestM(t *testing.T) {}\n"))
	env := append(c.env(), "CLAUDE_PROJECT_DIR="+c.h.Work, "PATH="+os.Getenv("PATH"))
	r := c.h.Run(t, agenttest.Cmd{Bin: c.claude, Args: []string{"-p", "test it", "--output-format", "json"}, Env: env, Timeout: 4 * time.Minute})
	t.Logf("claude -p: %s", r)
	if r.Code != 0 {
		t.Fatalf("claude: %s\n%s", r, c.s.Dump())
	}
	var outs []string
	for _, tr := range c.s.ToolResults() {
		outs = append(outs, tr.Output)
	}
	if len(outs) != 3 {
		t.Fatalf("tool results %q\n%s", outs, c.s.Dump())
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
	for _, rec := range c.audit(t) {
		if rec.Tool != "Bash" || rec.Event != "decision" {
			continue
		}
		if rec.Decision != "allow" || rec.Confined == "" {
			t.Errorf("%s: %s, confined %q (%s): want an allow, confined, no ask", rec.Subject, rec.Decision, rec.Confined, rec.Reason)
		}
	}
}

// loopbackListener listens on the host's loopback for what a confined
// command must not reach: its port, and a channel that gets each
// connection's peer. It closes with the test.
func loopbackListener(t *testing.T) (port string, reached chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	reached = make(chan string, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			reached <- c.RemoteAddr().String()
			c.Close()
		}
	}()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), reached
}

// TestClaudeDeleteKept: the real Claude Code, headless, deletes a file
// git cannot give back: it runs unasked because agate keeps a copy
// first, and `agate undo ID` puts it back byte for byte.
func TestClaudeDeleteKept(t *testing.T) {
	c := newClaudeWorld(t, agenttest.Call("Bash", map[string]any{"command": "rm -f notes.txt", "description": "clean up"}), agenttest.Say("done"))
	body := []byte("the person's notes\n\x00\xff and bytes that are not text\n")
	agenttest.WriteFile(t, filepath.Join(c.h.Work, "notes.txt"), body)
	r := c.h.Run(t, agenttest.Cmd{Bin: c.claude, Args: []string{"-p", "clean up", "--output-format", "json"}, Env: c.env(), Timeout: 90 * time.Second})
	if r.Code != 0 {
		t.Fatalf("claude: %s\n%s", r, c.s.Dump())
	}
	c.checkKeptAndUndo(t, "Bash", filepath.Join(c.h.Work, "notes.txt"), body)
}

// TestClaudeCompatible: `agate hooks install claude-compatible --settings
// FILE` puts any agent in Claude Code's hook protocol behind agate; the
// real Claude Code, the first such agent, obeys the hooks it writes. The
// calls are decided under the name claude-compatible, so none is
// rewritten to run confined: an allowed command runs as it was, a denied
// one does not, and the model is told why.
func TestClaudeCompatible(t *testing.T) {
	w := newAgentWorld(t, "", agenttest.Call("Bash", map[string]any{"command": "touch made.txt", "description": "make"}),
		agenttest.Call("Bash", map[string]any{"command": "rm -f scratch.txt", "description": "clean up"}), agenttest.Say("done"))
	claude := agenttest.Install(t, agenttest.ClaudeCode)
	w.h.ClaudeState(t)
	file := filepath.Join(w.h.Home, ".claude", "settings.json")
	w.h.InstallHooks(t, w.bin, "claude-compatible", w.h.Env(), "--settings", file)
	tooBigToKeep(t, filepath.Join(w.h.Work, "scratch.txt"))
	r := w.h.Run(t, agenttest.Cmd{Bin: claude, Args: []string{"-p", "make and clean", "--output-format", "json"}, Env: w.h.Env(w.s.ClaudeEnv()...), Timeout: 90 * time.Second})
	t.Logf("claude -p: %s\nmodel server:\n%s", r, w.s.Dump())
	if r.Code != 0 {
		t.Fatalf("claude: %s", r)
	}
	if _, err := os.Stat(filepath.Join(w.h.Work, "made.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.h.Work, "scratch.txt")); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	if res := resultsText(w.s); !strings.Contains(res, "scratch.txt, which git cannot give back") {
		t.Errorf("the model was not told agate's reason: %q", res)
	}
	var agents []string
	for _, rec := range w.audit(t) {
		if rec.Tool == "Bash" && rec.Event == "decision" {
			agents = append(agents, rec.Agent+" "+rec.Decision)
			if rec.Confined != "" {
				t.Errorf("a claude-compatible call was rewritten: %+v", rec)
			}
		}
	}
	if strings.Join(agents, ",") != "claude-compatible allow,claude-compatible deny" {
		t.Errorf("decisions: %q\n%s", agents, w.auditDump(t))
	}
}
