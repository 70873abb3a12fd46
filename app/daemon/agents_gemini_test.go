package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agatehq/agate/app/internal/agenttest"
	"github.com/agatehq/agate/policy"
)

// These tests run the real Gemini CLI (agenttest.GeminiCLI) with agate's
// hooks, installed by `agate-cli hooks install gemini`, the real
// agate-hook binary and a real daemon. They run with AGATE_AGENT_TESTS=1
// (make test-agents).

// geminiWorld is an agentWorld with Gemini CLI installed and set up:
// settings (extra merged in), agate's hooks.
type geminiWorld struct {
	*agentWorld
	gemini string
}

func newGeminiWorld(t *testing.T, settings map[string]any, turns ...agenttest.Turn) *geminiWorld {
	t.Helper()
	w := newAgentWorld(t, "", turns...)
	g := &geminiWorld{agentWorld: w, gemini: agenttest.Install(t, agenttest.GeminiCLI)}
	w.h.GeminiSettings(t, settings)
	w.h.InstallHooks(t, w.bin, "gemini", w.h.Env())
	return g
}

// env is the environment Gemini runs with, extra on top.
func (g *geminiWorld) env(extra ...string) []string {
	return g.h.Env(append(g.s.GeminiEnv(), extra...)...)
}

// run runs gemini headless with args.
func (g *geminiWorld) run(t *testing.T, extra []string, args ...string) *agenttest.Result {
	t.Helper()
	r := g.h.Run(t, agenttest.Cmd{Bin: g.gemini, Args: args, Env: g.env(extra...), Timeout: 90 * time.Second})
	t.Logf("gemini %s: %s\nmodel server:\n%s", strings.Join(args, " "), r, g.s.Dump())
	return r
}

// TestGeminiHeadlessAskGoesToAgate: in `gemini -p` nobody can answer
// Gemini's own confirmation, so an ask from agate must not be handed to
// it. With nobody attached to agate the call is denied and the model is
// told why; with a person at a terminal (agate approvals --watch) they are
// asked, and their answer holds.
func TestGeminiHeadlessAskGoesToAgate(t *testing.T) {
	rm := agenttest.Call("run_shell_command", map[string]any{"command": "rm -f scratch.txt"})
	t.Run("nobody attached", func(t *testing.T) {
		g := newGeminiWorld(t, nil, rm, agenttest.Say("finished"))
		tooBigToKeep(t, filepath.Join(g.h.Work, "scratch.txt"))
		r := g.run(t, nil, "-p", "clean up", "--yolo")
		if r.Code != 0 {
			t.Fatalf("gemini: %s", r)
		}
		if _, err := os.Stat(filepath.Join(g.h.Work, "scratch.txt")); err != nil {
			t.Fatalf("the command ran: %v", err)
		}
		res := resultsText(g.s)
		if !strings.Contains(res, "agate: ") || !strings.Contains(res, "scratch.txt, which git cannot give back") {
			t.Fatalf("the model was not told agate's reason; tool results: %q", res)
		}
		if ev := g.auditEvents(t, "run_shell_command"); len(ev) != 1 || ev[0] != "decision deny unattended" {
			t.Fatalf("audit: %q\n%s\ntool results: %q", ev, g.auditDump(t), resultsText(g.s))
		}
	})
	t.Run("a secret read, without yolo", func(t *testing.T) {
		g := newGeminiWorld(t, nil, agenttest.Call("read_file", map[string]any{"file_path": "deploy.pem"}), agenttest.Say("finished"))
		agenttest.WriteFile(t, filepath.Join(g.h.Work, "deploy.pem"), []byte("s3cr3t-value\n"))
		r := g.run(t, nil, "-p", "read the key")
		if r.Code != 0 {
			t.Fatalf("gemini: %s", r)
		}
		res := resultsText(g.s)
		if strings.Contains(res, "s3cr3t-value") || !strings.Contains(res, "agate: ") {
			t.Fatalf("the secret was read, or the model was not told agate's reason: %q", res)
		}
	})
	t.Run("a person at a terminal", func(t *testing.T) {
		for _, answer := range []policy.Verdict{policy.Allow, policy.Deny} {
			t.Run(answer.String(), func(t *testing.T) {
				g := newGeminiWorld(t, nil, rm, agenttest.Say("finished"))
				tooBigToKeep(t, filepath.Join(g.h.Work, "scratch.txt"))
				seen := g.attachApprover(t, answer, false)
				r := g.run(t, nil, "-p", "clean up", "--yolo")
				if r.Code != 0 {
					t.Fatalf("gemini: %s", r)
				}
				if a := seen.list(); len(a) != 1 || a[0].Subject != "rm -f scratch.txt" {
					t.Fatalf("the person was asked about %+v", a)
				}
				_, err := os.Stat(filepath.Join(g.h.Work, "scratch.txt"))
				res := resultsText(g.s)
				if answer == policy.Allow {
					if err == nil || strings.Contains(res, "agate: ") {
						t.Fatalf("allowed, yet the file is there (%v) or the model saw %q", err, res)
					}
				} else if err != nil || !strings.Contains(res, "the person denied it") {
					t.Fatalf("denied, yet the file is gone (%v) or the model saw %q", err, res)
				}
			})
		}
	})
}

