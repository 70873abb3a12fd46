package daemon

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/hooks/confine"
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
	// ran, the line the hook rewrote it to, and the failure is the
	// command's. A command of the model's own that only looks like one
	// settles nothing.
	resp := call("gemini", "go vet ./...", "")
	in, err := json.Marshal(map[string]string{"command": "go vet ./..."})
	if err != nil {
		t.Fatal(err)
	}
	rewritten, err := confine.Shell(in, confine.Sandbox{Bin: "/usr/bin/agate", Work: resp.Confine.Work, ReadOnly: resp.Confine.ReadOnly,
		Cache: resp.Confine.Cache, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var args map[string]any
	if err := json.Unmarshal(rewritten, &args); err != nil {
		t.Fatal(err)
	}
	out, err := client.Outcome(ctx, &api.OutcomeRequest{Agent: "gemini", Session: "s1", Tool: "run_shell_command", Args: args,
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
