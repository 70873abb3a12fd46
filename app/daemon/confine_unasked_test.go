package daemon

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// needKernelSandbox skips where bwrap and Landlock cannot confine: the
// daemon then judges as without confinement, which other tests pin.
func needKernelSandbox(t *testing.T, d *Daemon) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if diag := d.kernelSandbox(ctx); !diag.Available {
		t.Skipf("no kernel sandbox here (%s): %s", diag.Launcher, diag.Reason)
	}
}

// TestConfineUnasked: by default, a Claude Code Bash call agate allows on
// its own judgment runs confined to it, read-only or with the project
// writable; what needs the network, a rule's allow, another agent and
// confine_unasked = false run as judged; a confined call that failed
// asks the next time, one that ran does not.
func TestConfineUnasked(t *testing.T) {
	ctx := context.Background()
	p := apptest.Paths(t, "[auto]\nrules = [\"allow bash make deploy\"]\ntrusted_domains = [\"example.org\"]\n")
	d, client := startDaemon(t, p)
	needKernelSandbox(t, d)
	call := func(agent, command, id string) *api.DecideResponse {
		t.Helper()
		tool := "Bash"
		if agent == "gemini" {
			tool = "run_shell_command"
		}
		r := apptest.Call(tool, command)
		r.Agent, r.Workspace, r.ToolUseID = agent, "/home/dev/project", id
		resp, err := client.Decide(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, c := range []struct {
		agent, command string
		confined       bool
		readOnly       bool
	}{
		{"claude-code", "ls -la && git status", true, true},
		{"claude-code", "go test ./...", true, false},
		{"claude-code", "make deploy", false, false},                     // a person's rule: as judged
		{"claude-code", "curl -fsS https://example.org/x", false, false}, // the network: as judged
		{"gemini", "ls -la", true, true},
		{"gemini", "npm test", true, false},
		{"cursor", "ls -la", false, false}, // its calls cannot be rewritten
	} {
		resp := call(c.agent, c.command, "")
		if resp.Decision != policy.Allow {
			t.Errorf("%s %s: %s (%s)", c.agent, c.command, resp.Decision, resp.Reason)
			continue
		}
		if resp.Sandbox != c.confined || (resp.Confine != nil) != c.confined {
			t.Errorf("%s %s: sandbox %v, confine %+v; want confined %v", c.agent, c.command, resp.Sandbox, resp.Confine, c.confined)
			continue
		}
		if c.confined && (resp.Confine.ReadOnly != c.readOnly || resp.Confine.Work != "/home/dev/project" || len(resp.Confine.Writable) != 0) {
			t.Errorf("%s: profile %+v, want read-only %v in the project", c.command, resp.Confine, c.readOnly)
		}
	}

	// It failed confined: the same command asks (nobody at agate's prompt:
	// the agent's own prompt), saying so; another command does not.
	call("claude-code", "go vet ./...", "toolu_1")
	if _, err := client.Outcome(ctx, &api.OutcomeRequest{Agent: "claude-code", Session: "s1", ToolUseID: "toolu_1", Tool: "Bash",
		Outcome: api.OutcomeFailed, Event: "PostToolUseFailure"}); err != nil {
		t.Fatal(err)
	}
	if resp := call("claude-code", "go vet ./...", "toolu_2"); resp.Decision != policy.Ask || resp.Sandbox {
		t.Errorf("after a confined failure: %s, sandbox %v (%s)", resp.Decision, resp.Sandbox, resp.Reason)
	}
	// It ran confined: asked about nothing when run again.
	call("claude-code", "go build ./...", "toolu_3")
	client.Outcome(ctx, &api.OutcomeRequest{Agent: "claude-code", Session: "s1", ToolUseID: "toolu_3", Tool: "Bash", Outcome: api.OutcomeRan, Event: "PostToolUse"})
	if resp := call("claude-code", "go build ./...", "toolu_4"); resp.Decision != policy.Allow || !resp.Sandbox {
		t.Errorf("after a confined run: %s, sandbox %v", resp.Decision, resp.Sandbox)
	}
	// Gemini CLI gives calls no id: its AfterTool reports the command it
	// ran, the line the hook rewrote it to, and the failure is the command
	// inside. A command of the model's own settles nothing.
	call("gemini", "go vet ./...", "")
	out, err := client.Outcome(ctx, &api.OutcomeRequest{Agent: "gemini", Session: "s1", Tool: "run_shell_command",
		Args:    map[string]any{"command": "/usr/bin/agate sandbox --strict --work /home/dev/project -- bash -c 'go vet ./...'"},
		Outcome: api.OutcomeFailed, Event: "AfterTool"})
	if err != nil || out.Confined == "" || !strings.Contains(out.Note, "asks the person") {
		t.Fatalf("gemini's confined failure: %+v, %v", out, err)
	}
	if resp := call("gemini", "go vet ./...", ""); resp.Decision != policy.Ask || resp.Sandbox {
		t.Errorf("gemini, after a confined failure: %s, sandbox %v (%s)", resp.Decision, resp.Sandbox, resp.Reason)
	}
	call("gemini", "go build ./...", "")
	out, err = client.Outcome(ctx, &api.OutcomeRequest{Agent: "gemini", Session: "s1", Tool: "run_shell_command",
		Args: map[string]any{"command": "go build ./..."}, Outcome: api.OutcomeFailed, Event: "AfterTool"})
	if err != nil || out.Confined != "" || out.Note != "" {
		t.Errorf("an unrewritten command settled a confined call: %+v, %v", out, err)
	}
	if resp := call("gemini", "go build ./...", ""); resp.Decision != policy.Allow || !resp.Sandbox {
		t.Errorf("gemini, a command that did not fail confined: %s, sandbox %v", resp.Decision, resp.Sandbox)
	}

	// The audit line says how it ran.
	if st, err := client.Status(ctx); err != nil || st.AuditLog == "" {
		t.Fatal(err)
	}
}

// TestConfineUnaskedOff: confine_unasked = false judges as before.
func TestConfineUnaskedOff(t *testing.T) {
	p := apptest.Paths(t, "[sandbox]\nconfine_unasked = false\n")
	_, client := startDaemon(t, p)
	resp, err := client.Decide(context.Background(), apptest.Call("Bash", "ls -la"))
	if err != nil || resp.Decision != policy.Allow || resp.Sandbox || resp.Confine != nil {
		t.Fatalf("%+v %v", resp, err)
	}
}

// TestApprovedRunsAsShown: a shell call that asks is offered to run
// confined to what it was judged to need (the network, the paths it
// writes) or not, confined first; the person's allow runs it as they
// chose; a call the sandbox cannot hold (a secret read) offers nothing
// and runs as it is; a choice not offered is a deny.
func TestApprovedRunsAsShown(t *testing.T) {
	ctx := context.Background()
	d, client := startDaemon(t, apptest.Paths(t, ""))
	needKernelSandbox(t, d)
	pr := &apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}
	d.SetPrompter(pr, "tray")
	call := func(command string) *api.DecideResponse {
		t.Helper()
		r := apptest.Call("Bash", command)
		r.Agent, r.Workspace = "claude-code", "/home/dev/project"
		resp, err := client.Decide(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	curl := "curl -fsS https://example.org/x -o page.html"
	resp := call(curl)
	asked := pr.Asked()
	if len(asked) != 1 || len(asked[0].Runs) != 2 || asked[0].Runs[0].ID != api.RunConfined || asked[0].Runs[1].ID != api.RunUnconfined {
		t.Fatalf("offered %+v", asked)
	}
	if resp.Decision != policy.Allow || !resp.Sandbox || resp.Confine == nil || !resp.Confine.Net || resp.Confine.ReadOnly {
		t.Fatalf("allowed as shown, confined with the network and the project writable: %+v", resp)
	}
	if !strings.Contains(asked[0].Runs[0].Text, "with the network") {
		t.Errorf("the popup said %q", asked[0].Runs[0].Text)
	}

	pr.SetAnswer(api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce, Runs: api.RunUnconfined})
	if resp := call(curl); resp.Decision != policy.Allow || resp.Sandbox || resp.Confine != nil {
		t.Errorf("chosen unconfined: %+v", resp)
	}

	pr.SetAnswer(api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce})
	if resp := call("cat ~/.aws/credentials"); resp.Decision != policy.Allow || resp.Sandbox {
		t.Errorf("a secret read: %+v", resp)
	}
	if last := pr.Asked(); len(last[len(last)-1].Runs) != 0 {
		t.Errorf("a secret read offered %+v", last[len(last)-1].Runs)
	}

	pr.SetAnswer(api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce, Runs: "in-a-vm"})
	if resp := call(curl); resp.Decision != policy.Deny {
		t.Errorf("a choice not offered: %+v", resp)
	}
}