// TestGeminiHookFindsDaemonInCI: with GITHUB_SHA set Gemini runs its hooks
// with a short allowlist of variables (no XDG_RUNTIME_DIR, no AGATE_*),
// so the hook cannot find the daemon's socket from its environment; the
// installed command must say where it is.
func TestGeminiHookFindsDaemonInCI(t *testing.T) {
	g := newGeminiWorld(t, nil, agenttest.Call("read_file", map[string]any{"file_path": "hello.txt"}), agenttest.Say("read it"))
	agenttest.WriteFile(t, filepath.Join(g.h.Work, "hello.txt"), []byte("hello from the project\n"))
	r := g.run(t, []string{"GITHUB_SHA=0123456789abcdef0123456789abcdef01234567"}, "-p", "read hello.txt")
	if r.Code != 0 {
		t.Fatalf("gemini: %s", r)
	}
	if res := resultsText(g.s); !strings.Contains(res, "hello from the project") {
		t.Fatalf("the read did not run; tool results: %q", res)
	}
	if ev := g.auditEvents(t, "read_file"); len(ev) != 1 || ev[0] != "decision allow policy" {
		t.Fatalf("audit: %q\n%s\ntool results: %q", ev, g.auditDump(t), resultsText(g.s))
	}
}

// agateHookPID finds the agate-hook process Gemini started for a call in
// dir (its working folder), or 0.
func agateHookPID(t *testing.T, bin, dir string) int {
	t.Helper()
	exe := filepath.Join(bin, "agate-hook")
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if e, err := os.Readlink(p + "/exe"); err != nil || e != exe {
			continue
		}
		if cwd, err := os.Readlink(p + "/cwd"); err != nil || cwd != dir {
			continue
		}
		var pid int
		for _, c := range filepath.Base(p) {
			pid = pid*10 + int(c-'0')
		}
		return pid
	}
	return 0
}

// TestGeminiHookKilledMidCall: Gemini lets a call run when its hook exits
// with anything but 0 or 2, or dies by a signal. The hook is stopped
// while it waits for a person; the call must still be blocked, and the
// model told.
func TestGeminiHookKilledMidCall(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			g := newGeminiWorld(t, nil, agenttest.Call("run_shell_command", map[string]any{"command": "rm -f scratch.txt"}), agenttest.Say("finished"))
			tooBigToKeep(t, filepath.Join(g.h.Work, "scratch.txt"))
			seen := g.attachApprover(t, policy.Deny, true) // a person who never answers
			killed := make(chan int, 1)
			go func() {
				deadline := time.Now().Add(60 * time.Second)
				for time.Now().Before(deadline) {
					if len(seen.list()) > 0 {
						if pid := agateHookPID(t, g.bin, g.h.Work); pid > 0 {
							syscall.Kill(pid, sig)
							killed <- pid
							return
						}
					}
					time.Sleep(20 * time.Millisecond)
				}
				killed <- 0
			}()
			r := g.run(t, nil, "-p", "clean up", "--yolo")
			if pid := <-killed; pid == 0 {
				t.Fatal("the hook was never seen waiting")
			}
			if r.Code != 0 {
				t.Fatalf("gemini: %s", r)
			}
			if _, err := os.Stat(filepath.Join(g.h.Work, "scratch.txt")); err != nil {
				t.Fatalf("the call ran after its hook was stopped by %v: %v", sig, err)
			}
			if res := resultsText(g.s); !strings.Contains(res, "agate: ") {
				t.Fatalf("the model was not told agate blocked it: %q", res)
			}
		})
	}
}

