package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/policy/verdict"
)

// addSeeds adds every recorded payload of agent, and the inputs of the
// parse tests, to f's corpus.
func addSeeds(f *testing.F, agent string) {
	files, err := filepath.Glob(filepath.Join(testdataDir, agent, "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no payloads for %s: %v", agent, err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":null}`))
	f.Add([]byte(`{"hook_event_name":"beforeMCPExecution","tool_name":"MCP:a:b","tool_input":"{\"x\":1e400}"}`))
	f.Add([]byte(`{"hook_event_name":"BeforeTool","tool_name":"t","mcp_context":{"server_name":"s"}}`))
}

// decisionOf returns the decision an agent would read from out.
func decisionOf(t *testing.T, ev *hooks.Event, out hooks.Output) string {
	t.Helper()
	if out.Code != 0 {
		if len(out.Stdout) != 0 {
			t.Fatalf("exit %d with stdout %q", out.Code, out.Stdout)
		}
		return "block"
	}
	var m struct {
		HSO struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
		Decision   string `json:"decision"`
		Permission string `json:"permission"`
	}
	if err := json.Unmarshal(out.Stdout, &m); err != nil {
		t.Fatalf("stdout %q: %v", out.Stdout, err)
	}
	var top struct {
		PermissionDecision string `json:"permissionDecision"`
	}
	switch ev.Agent {
	case hooks.ClaudeCode, hooks.QwenCode, hooks.ClaudeCompatible:
		return m.HSO.PermissionDecision
	case hooks.Gemini, hooks.OpenCode:
		return m.Decision
	case hooks.Copilot:
		json.Unmarshal(out.Stdout, &top)
		return top.PermissionDecision
	}
	if ev.Name == "preToolUse" {
		return m.Decision
	}
	return m.Permission
}

// fuzzParse checks, for any input: Parse does not panic; a call has a
// tool; only an allow renders as an allow; a daemon that cannot be
// reached blocks.
func fuzzParse(f *testing.F, agent string) {
	addSeeds(f, agent)
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Parse(agent, data, projectEnv)
		if err != nil {
			return
		}
		if ev.Agent != agent {
			t.Fatalf("agent %q", ev.Agent)
		}
		if ev.Kind != hooks.KindCall {
			if out := Render(ev, answerAllow); out.Code != 0 || strings.Contains(string(out.Stdout), "allow") {
				t.Fatalf("%v event rendered as %+v", ev.Kind, out)
			}
			return
		}
		if ev.Tool == "" || ev.Args == nil {
			t.Fatalf("call without a tool or args: %+v", ev)
		}
		if _, err := json.Marshal(ev.Args); err != nil {
			t.Fatalf("args do not encode: %v", err)
		}
		for _, c := range []struct {
			d    verdict.Verdict
			want []string
		}{
			{verdict.Allow, []string{"allow"}},
			{verdict.Deny, []string{"deny"}},
			{verdict.Ask, []string{"ask", "deny"}},
			{verdict.Verdict(3), []string{"deny"}},
		} {
			got := decisionOf(t, ev, Render(ev, hooks.Answer{Decision: c.d, Reason: string(data[:min(len(data), 40)])}))
			if got == "block" {
				got = "deny" // (Qwen Code's deny is exit 2)
			}
			if !strings.Contains(strings.Join(c.want, ","), got) || got == "" {
				t.Fatalf("%s rendered as %q, want one of %v", c.d, got, c.want)
			}
		}
		// (a deny in JSON blocks too, where exit 2 would lose the reason)
		if got := decisionOf(t, ev, Unreachable(ev, "down", false)); got != "block" && got != "deny" {
			t.Fatalf("daemon down rendered as %q", got)
		}
		if got := decisionOf(t, ev, Unreachable(ev, "down", true)); got != "ask" && got != "block" && got != "deny" {
			t.Fatalf("daemon down, ask, rendered as %q", got)
		}
	})
}

func FuzzHookParseClaude(f *testing.F)   { fuzzParse(f, hooks.ClaudeCode) }
func FuzzHookParseGemini(f *testing.F)   { fuzzParse(f, hooks.Gemini) }
func FuzzHookParseCursor(f *testing.F)   { fuzzParse(f, hooks.Cursor) }
func FuzzHookParseQwen(f *testing.F)     { fuzzParse(f, hooks.QwenCode) }
func FuzzHookParseCopilot(f *testing.F)  { fuzzParse(f, hooks.Copilot) }
func FuzzHookParseOpenCode(f *testing.F) { fuzzParse(f, hooks.OpenCode) }
