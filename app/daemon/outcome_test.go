package daemon

import (
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/apptest"
)

// TestOutcomeRecordsTheAgentsAnswer: an ask handed to Claude Code's
// prompt waits for what Claude Code says became of it, and the answer is
// logged tied to the decision: by tool_use_id, by tool and subject, or
// for the whole session when the turn ends.
func TestOutcomeRecordsTheAgentsAnswer(t *testing.T) {
	p := apptest.Paths(t, "")
	_, c := startDaemon(t, p)
	ctx := t.Context()
	ask := func(id, command string) *api.DecideResponse {
		r := apptest.Call("Bash", command)
		r.ToolUseID = id
		resp, err := c.Decide(ctx, r)
		if err != nil || resp.By != api.ByAgent {
			t.Fatalf("decide %q: %+v %v", command, resp, err)
		}
		return resp
	}
	ask("toolu_1", "curl -fsS https://example.org/x")
	ask("", "wget https://example.org/dist.tgz")
	ask("toolu_3", "wget https://example.org/tmp.tgz")

	for _, o := range []struct {
		req  api.OutcomeRequest
		want int
	}{
		{api.OutcomeRequest{Agent: "claude-code", Session: "s1", ToolUseID: "toolu_9", Tool: "Bash", Outcome: api.OutcomeRan, Event: "PostToolUse"}, 0},
		{api.OutcomeRequest{Agent: "claude-code", Session: "s1", ToolUseID: "toolu_1", Tool: "Bash", Outcome: api.OutcomeRan, Event: "PostToolUse"}, 1},
		{api.OutcomeRequest{Agent: "claude-code", Session: "s1", ToolUseID: "toolu_1", Tool: "Bash", Outcome: api.OutcomeRan, Event: "PostToolUse"}, 0}, // once
		{api.OutcomeRequest{Agent: "claude-code", Session: "s1", Tool: "Bash", Args: map[string]any{"command": "wget https://example.org/dist.tgz"}, Outcome: api.OutcomeDenied, Event: "PermissionDenied", Reason: "blocked"}, 1},
		{api.OutcomeRequest{Agent: "claude-code", Session: "other", Outcome: api.OutcomeEnded, Event: "Stop"}, 0},
		{api.OutcomeRequest{Agent: "claude-code", Session: "s1", Outcome: api.OutcomeEnded, Event: "Stop"}, 1},
	} {
		res, err := c.Outcome(ctx, &o.req)
		if err != nil || res.Settled != o.want {
			t.Fatalf("%+v: %+v %v, want %d settled", o.req, res, err, o.want)
		}
	}
	if _, err := c.Outcome(ctx, &api.OutcomeRequest{Agent: "claude-code", Session: "s1", Outcome: "maybe"}); err == nil {
		t.Error("an unknown outcome: no error")
	}

	// Every line is on disk before its answer came back.
	w := &agentWorld{paths: p}
	recs := w.audit(t)
	seqOf := map[string]uint64{}
	var got []string
	for _, r := range recs {
		if r.Event == "decision" {
			seqOf[r.Subject] = r.Seq
			continue
		}
		got = append(got, r.Event+" "+r.Subject+" "+r.ToolUseID)
		if r.Of != seqOf[r.Subject] || r.Session != "s1" || r.Tool != "Bash" || r.By != api.ByPerson || r.Via != "claude-code" {
			t.Errorf("%s: not tied to its decision (seq %d): %+v", r.Event, seqOf[r.Subject], r)
		}
	}
	want := []string{
		"approval.agent_allowed curl -fsS https://example.org/x toolu_1",
		"approval.agent_denied wget https://example.org/dist.tgz ",
		"approval.agent_denied wget https://example.org/tmp.tgz toolu_3",
	}
	if len(got) != len(want) {
		t.Fatalf("audit events %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("audit event %d: %q, want %q", i, got[i], want[i])
		}
	}
}
