package daemon

import (
	"context"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// TestReasks: Codex's PermissionRequest about a call a person allowed in
// agate a moment ago (its PreToolUse) is allowed without a second
// question; another call, another session, or a request that does not
// say it re-asks, is asked again; the policy's deny still wins.
func TestReasks(t *testing.T) {
	p := apptest.Paths(t, "")
	d, c := startDaemon(t, p)
	ctx := context.Background()
	fp := &apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}
	d.SetPrompter(fp, "tray")
	codex := func(cmd, session string, reasks bool) *api.DecideRequest {
		return &api.DecideRequest{Tool: "apply_patch", Args: map[string]any{"command": cmd}, Agent: "codex",
			Session: session, Cwd: "/home/dev/project", Interactive: true, AgentPrompt: reasks, Reasks: reasks}
	}
	inFolder := func(r *api.DecideRequest, cwd string) *api.DecideRequest { r.Cwd = cwd; return r }
	patch := "*** Begin Patch\n*** Add File: /opt/x.txt\n+x\n*** End Patch\n"
	first, err := c.Decide(ctx, codex(patch, "s1", false))
	if err != nil || first.Decision != policy.Allow || first.By != api.ByPerson || len(fp.Asked()) != 1 {
		t.Fatalf("first: %+v %v (asked %d)", first, err, len(fp.Asked()))
	}
	fp.Answer = api.Answer{Decision: policy.Deny}
	for _, tt := range []struct {
		name  string
		req   *api.DecideRequest
		want  policy.Verdict
		asked int
	}{
		// PermissionRequest's patch has lost its trailing newline.
		{"the same call re-asked", codex(patch[:len(patch)-1], "s1", true), policy.Allow, 1},
		{"the same call, not a re-ask", codex(patch, "s1", false), policy.Deny, 2},
		{"another session", codex(patch, "s2", true), policy.Deny, 3},
		{"another call", codex(patch+"x", "s1", true), policy.Deny, 4},
		// A relative path in it is another file there (Codex's cwd is
		// the workdir the model picked).
		{"the same call in another folder", inFolder(codex(patch, "s1", true), "/home/dev"), policy.Deny, 5},
	} {
		resp, err := c.Decide(ctx, tt.req)
		if err != nil || resp.Decision != tt.want || len(fp.Asked()) != tt.asked {
			t.Errorf("%s: %+v %v (asked %d, want %d)", tt.name, resp, err, len(fp.Asked()), tt.asked)
		}
	}
	// A guardrail is never re-allowed.
	resp, err := c.Decide(ctx, &api.DecideRequest{Tool: "Bash", Args: map[string]any{"command": "rm -rf /"}, Agent: "codex",
		Session: "s1", Cwd: "/home/dev/project", Interactive: true, AgentPrompt: true, Reasks: true})
	if err != nil || resp.Decision != policy.Deny {
		t.Errorf("guardrail: %+v %v", resp, err)
	}
}
