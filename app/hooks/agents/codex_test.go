package agents

import (
	"testing"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/policy/verdict"
)

// TestCodexUnknownEventWithATool: an event agate does not know that names
// a tool (a PreToolUse spelled otherwise by another Codex, an event Codex
// adds) is decided as a call, never let through with no output, which
// Codex takes as "run it".
func TestCodexUnknownEventWithATool(t *testing.T) {
	for _, name := range []string{"pretooluse", "PRETOOLUSE", "PreToolUse ", "pre_tool_use", "BeforeToolUse"} {
		ev, err := Parse(hooks.Codex, []byte(`{"hook_event_name":"`+name+`","tool_name":"Bash","tool_input":{"command":"rm -rf ~"},"session_id":"s","cwd":"/tmp"}`), func(string) string { return "" })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ev.Kind != hooks.KindCall || ev.Tool != "Bash" || ev.Args["command"] != "rm -rf ~" || ev.AgentPrompt || ev.NoPrompt == "" {
			t.Errorf("%s: %+v", name, ev)
		}
		if out := Render(ev, hooks.Answer{Decision: verdict.Deny, Reason: "no"}); out.Code != hooks.ExitBlock {
			t.Errorf("%s: a denial is %+v", name, out)
		}
		if out := Render(ev, hooks.Answer{Decision: verdict.Ask, Reason: "asks"}); out.Code != hooks.ExitBlock {
			t.Errorf("%s: an ask is %+v", name, out)
		}
	}
	// The events agate knows, with no tool to decide, stay as they are.
	for _, name := range []string{"SessionStart", "Stop", "PostToolUse"} {
		ev, err := Parse(hooks.Codex, []byte(`{"hook_event_name":"`+name+`","tool_name":"Bash","tool_input":{}}`), func(string) string { return "" })
		if err != nil || ev.Kind == hooks.KindCall {
			t.Errorf("%s: %+v %v", name, ev, err)
		}
	}
}
