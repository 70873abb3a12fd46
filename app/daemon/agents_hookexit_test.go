package daemon

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// hookRun is how one run of the agate-hook binary ended.
type hookRun struct {
	code           int
	signaled       bool
	stdout, stderr string
}

// TestAgateHookExitsZeroOrTwo: whatever it is fed and whatever happens
// to it mid-call, the real agate-hook binary ends with exit 0 (an answer
// on stdout) or exit 2 (a reason on stderr), never otherwise and never by
// a signal: Gemini CLI runs a call on any other ending.
func TestAgateHookExitsZeroOrTwo(t *testing.T) {
	w := newAgentWorld(t, "")
	hookBin := filepath.Join(w.bin, "agate-hook")
	env := w.h.Env()
	call := apptest.WithCommand(t, "gemini/beforetool-shell.json", "curl -fsS https://example.org/notes.txt")

	start := func(stdin io.Reader, stdout io.Writer) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(hookBin, "hook", "gemini", "--agent-timeout", "60s")
		cmd.Env, cmd.Stdin, cmd.Stdout = env, stdin, stdout
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &errb
	}
	wait := func(cmd *exec.Cmd, out, errb *bytes.Buffer) hookRun {
		err := cmd.Wait()
		r := hookRun{stdout: out.String(), stderr: errb.String()}
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			r.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				r.signaled = true
			}
		default:
			t.Fatal(err)
		}
		return r
	}
	check := func(t *testing.T, r hookRun) {
		t.Helper()
		switch {
		case r.signaled:
			t.Fatalf("the hook died by a signal: %+v", r)
		case r.code == 2 && strings.TrimSpace(r.stderr) == "":
			t.Fatalf("exit 2 with nothing on stderr (Gemini runs the call): %+v", r)
		case r.code == 2:
		case r.code == 0 && strings.HasPrefix(r.stdout, "{"):
		default:
			t.Fatalf("exit %d: %+v", r.code, r)
		}
	}

	t.Run("input", func(t *testing.T) {
		huge := `{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"content":"` + strings.Repeat("x", 17<<20) + `"}}`
		for name, in := range map[string]string{
			"empty":     "",
			"garbage":   "\x00\xff not json at all",
			"truncated": call[:len(call)/2],
			"an array":  "[1,2,3]",
			"no tool":   `{"hook_event_name":"BeforeTool","session_id":"s"}`,
			"huge":      huge,
		} {
			t.Run(name, func(t *testing.T) {
				var out bytes.Buffer
				cmd, errb := start(strings.NewReader(in), &out)
				r := wait(cmd, &out, errb)
				check(t, r)
				if r.code != 2 {
					t.Fatalf("bad input answered: %+v", r)
				}
			})
		}
	})

	// The rest wait for a person who does not answer.
	seen := w.attachApprover(t, policy.Deny, true)
	waitAsked := func(t *testing.T, n int) api.Approval {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for len(seen.list()) < n {
			if time.Now().After(deadline) {
				t.Fatal("the call never reached the approver")
			}
			time.Sleep(10 * time.Millisecond)
		}
		return seen.list()[n-1]
	}
	asked := 0
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGALRM} {
		t.Run(sig.String(), func(t *testing.T) {
			var out bytes.Buffer
			cmd, errb := start(strings.NewReader(call), &out)
			asked++
			waitAsked(t, asked)
			cmd.Process.Signal(sig)
			r := wait(cmd, &out, errb)
			check(t, r)
			if r.code != 2 || !strings.Contains(r.stderr, "the call was blocked") {
				t.Fatalf("stopped by %v: %+v", sig, r)
			}
		})
	}
	t.Run("closed stdout", func(t *testing.T) {
		pr, pw, err := os.Pipe() // the agent's end of the hook's stdout
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(hookBin, "hook", "gemini", "--agent-timeout", "60s")
		var errb bytes.Buffer
		cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, strings.NewReader(call), pw, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pw.Close()
		pr.Close() // nobody reads the answer
		asked++
		a := waitAsked(t, asked)
		if _, err := w.c.Answer(t.Context(), &api.AnswerRequest{IDs: []string{a.ID}, Answer: api.Answer{Decision: policy.Allow, Via: "terminal"}}); err != nil {
			t.Fatal(err)
		}
		r := wait(cmd, &bytes.Buffer{}, &errb)
		check(t, r)
		if r.code != 2 || !strings.Contains(r.stderr, "write the answer") {
			t.Fatalf("a closed stdout: %+v", r)
		}
	})
}
