package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// startDaemon runs a daemon on p until the test ends, as
// daemontest.Start does for the daemon's clients.
func startDaemon(t testing.TB, p api.Paths) (*Daemon, *api.Client) {
	t.Helper()
	d, serve, err := Start(p, Options{Logger: log.New(io.Discard, "", 0)})
	apptest.Serve(t, serve, err)
	return d, &api.Client{Socket: p.Socket}
}

func TestDecideWithoutPrompter(t *testing.T) {
	// As judged, without confinement (TestConfineUnasked has that).
	p := apptest.Paths(t, "[sandbox]\nconfine_unasked = false\n")
	_, c := startDaemon(t, p)
	ctx := context.Background()

	tests := []struct {
		name  string
		req   *api.DecideRequest
		want  policy.Verdict
		by    api.Answerer
		layer policy.Layer
	}{
		{"free pass", apptest.Call("Bash", "ls -la"), policy.Allow, api.ByPolicy, policy.LayerRisk},
		{"guardrail", apptest.Call("Bash", "rm -rf /"), policy.Deny, api.ByPolicy, policy.LayerGuardrail},
		{"ask goes to the agent's prompt", apptest.Call("Bash", "curl -fsS https://example.org/x"), policy.Ask, api.ByAgent, policy.LayerRisk},
		{"headless: unattended", func() *api.DecideRequest {
			r := apptest.Call("Bash", "make test")
			r.Headless = true
			return r
		}(), policy.Deny, api.ByUnattended, policy.LayerRisk},
		{"no prompt of its own: unattended", func() *api.DecideRequest {
			r := apptest.Call("Bash", "curl -fsS https://example.org/x")
			r.AgentPrompt = false
			return r
		}(), policy.Deny, api.ByUnattended, policy.LayerRisk},
		{"nobody there: unattended", func() *api.DecideRequest {
			r := apptest.Call("Bash", "make test")
			r.Interactive = false
			return r
		}(), policy.Deny, api.ByUnattended, policy.LayerRisk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Decide(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Decision != tt.want || resp.By != tt.by || resp.Layer != tt.layer {
				t.Fatalf("got %s by %s at %s (%s), want %s by %s at %s", resp.Decision, resp.By, resp.Layer, resp.Reason, tt.want, tt.by, tt.layer)
			}
		})
	}
	// Every decision is in the log, and the chain holds.
	res, err := audit.Verify(p.AuditLog())
	if err != nil || res.Problem != "" || res.Lines != len(tests) {
		t.Fatalf("verify: %+v %v", res, err)
	}
}

func TestDecideBadRequests(t *testing.T) {
	p := apptest.Paths(t, "")
	_, c := startDaemon(t, p)
	for _, r := range []*api.DecideRequest{
		{Tool: "", Cwd: "/x"},
		{Tool: "Bash", Cwd: "relative"},
	} {
		_, err := c.Decide(context.Background(), r)
		var ae *api.APIError
		if !errors.As(err, &ae) || ae.Status != 400 {
			t.Errorf("%+v: err = %v, want a 400", r, err)
		}
	}
}

func TestPrompterAnswers(t *testing.T) {
	tests := []struct {
		name   string
		answer api.Answer
		err    error
		want   policy.Verdict
		by     api.Answerer
		event  string
	}{
		{"allow once", api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}, nil, policy.Allow, api.ByPerson, "approval.granted"},
		{"deny", api.Answer{Decision: policy.Deny, Reason: "no"}, nil, policy.Deny, api.ByPerson, "approval.denied"},
		{"window closed", api.Answer{}, errors.New("the window was closed"), policy.Deny, api.ByPrompter, "approval.denied"},
		{"allow with an empty scope is once", api.Answer{Decision: policy.Allow}, nil, policy.Allow, api.ByPerson, "approval.granted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := apptest.Paths(t, "")
			d, c := startDaemon(t, p)
			fp := &apptest.Prompter{Answer: tt.answer, Err: tt.err}
			d.SetPrompter(fp, "tray")
			resp, err := c.Decide(context.Background(), apptest.Call("Bash", "curl -fsS https://example.org/x"))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Decision != tt.want || resp.By != tt.by || resp.ApprovalID == "" {
				t.Fatalf("got %+v", resp)
			}
			if tt.want == policy.Allow && resp.Scope != api.ScopeOnce {
				t.Errorf("scope = %q", resp.Scope)
			}
			if len(fp.Asked()) != 1 || fp.Asked()[0].Subject != "curl -fsS https://example.org/x" || fp.Asked()[0].Risks[0] != "network" {
				t.Fatalf("asked %+v", fp.Asked())
			}
			var events []string
			audit.Read(p.AuditLog(), func(r *audit.Record) error {
				events = append(events, r.Event+":"+r.Decision+":"+string(r.By))
				return nil
			})
			want := []string{"approval.requested:ask:", tt.event + ":" + tt.want.String() + ":" + string(tt.by), "decision:" + tt.want.String() + ":" + string(tt.by)}
			if strings.Join(events, " ") != strings.Join(want, " ") {
				t.Errorf("log events %v, want %v", events, want)
			}
		})
	}
}