// tui starts gemini in a terminal with prompt, as a person would
// (`gemini -i PROMPT`: run it, then stay interactive).
func (g *geminiWorld) tui(t *testing.T, prompt string) *agenttest.TUI {
	t.Helper()
	return g.h.StartTUI(t, agenttest.Cmd{Bin: g.gemini, Args: []string{"-i", prompt}, Env: g.env()})
}

// waitResults waits for the agent to send the model n tool results.
func waitResults(s *agenttest.Server, n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if len(s.ToolResults()) >= n {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// TestGeminiOnePrompt: in Gemini's terminal UI a call agate allows runs
// without Gemini asking a second time (agate's policy leaves the call to
// the hook); a call agate asks about is shown in Gemini's own dialog, with
// agate's reason, and runs once the person allows it there.
func TestGeminiOnePrompt(t *testing.T) {
	t.Run("allowed by agate", func(t *testing.T) {
		g := newGeminiWorld(t, nil, agenttest.Call("run_shell_command", map[string]any{"command": "python3 --version"}), agenttest.Say("checked"))
		u := g.tui(t, "which python")
		ok := waitResults(g.s, 1, 45*time.Second)
		u.Dump("after the call")
		if !ok {
			t.Fatalf("the call did not run without a second prompt\n%s", g.s.Dump())
		}
		if ev := g.auditEvents(t, "run_shell_command"); len(ev) != 1 || ev[0] != "decision allow policy" {
			t.Fatalf("audit: %q\n%s\ntool results: %q", ev, g.auditDump(t), resultsText(g.s))
		}
	})
	t.Run("asked by agate", func(t *testing.T) {
		g := newGeminiWorld(t, nil, agenttest.Call("run_shell_command", map[string]any{"command": "rm -f scratch.txt"}), agenttest.Say("cleaned"))
		tooBigToKeep(t, filepath.Join(g.h.Work, "scratch.txt"))
		u := g.tui(t, "clean up")
		if !u.WaitFor("it deletes ", 45*time.Second) {
			u.Dump("no dialog")
			t.Fatalf("Gemini's dialog did not show agate's reason\n%s", g.s.Dump())
		}
		u.Dump("the dialog")
		// "Allow once", the dialog's first choice; a key typed while the
		// dialog is still being drawn can be lost, so type it again until
		// the dialog is gone.
		for try := 0; try < 4; try++ {
			u.Keys("Enter")
			if u.Until(func(s string) bool { return !strings.Contains(s, "Allow execution of") }, 5*time.Second) {
				break
			}
		}
		ok := waitResults(g.s, 1, 30*time.Second)
		u.Dump("after the answer")
		if !ok {
			t.Fatalf("the call did not run after the person allowed it\n%s", g.s.Dump())
		}
		if _, err := os.Stat(filepath.Join(g.h.Work, "scratch.txt")); err == nil {
			t.Fatal("allowed in Gemini's dialog, yet the file is still there")
		}
		if ev := g.auditEvents(t, "run_shell_command"); len(ev) != 1 || ev[0] != "decision ask agent" {
			t.Fatalf("audit: %q\n%s\ntool results: %q", ev, g.auditDump(t), resultsText(g.s))
		}
	})
}

// TestGeminiTrustedMCPAsk: Gemini CLI runs a tool of an MCP server with
// `trust: true` without its dialog, even when the hook answers ask. So
// agate never hands it the ask: with nobody attached the call is denied
// and the model told; with a person at a terminal, they are asked.
func TestGeminiTrustedMCPAsk(t *testing.T) {
	everything := agenttest.Install(t, agenttest.MCPEverything)
	settings := map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": everything, "args": []string{"stdio"}, "trust": true, "timeout": 30000},
	}}
	echo := agenttest.Call("mcp_everything_echo", map[string]any{"message": "hello-from-mcp"})
	for _, c := range []struct {
		name     string
		approver bool
	}{{"nobody attached", false}, {"a person at a terminal", true}} {
		t.Run(c.name, func(t *testing.T) {
			g := newGeminiWorld(t, settings, echo, agenttest.Say("echoed"))
			var seen *approvals
			if c.approver {
				seen = g.attachApprover(t, policy.Allow, false)
			}
			u := g.tui(t, "echo something")
			ok := waitResults(g.s, 1, 60*time.Second)
			u.Dump("after the call")
			if !ok {
				t.Fatalf("no tool result\n%s", g.s.Dump())
			}
			res := resultsText(g.s)
			if c.approver {
				if a := seen.list(); len(a) != 1 || a[0].Tool != "mcp__everything__echo" {
					t.Fatalf("the person was asked about %+v", a)
				}
				if !strings.Contains(res, "hello-from-mcp") {
					t.Fatalf("allowed, yet the tool did not run: %q", res)
				}
				return
			}
			if strings.Contains(res, "Echo: hello-from-mcp") || !strings.Contains(res, "agate: ") {
				t.Fatalf("the trusted tool ran unasked, or the model was not told: %q", res)
			}
		})
	}
}

