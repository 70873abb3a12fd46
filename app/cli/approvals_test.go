package cli

import (
	"slices"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

func TestParseTerminalAnswer(t *testing.T) {
	pending := []string{"1", "2", "3"}
	tests := []struct {
		line    string
		want    []api.AnswerRequest
		wantErr bool
	}{
		{line: "y", want: []api.AnswerRequest{{IDs: pending, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}}},
		{line: "n", want: []api.AnswerRequest{{IDs: pending, Answer: api.Answer{Decision: policy.Deny}}}},
		{line: "s", want: []api.AnswerRequest{{IDs: pending, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeSession}}}},
		{line: "1,3", want: []api.AnswerRequest{{IDs: []string{"1", "3"}, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}, {IDs: []string{"2"}, Answer: api.Answer{Decision: policy.Deny}}}},
		{line: "2", want: []api.AnswerRequest{{IDs: []string{"2"}, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}, {IDs: []string{"1", "3"}, Answer: api.Answer{Decision: policy.Deny}}}},
		{line: "allow 2 always fine by me", want: []api.AnswerRequest{{IDs: []string{"2"}, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeAlways, Reason: "fine by me"}}}},
		{line: "deny 3 too risky", want: []api.AnswerRequest{{IDs: []string{"3"}, Answer: api.Answer{Decision: policy.Deny, Reason: "too risky"}}}},
		{line: "", wantErr: true},
		{line: "7", wantErr: true},
		{line: "allow", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseTerminalAnswer(tt.line, pending)
		if tt.wantErr {
			if err == nil {
				t.Errorf("%q: no error", tt.line)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%q: %d answers, want %d", tt.line, len(got), len(tt.want))
			continue
		}
		for i := range got {
			g, w := got[i], tt.want[i]
			if g.Decision != w.Decision || g.Scope != w.Scope || g.Reason != w.Reason || !equalStrings(g.IDs, w.IDs) {
				t.Errorf("%q: answer %d = %+v, want %+v", tt.line, i, *g, w)
			}
		}
	}
}

func equalStrings(a, b []string) bool { return slices.Equal(a, b) }