// TestConfinedGrantRunsConfined: a person who lets a call run confined
// for the session sees it run confined again, unasked, and
// never unconfined; one who lets it run unconfined for the session sees
// it run unconfined; an "always" to run confined is saved so, and a
// daemon started afresh runs it confined.
func TestConfinedGrantRunsConfined(t *testing.T) {
	ctx := context.Background()
	p := apptest.Paths(t, "")
	d, client := startDaemon(t, p)
	needKernelSandbox(t, d)
	pr := &apptest.Prompter{}
	d.SetPrompter(pr, "tray")
	call := func(session, command string) *api.DecideResponse {
		t.Helper()
		r := apptest.Call("Bash", command)
		r.Agent, r.Session, r.Workspace = "claude-code", session, "/home/dev/project"
		resp, err := client.Decide(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	curl := "curl -fsS https://example.org/x -o page.html"
	for _, scope := range []api.Scope{api.ScopeSession, api.ScopeAlways} { // (this_run is offered in a tainted run only)
		session := "s-" + string(scope)
		pr.SetAnswer(api.Answer{Decision: policy.Allow, Scope: scope, Runs: api.RunConfined})
		n := len(pr.Asked())
		if resp := call(session, curl); resp.Decision != policy.Allow || resp.Confine == nil || !resp.Confine.Net {
			t.Fatalf("%s: the answer: %+v", scope, resp)
		}
		again := call(session, curl)
		if len(pr.Asked()) != n+1 {
			t.Errorf("%s: asked again: %+v", scope, again)
		}
		if again.Decision != policy.Allow || !again.Sandbox || again.Confine == nil || !again.Confine.Net {
			t.Errorf("%s: the same call again: %+v, want it confined as allowed", scope, again)
		}
		if other := call("another", curl); other.Decision == policy.Allow && (!other.Sandbox || other.Confine == nil) {
			t.Errorf("%s: another session ran it unconfined: %+v", scope, other)
		}
	}
	// The "always" is saved marked confined: a daemon started afresh runs
	// it confined too, unasked, and lists it so.
	if b, err := os.ReadFile(p.Grants); err != nil || !strings.Contains(string(b), "confined = true") {
		t.Errorf("the always answer to run confined, saved:\n%s (%v)", b, err)
	}
	p2 := apptest.Paths(t, "")
	if b, err := os.ReadFile(p.Grants); err != nil {
		t.Fatal(err)
	} else if err := os.MkdirAll(filepath.Dir(p2.Grants), 0o700); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(p2.Grants, b, 0o600); err != nil {
		t.Fatal(err)
	}
	d2, client2 := startDaemon(t, p2)
	needKernelSandbox(t, d2) // (until its first probe is done, a daemon judges as without confinement)
	d2.SetPrompter(&apptest.Prompter{Answer: api.Answer{Decision: policy.Deny}}, "tray")
	r := apptest.Call("Bash", curl)
	r.Agent, r.Session, r.Workspace = "claude-code", "after-restart", "/home/dev/project"
	if resp, err := client2.Decide(ctx, r); err != nil || resp.Decision != policy.Allow || !resp.Sandbox || resp.Confine == nil {
		t.Errorf("after a restart: %+v %v, want it confined, unasked", resp, err)
	}
	if saved := d2.SavedGrants()["claude-code"]; len(saved) != 1 || !strings.HasSuffix(saved[0], api.ConfinedGrantSuffix) {
		t.Errorf("saved grants listed %q", saved)
	}
	// (Another host: the saved grant above covers example.org.)
	other := "curl -fsS https://example.net/y -o page.html"
	pr.SetAnswer(api.Answer{Decision: policy.Allow, Scope: api.ScopeSession, Runs: api.RunUnconfined})
	call("u", other)
	if again := call("u", other); again.Decision != policy.Allow || again.Sandbox || again.Confine != nil {
		t.Errorf("allowed unconfined for the session, again: %+v", again)
	}
}

// TestConfinedHooksPathReadOnly: where the repository takes its hooks
// from a folder in the project (core.hooksPath), a confined run of the
// project's code keeps that folder read-only (a hook written there would
// run at the next commit, unconfined); where that folder is not there
// yet, the whole project is read-only.
func TestConfinedHooksPathReadOnly(t *testing.T) {
	ctx := context.Background()
	p := apptest.Paths(t, "")
	d, client := startDaemon(t, p)
	needKernelSandbox(t, d)
	proj := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"config", "core.hooksPath", ".githooks"}} {
		if out, err := exec.Command("git", append([]string{"-C", proj}, args...)...).CombinedOutput(); err != nil {
			t.Skipf("git: %v %s", err, out)
		}
	}
	call := func() *api.Confinement {
		t.Helper()
		r := apptest.Call("Bash", "go test ./...")
		r.Cwd, r.Workspace = proj, proj
		resp, err := client.Decide(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Decision != policy.Allow || resp.Confine == nil {
			t.Fatalf("go test: %+v", resp)
		}
		return resp.Confine
	}
	if c := call(); !c.ReadOnly || !strings.Contains(c.Why, ".githooks") {
		t.Errorf("with the hooks folder not there yet: %+v", c)
	}
	os.Mkdir(filepath.Join(proj, ".githooks"), 0o755)
	time.Sleep(10 * time.Millisecond)
	now := time.Now()
	os.Chtimes(filepath.Join(proj, ".git", "config"), now, now) // (a new stamp)
	if c := call(); c.ReadOnly || !slices.Contains(c.Protected, filepath.Join(proj, ".githooks")) {
		t.Errorf("with the hooks folder there: %+v", c)
	}
}