// TestGeminiHooksOffByName: what `agate hooks status` warns of is real:
// with "agate" in hooksConfig.disabled (as Gemini's /hooks panel writes),
// Gemini CLI runs no agate hook at all, and agate decides nothing.
func TestGeminiHooksOffByName(t *testing.T) {
	g := newGeminiWorld(t, map[string]any{"hooksConfig": map[string]any{"disabled": []string{"agate"}}},
		agenttest.Call("run_shell_command", map[string]any{"command": "rm -f scratch.txt"}), agenttest.Say("done"))
	tooBigToKeep(t, filepath.Join(g.h.Work, "scratch.txt"))
	r := g.run(t, nil, "-p", "clean up", "--yolo")
	if r.Code != 0 {
		t.Fatalf("gemini: %s", r)
	}
	if ev := g.auditEvents(t, "run_shell_command"); len(ev) != 0 {
		t.Fatalf("agate's hook ran: %q", ev)
	}
	if _, err := os.Stat(filepath.Join(g.h.Work, "scratch.txt")); err == nil {
		t.Fatal("the command did not run: were the hooks off?")
	}
}

// TestGeminiOfferedToolsKnown: every tool Gemini CLI offers the model
// (with --yolo it offers them all) is one agate's catalog knows: when
// Gemini CLI ships a new tool, this fails.
func TestGeminiOfferedToolsKnown(t *testing.T) {
	g := newGeminiWorld(t, nil, agenttest.Say("hello"))
	if r := g.run(t, nil, "-p", "say hello", "--yolo"); r.Code != 0 {
		t.Fatalf("gemini: %s", r)
	}
	checkOfferedKnown(t, g.agentWorld, g.s.Offered())
}

// TestGeminiConfined: the real Gemini CLI, headless, with the default
// config: what agate lets through on its own judgment runs confined, the
// hook rewriting run_shell_command's input. A link made to a credential
// store reads nothing (permission denied), the project's code reaching
// for a listener on loopback does not reach it, go test passes confined,
// and nothing asks; AfterTool tells the model how each call ran, and a
// failure there is recorded.
func TestGeminiConfined(t *testing.T) {
	port, reached := loopbackListener(t)
	g := newGeminiWorld(t, nil, append(confinedCalls("run_shell_command", func(c string) map[string]any { return map[string]any{"command": c, "description": "run"} }),
		agenttest.Say("done"))...)
	prepareConfined(t, g.agentWorld, port)
	r := g.run(t, []string{"PATH=" + os.Getenv("PATH")}, "-p", "test it", "--yolo")
	if r.Code != 0 {
		t.Fatalf("gemini: %s", r)
	}
	var outs []string
	for _, tr := range g.s.ToolResults() {
		outs = append(outs, tr.Output)
	}
	if len(outs) != 3 {
		t.Fatalf("tool results %q", outs)
	}
	checkConfined(t, g.agentWorld, "run_shell_command", 3, outs, reached)
	if strings.Contains(outs[2], "Exit Code") {
		t.Errorf("go test confined failed: %q", outs[2])
	}
	for i, o := range outs {
		if !strings.Contains(o, "agate ran this command in agate's sandbox") {
			t.Errorf("call %d: the model was not told it ran confined: %q", i, o)
		}
	}
}

// TestGeminiDeleteKept: the real Gemini CLI, headless, deletes a file git
// cannot give back: it runs unasked because agate keeps a copy first, and
// `agate undo ID` puts it back byte for byte.
func TestGeminiDeleteKept(t *testing.T) {
	g := newGeminiWorld(t, nil, agenttest.Call("run_shell_command", map[string]any{"command": "rm -f notes.txt"}), agenttest.Say("cleaned"))
	body := []byte("the person's notes\n\x00\xff and bytes that are not text\n")
	agenttest.WriteFile(t, filepath.Join(g.h.Work, "notes.txt"), body)
	if r := g.run(t, nil, "-p", "clean up", "--yolo"); r.Code != 0 {
		t.Fatalf("gemini: %s", r)
	}
	g.checkKeptAndUndo(t, "run_shell_command", filepath.Join(g.h.Work, "notes.txt"), body)
}
