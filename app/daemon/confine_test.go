package daemon

import (
	"context"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// TestSandboxIsTheDaemonsToSay: whether an allowed call runs confined is
// in the daemon's answer alone (the hook renders it): with [tools]
// sandbox and [hooks] sandbox_bash on, every allow of a Claude Code Bash
// call says so, the policy's and a person's; nothing else does, and
// nothing does with the sandbox off.
func TestSandboxIsTheDaemonsToSay(t *testing.T) {
	ctx := context.Background()
	on := "[tools]\nsandbox = true\n[hooks]\nsandbox_bash = true\n"
	unaskedOff := "[sandbox]\nconfine_unasked = false\n" // (else what runs unasked runs confined whatever these say)
	call := func(agent, tool, command string) *api.DecideRequest {
		r := apptest.Call(tool, command)
		r.Agent = agent
		return r
	}
	for _, c := range []struct {
		name, config string
		req          *api.DecideRequest
		person       bool // a person at agate's prompt allows
		want         policy.Verdict
		sandbox      bool
	}{
		{"a policy allow", on, call("claude-code", "Bash", "ls -la"), false, policy.Allow, true},
		{"a person's allow", on, call("claude-code", "Bash", "curl -fsS https://example.org/x"), true, policy.Allow, true},
		{"a deny", on, call("claude-code", "Bash", "rm -rf /"), false, policy.Deny, false},
		{"an ask left to the agent", on, call("claude-code", "Bash", "curl -fsS https://example.org/x"), false, policy.Ask, false},
		{"gemini", on, call("gemini", "run_shell_command", "ls -la"), false, policy.Allow, true},
		{"an agent agate cannot rewrite", on, call("cursor", "bash", "ls -la"), false, policy.Allow, false},
		{"another tool", on, &api.DecideRequest{Tool: "Read", Args: map[string]any{"file_path": "/home/dev/project/a.go"},
			Agent: "claude-code", Session: "s1", Cwd: "/home/dev/project", Interactive: true, AgentPrompt: true}, false, policy.Allow, false},
		{"the sandbox off", "[hooks]\nsandbox_bash = true\n" + unaskedOff, call("claude-code", "Bash", "ls -la"), false, policy.Allow, false},
		{"sandbox_bash off", "[tools]\nsandbox = true\n" + unaskedOff, call("claude-code", "Bash", "ls -la"), false, policy.Allow, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, client := startDaemon(t, apptest.Paths(t, c.config))
			if c.person {
				d.SetPrompter(&apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}, "tray")
			}
			resp, err := client.Decide(ctx, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Decision != c.want || resp.Sandbox != c.sandbox {
				t.Errorf("%s, sandbox %v (%s); want %s, sandbox %v", resp.Decision, resp.Sandbox, resp.Reason, c.want, c.sandbox)
			}
		})
	}
}

// TestConfinedCommand: the command inside a line the hook rewrote a call
// to comes back whole; a line of another form is not one.
func TestConfinedCommand(t *testing.T) {
	for line, want := range map[string]string{
		`/usr/bin/agate sandbox --strict --work /w -- bash -c 'npm test'`:                    "npm test",
		`'/opt/a b/agate' sandbox --strict --work '/w x' --net -- bash -c 'echo '\''hi'\'''`: "echo 'hi'",
		`/usr/bin/agate sandbox --work /w -- bash -c $'a\nb'`:                                "a\nb",
	} {
		if got, ok := confinedCommand(line); !ok || got != want {
			t.Errorf("%s: %q, %v; want %q", line, got, ok, want)
		}
	}
	for _, line := range []string{"npm test", "agate sandbox --work /w -- bash -c x", "/usr/bin/agate sandbox -- bash -c x; rm -rf ~",
		"/usr/bin/agate sandbox --work /w -- bash -c x > out", "X=1 /usr/bin/agate sandbox --work /w -- bash -c x",
		"/usr/bin/agate run --work /w -- bash -c x", `/usr/bin/agate sandbox --work /w -- bash -c "$(id)"`,
		"/usr/bin/agate sandbox --work /w -- sh -c x", "(", ""} {
		if got, ok := confinedCommand(line); ok {
			t.Errorf("%q: %q, want not a rewritten line", line, got)
		}
	}
}