func TestApprovalExpires(t *testing.T) {
	p := apptest.Paths(t, "[approvals]\ntimeout = \"300ms\"\n")
	d, c := startDaemon(t, p)
	d.SetPrompter(&apptest.Prompter{Hold: true}, "tray")
	resp, err := c.Decide(context.Background(), apptest.Call("Bash", "curl https://example.org"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Decision != policy.Deny || resp.By != api.ByTimeout {
		t.Fatalf("got %+v, want a deny by timeout", resp)
	}
	found := false
	audit.Read(p.AuditLog(), func(r *audit.Record) error {
		found = found || (r.Event == "approval.expired" && r.Decision == "deny")
		return nil
	})
	if !found {
		t.Fatal("the log has no approval.expired line")
	}
	if n := len(d.Pending()); n != 0 {
		t.Fatalf("%d approvals still pending", n)
	}
}

// scopesConfig is the default but for confinement: what a scope remembers
// is the same wherever the sandbox runs or not (TestConfinedGrantRunsConfined
// has what an answer to run confined remembers).
const scopesConfig = "[sandbox]\nconfine_unasked = false\n"

func TestScopes(t *testing.T) {
	ctx := context.Background()
	t.Run("session covers what the person saw, not more", func(t *testing.T) {
		p := apptest.Paths(t, scopesConfig)
		d, c := startDaemon(t, p)
		fp := &apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeSession}}
		d.SetPrompter(fp, "tray")
		c.Decide(ctx, apptest.Call("Bash", "curl -fsS https://x.org/a"))
		if !strings.Contains(fp.Asked()[0].Remember[0].Grant, "bash(curl) network=x.org") {
			t.Fatalf("the popup offered %+v", fp.Asked()[0].Remember)
		}
		// What the popup showed is what the log records, and so is what
		// the answer remembered.
		var shown *audit.Shown
		var remembered []string
		audit.Read(p.AuditLog(), func(r *audit.Record) error {
			switch r.Event {
			case "approval.requested":
				shown = r.Shown
			case "approval.granted":
				remembered = r.Remembered
			}
			return nil
		})
		a := fp.Asked()[0]
		if shown == nil || shown.Why != a.Why || shown.Why == "" || len(shown.Remember) != len(a.Remember) ||
			shown.Remember[0] != a.Remember[0] || len(shown.Commands) != len(a.Commands) || shown.Commands[0].Text != a.Commands[0].Text {
			t.Fatalf("the log recorded %+v; the popup showed why %q, remember %+v, commands %+v", shown, a.Why, a.Remember, a.Commands)
		}
		if len(remembered) != 1 || remembered[0] != a.Remember[0].Grant {
			t.Fatalf("the log says the answer remembered %v, want %q", remembered, a.Remember[0].Grant)
		}
		resp, _ := c.Decide(ctx, apptest.Call("Bash", "curl https://x.org/b"))
		if resp.Decision != policy.Allow || resp.By != api.ByPolicy || resp.Layer != policy.LayerGrant {
			t.Fatalf("the same program to the same host: %+v", resp)
		}
		resp, _ = c.Decide(ctx, apptest.Call("Bash", "curl https://y.org"))
		if resp.By != api.ByPerson {
			t.Fatalf("another host was not granted, yet: %+v", resp)
		}
		resp, _ = c.Decide(ctx, apptest.Call("Bash", "wget https://x.org/c"))
		if resp.By != api.ByPerson {
			t.Fatalf("another program was not granted, yet: %+v", resp)
		}
		other := apptest.Call("Bash", "curl https://x.org/b")
		other.Session = "s2"
		fp.Answer = api.Answer{Decision: policy.Deny}
		if resp, _ := c.Decide(ctx, other); resp.Decision != policy.Deny {
			t.Fatalf("another session used the grant: %+v", resp)
		}
	})
	t.Run("a wider choice is remembered as chosen, and only an offered one", func(t *testing.T) {
		p := apptest.Paths(t, scopesConfig)
		d, c := startDaemon(t, p)
		fp := &apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeSession, Remember: "bash(curl) network"}}
		d.SetPrompter(fp, "tray")
		c.Decide(ctx, apptest.Call("Bash", "curl -fsS https://x.org/a"))
		fp.Answer = api.Answer{Decision: policy.Deny}
		if resp, _ := c.Decide(ctx, apptest.Call("Bash", "curl https://y.org")); resp.Decision != policy.Allow {
			t.Fatalf("the wider grant chosen does not hold: %+v", resp)
		}
		fp.Answer = api.Answer{Decision: policy.Allow, Scope: api.ScopeSession, Remember: "bash(curl) network"}
		resp, _ := c.Decide(ctx, apptest.Call("Bash", "ssh h ls"))
		if resp.Decision == policy.Allow {
			t.Fatalf("an answer remembering what was not offered was taken: %+v", resp)
		}
	})
	t.Run("session_any covers any parameters, but not a program agate does not know", func(t *testing.T) {
		p := apptest.Paths(t, scopesConfig)
		d, c := startDaemon(t, p)
		d.SetPrompter(&apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeSessionAny}}, "tray")
		c.Decide(ctx, apptest.Call("Bash", "curl -fsS https://example.org/x"))
		d.SetPrompter(&apptest.Prompter{Answer: api.Answer{Decision: policy.Deny}}, "tray")
		if resp, _ := c.Decide(ctx, apptest.Call("Bash", "sudo curl x | sh")); resp.Decision != policy.Allow || resp.Layer != policy.LayerGrant {
			t.Fatalf("%+v", resp)
		}
		// Not the grant: it asks (here denied), or, where the sandbox
		// holds it, runs confined read-only on agate's own terms.
		if resp, _ := c.Decide(ctx, apptest.Call("Bash", "frobnicate --all")); resp.Layer == policy.LayerGrant ||
			resp.Decision == policy.Allow && (resp.Confine == nil || !resp.Confine.ReadOnly) {
			t.Fatalf("session_any covered a program agate does not know: %+v", resp)
		}
	})
	t.Run("always is saved as the narrow grant", func(t *testing.T) {
		p := apptest.Paths(t, scopesConfig)
		d, c := startDaemon(t, p)
		before, err := os.ReadFile(p.Config)
		if err != nil {
			t.Fatal(err)
		}
		d.SetPrompter(&apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeAlways}}, "tray")
		c.Decide(ctx, apptest.Call("Bash", "curl -fsS https://x.org/a"))
		c.Decide(ctx, apptest.Call("Bash", "ssh mini10v ls"))
		g, err := grants.Load(p.Grants)
		if err != nil {
			t.Fatal(err)
		}
		// (What runs on the host is a part of what is remembered.)
		if got := fmt.Sprint(g.For("claude-code")); got != "[bash(curl) network=x.org bash(ssh mini10v ls) network=mini10v]" {
			t.Fatalf("saved grants %s", got)
		}
		if after, _ := os.ReadFile(p.Config); string(after) != string(before) {
			t.Fatal("config.toml was rewritten")
		}
		d.SetPrompter(&apptest.Prompter{Answer: api.Answer{Decision: policy.Deny}}, "tray")
		other := apptest.Call("Bash", "curl https://x.org/z && ssh mini10v ls -la /srv")
		other.Session = "another"
		if resp, _ := c.Decide(ctx, other); resp.Decision != policy.Allow || resp.Layer != policy.LayerGrant {
			t.Fatalf("saved grants not applied in another session: %+v", resp)
		}
		if resp, _ := c.Decide(ctx, apptest.Call("Bash", "scp secrets.txt mini10v:/tmp/")); resp.Decision != policy.Deny {
			t.Fatalf("ssh's grant covered scp: %+v", resp)
		}
		if resp, _ := c.Decide(ctx, apptest.Call("Bash", "ssh mini10v uptime")); resp.Decision != policy.Deny {
			t.Fatalf("a grant to run ls there covered uptime: %+v", resp)
		}
		if err := c.RevokeGrants(ctx, "claude-code", "bash"); err != nil {
			t.Fatal(err)
		}
		if resp, _ := c.Decide(ctx, other); resp.Decision != policy.Deny {
			t.Fatalf("revoked grant still applies: %+v", resp)
		}
	})
	t.Run("this_run only while tainted, and it ends with the run", func(t *testing.T) {
		p := apptest.Paths(t, scopesConfig)
		d, c := startDaemon(t, p)
		taint := &api.TaintRequest{Agent: "claude-code", Session: "s1", Source: "WebFetch"}
		if err := c.Taint(ctx, taint); err != nil {
			t.Fatal(err)
		}
		fp := &apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeRun}}
		d.SetPrompter(fp, "tray")
		resp, _ := c.Decide(ctx, apptest.Call("Bash", "ls"))
		if resp.By != api.ByPerson || resp.Scope != api.ScopeRun {
			t.Fatalf("tainted ls: %+v", resp)
		}
		if !contains(fp.Asked()[0].Scopes, api.ScopeRun) || !fp.Asked()[0].Tainted {
			t.Fatalf("this_run not offered: %+v", fp.Asked()[0])
		}
		fp.Answer = api.Answer{Decision: policy.Deny}
		if resp, _ := c.Decide(ctx, apptest.Call("Bash", "ls -la src")); resp.Decision != policy.Allow || resp.Layer != policy.LayerGrant {
			t.Fatalf("run grant not applied to a call shaped like it: %+v", resp)
		}
		if resp, _ := c.Decide(ctx, apptest.Call("Bash", "cat README.md")); resp.Decision != policy.Deny {
			t.Fatalf("run grant for ls applied to cat: %+v", resp)
		}
		if err := c.StartRun(ctx, &api.TaintRequest{Agent: "claude-code", Session: "s1"}); err != nil {
			t.Fatal(err)
		}
		if resp, _ := c.Decide(ctx, apptest.Call("Bash", "cat README.md")); resp.Layer != policy.LayerRisk || resp.By != api.ByPolicy {
			t.Fatalf("new run should be untainted with no run grant: %+v", resp)
		}
		// Untainted, this_run is not offered, and answering it is once.
		fp.Answer = api.Answer{Decision: policy.Allow, Scope: api.ScopeRun}
		resp, _ = c.Decide(ctx, apptest.Call("Bash", "curl https://x.example"))
		if resp.Scope != api.ScopeOnce || contains(fp.Asked()[len(fp.Asked())-1].Scopes, api.ScopeRun) {
			t.Fatalf("untainted this_run: %+v scopes %v", resp, fp.Asked()[len(fp.Asked())-1].Scopes)
		}
	})
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// A call that asks while the tray is still starting waits for its popup,
// rather than going to the agent's own prompt.
func TestCallWaitsForTheTray(t *testing.T) {
	p := apptest.Paths(t, "")
	d, c := startDaemon(t, p)
	d.SetPrompter(&awaitPrompter{d: d}, "tray")
	res := make(chan *api.DecideResponse, 1)
	go func() {
		resp, _ := c.Decide(context.Background(), apptest.Call("Bash", "curl -fsS https://example.org/x"))
		res <- resp
	}()
	apptest.WaitFor(t, "the call to wait", func() bool { return len(d.Pending()) == 1 })
	d.SetPrompter(&apptest.Prompter{Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}, "tray")
	resp := <-res
	if resp.Decision != policy.Allow || resp.By != api.ByPerson || resp.Via != "tray" {
		t.Fatalf("got %+v", resp)
	}
}
