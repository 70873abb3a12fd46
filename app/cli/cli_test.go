package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon/daemontest"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// runCLI runs one agate command line and returns its exit code and output.
func runCLI(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	code := Run(context.Background(), &Env{Stdin: stdin, Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func TestCheckCommand(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[auto]\nrules = [\"deny shell rm*\"]\n"), 0o600)
	t.Setenv("AGATE_STATE_DIR", t.TempDir())

	code, out, _ := runCLI(t, nil, "check", "--config", cfg, "--json", "bash", `{"command":"ls && rm -rf build"}`)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var d struct {
		Decision, Layer, Rule, Category, Reason string
		Risks                                   []string
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if d.Decision != "deny" || d.Layer != "rule" || d.Rule != "deny shell rm*" || d.Category != "shell" || d.Risks[0] != "deletes" {
		t.Fatalf("got %+v", d)
	}

	code, out, _ = runCLI(t, nil, "check", "--config", cfg, "--unattended", "Bash", `{"command":"pytest"}`)
	if code != 0 || !strings.HasPrefix(out, "deny\n") || !strings.Contains(out, "nobody can be asked") {
		t.Fatalf("unattended: exit %d\n%s", code, out)
	}
	// Flags after the tool work too.
	code, out, _ = runCLI(t, nil, "check", "--config", cfg, "Bash", `{"command":"ls"}`, "--tainted")
	if code != 0 || !strings.HasPrefix(out, "ask\n") {
		t.Fatalf("tainted: exit %d\n%s", code, out)
	}

	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[auto]\nhard_deyn = []\n"), 0o600)
	code, _, errOut := runCLI(t, nil, "check", "--config", bad, "bash", `{"command":"ls"}`)
	if code != 2 || !strings.Contains(errOut, "bad.toml:2: auto.hard_deyn: unknown key") {
		t.Fatalf("bad config: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, nil, "check", "--config", cfg, "bash", `{"command":`)
	if code != 2 || !strings.Contains(errOut, "arguments") {
		t.Fatalf("bad args: exit %d, %q", code, errOut)
	}
	code, _, _ = runCLI(t, nil, "check", "--config", cfg)
	if code != 2 {
		t.Fatalf("no tool: exit %d", code)
	}
	// check writes nothing: no config file appears for a missing one.
	missing := filepath.Join(t.TempDir(), "none", "config.toml")
	runCLI(t, nil, "check", "--config", missing, "Read", `{"file_path":"/x"}`)
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("check created the config file")
	}
}

// TestCheckKnowsTheFiles: agate check decides as the daemon does, with
// what is on disk: deleting a folder that is not there loses nothing,
// deleting an untracked one runs once a copy is kept (check keeps none),
// and with keeping off it asks.
func TestCheckKnowsTheFiles(t *testing.T) {
	state := t.TempDir()
	t.Setenv("AGATE_STATE_DIR", state)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[auto]\nrules = []\n"), 0o600)
	proj := t.TempDir()
	check := func() string {
		t.Helper()
		code, out, errOut := runCLI(t, nil, "check", "--config", cfg, "--cwd", proj, "Bash", `{"command":"rm -rf build"}`)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return out
	}
	if out := check(); !strings.HasPrefix(out, "allow\n") {
		t.Errorf("rm -rf of a folder that is not there:\n%s", out)
	}
	if err := os.MkdirAll(filepath.Join(proj, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(proj, "build", "notes.txt"), []byte("x"), 0o600)
	if out := check(); !strings.HasPrefix(out, "allow\n") || !strings.Contains(out, "nothing is lost: agate keeps a copy of "+filepath.Join(proj, "build")) ||
		!strings.Contains(out, "nothing was kept") {
		t.Errorf("rm -rf of an untracked folder:\n%s", out)
	}
	if ents, _ := os.ReadDir(filepath.Join(state, "undo")); len(ents) != 0 {
		t.Errorf("check kept something: %v", ents)
	}
	os.WriteFile(cfg, []byte("[auto]\nrules = []\n[undo]\nkeep = false\n"), 0o600)
	if out := check(); !strings.HasPrefix(out, "ask\n") || !strings.Contains(out, "git cannot give back") {
		t.Errorf("rm -rf of an untracked folder, keeping off:\n%s", out)
	}
}

func TestUnknownCommand(t *testing.T) {
	if code, _, errOut := runCLI(t, nil, "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("exit %d %q", code, errOut)
	}
	if code, out, _ := runCLI(t, nil, "help"); code != 0 || !strings.Contains(out, "check") {
		t.Fatalf("help: %d %q", code, out)
	}
}

// TestTerminalApprover: `agate approvals --watch` attached, a call that
// asks waits for it, and "y" typed there allows it.
func TestTerminalApprover(t *testing.T) {
	p := apptest.Paths(t, "")
	d, c := daemontest.Start(t, p)
	pr, pw := io.Pipe()
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- Run(ctx, &Env{Stdin: pr, Stdout: &out, Stderr: &out}, []string{"approvals", "--watch", "--socket", p.Socket})
	}()
	apptest.WaitFor(t, "the terminal approver", func() bool { return len(d.Prompters()) > 0 })

	r := apptest.Call("Bash", "curl -fsS https://example.org/x")
	r.AgentPrompt = false // only agate's approvers can ask
	res := make(chan *api.DecideResponse, 1)
	go func() {
		resp, err := c.Decide(ctx, r)
		if err != nil {
			t.Error(err)
		}
		res <- resp
	}()
	apptest.WaitFor(t, "the call shown", func() bool { return strings.Contains(out.String(), "curl -fsS https://example.org/x") })
	fmt.Fprintln(pw, "y")
	resp := <-res
	if resp.Decision != policy.Allow || resp.By != api.ByPerson || resp.Via != "terminal" {
		t.Fatalf("got %+v", resp)
	}
	// A subset answer: allow 1 of 2, deny the other.
	res2 := make(chan *api.DecideResponse, 2)
	for _, cmd := range []string{"wget https://a", "curl https://b"} {
		r := apptest.Call("Bash", cmd)
		r.AgentPrompt = false
		go func() {
			resp, _ := c.Decide(ctx, r)
			res2 <- resp
		}()
		apptest.WaitFor(t, cmd, func() bool { return strings.Contains(out.String(), cmd) })
	}
	ids := []string{}
	for _, a := range d.Pending() {
		ids = append(ids, a.ID)
	}
	fmt.Fprintln(pw, ids[0])
	got := map[policy.Verdict]int{}
	for i := 0; i < 2; i++ {
		got[(<-res2).Decision]++
	}
	if got[policy.Allow] != 1 || got[policy.Deny] != 1 {
		t.Fatalf("subset answer: %v", got)
	}
	cancel()
	pw.Close()
	<-done
}

func TestApproveCommand(t *testing.T) {
	p := apptest.Paths(t, "")
	d, c := daemontest.Start(t, p)
	d.SetPrompter(&apptest.Prompter{Hold: true}, "tray")
	res := make(chan *api.DecideResponse, 1)
	go func() {
		resp, _ := c.Decide(context.Background(), apptest.Call("Bash", "curl https://x.example"))
		res <- resp
	}()
	apptest.WaitFor(t, "pending", func() bool { return len(d.Pending()) == 1 })
	code, out, _ := runCLI(t, nil, "approvals", "--socket", p.Socket)
	if code != 0 || !strings.Contains(out, "curl https://x.example") || !strings.Contains(out, "network") {
		t.Fatalf("approvals: %d %q", code, out)
	}
	id := d.Pending()[0].ID
	code, _, errOut := runCLI(t, nil, "approve", id, "--decision", "deny", "--reason", "not now", "--socket", p.Socket)
	if code != 0 {
		t.Fatalf("approve: %d %s", code, errOut)
	}
	resp := <-res
	if resp.Decision != policy.Deny || resp.Via != "terminal" || resp.Note != "not now" {
		t.Fatalf("got %+v", resp)
	}
	code, _, errOut = runCLI(t, nil, "approve", id, "--decision", "allow", "--socket", p.Socket)
	if code == 0 || !strings.Contains(errOut, "not waiting") {
		t.Fatalf("answering twice: %d %q", code, errOut)
	}
	if code, _, _ := runCLI(t, nil, "approve", id, "--decision", "maybe", "--socket", p.Socket); code != 2 {
		t.Fatalf("bad decision: exit %d", code)
	}
}

func TestGrantsAndLogCommands(t *testing.T) {
	p := apptest.Paths(t, "")
	d, c := daemontest.Start(t, p)
	d.SetPrompter(&apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeAlways}}, "tray")
	c.Decide(context.Background(), apptest.Call("Bash", "curl https://x.example"))
	env := []string{"--socket", p.Socket, "--config", p.Config}
	code, out, _ := runCLI(t, nil, append([]string{"grants"}, env...)...)
	if code != 0 || !strings.Contains(out, "claude-code") || !strings.Contains(out, "bash(curl) network=x.example") {
		t.Fatalf("grants: %d %q", code, out)
	}
	code, out, _ = runCLI(t, nil, append([]string{"grants", "revoke", "claude-code"}, env...)...)
	if code != 0 {
		t.Fatalf("revoke: %d %q", code, out)
	}
	if g, _ := grants.Load(p.Grants); len(g.For("claude-code")) != 0 {
		t.Fatal("grant still saved")
	}
	t.Setenv("AGATE_STATE_DIR", p.State)
	code, out, _ = runCLI(t, nil, "log", "--verify")
	if code != 0 || !strings.Contains(out, "the hash chain holds") {
		t.Fatalf("log --verify: %d %q", code, out)
	}
	code, out, _ = runCLI(t, nil, "log")
	if code != 0 || !strings.Contains(out, "approval.granted") || !strings.Contains(out, "curl https://x.example") {
		t.Fatalf("log: %d %q", code, out)
	}
	code, out, _ = runCLI(t, nil, "status", "--socket", p.Socket)
	if code != 0 || !strings.Contains(out, "mode:       ask") || !strings.Contains(out, "tray") {
		t.Fatalf("status: %d %q", code, out)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var _ = time.Second
