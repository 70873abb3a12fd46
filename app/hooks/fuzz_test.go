package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
func decisionOf(t *testing.T, ev *Event, out Output) string {
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
	switch ev.Agent {
	case ClaudeCode:
		return m.HSO.PermissionDecision
	case Gemini:
		return m.Decision
	}
	if ev.Name == "preToolUse" {
		return m.Decision
	}
	return m.Permission
}

// fuzzParse checks, for any input: Parse does not panic; a call has a
// tool; only an allow renders as an allow; a daemon that cannot be
// reached blocks; a Bash call that can be sandboxed keeps its command.
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
		if ev.Kind != KindCall {
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
			d    Decision
			want []string
		}{
			{Allow, []string{"allow"}},
			{Deny, []string{"deny"}},
			{Ask, []string{"ask", "deny"}},
			{"maybe", []string{"deny"}},
		} {
			got := decisionOf(t, ev, Render(ev, Answer{Decision: c.d, Reason: string(data[:min(len(data), 40)])}))
			if !strings.Contains(strings.Join(c.want, ","), got) || got == "" {
				t.Fatalf("%s rendered as %q, want one of %v", c.d, got, c.want)
			}
		}
		if got := decisionOf(t, ev, Unreachable(ev, "down", false)); got != "block" {
			t.Fatalf("daemon down rendered as %q", got)
		}
		if got := decisionOf(t, ev, Unreachable(ev, "down", true)); got != "ask" && got != "block" {
			t.Fatalf("daemon down, ask, rendered as %q", got)
		}
		if ev.Tool == "Bash" && ev.Input != nil {
			out, err := SandboxBash(ev.Input, Sandbox{Bin: "/usr/bin/agate", Work: "/w"})
			if err != nil {
				return
			}
			var in map[string]any
			if json.Unmarshal(out, &in) != nil {
				t.Fatalf("rewritten input %q is not JSON", out)
			}
			cmd, _ := ev.Args["command"].(string)
			words := shellWords(t, in["command"].(string))
			if words[len(words)-1] != cmd {
				t.Fatalf("sandboxed command %q, want %q", words[len(words)-1], cmd)
			}
		}
	})
}

func FuzzHookParseClaude(f *testing.F) { fuzzParse(f, ClaudeCode) }
func FuzzHookParseGemini(f *testing.F) { fuzzParse(f, Gemini) }
func FuzzHookParseCursor(f *testing.F) { fuzzParse(f, Cursor) }

// FuzzSettings: for any settings file, Install either fails or installs
// every hook, once; a second Install changes nothing; Uninstall removes
// every agate hook and nothing else.
func FuzzHookSettings(f *testing.F) {
	for _, s := range []string{claudeSettings, ``, `{}`, `{"hooks":null}`, `{"version":1,"hooks":{"beforeReadFile":[{"command":"agate hook cursor"}]}}`,
		`{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"command":"/x/agate-cli hook gemini","timeout":"x"}]},{"hooks":7},5]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, agent := range Agents() {
			cmd := "/usr/bin/agate hook " + agent
			out, changed, err := Install(agent, data, cmd, time.Minute)
			if err != nil {
				if _, err2 := Inspect(agent, data); err2 == nil && json.Valid(data) {
					// Install may refuse a file Inspect reads (an event
					// that is not a list): it must say so.
					if !strings.Contains(err.Error(), "not a list") {
						t.Fatalf("install failed on a readable file: %v", err)
					}
				}
				continue
			}
			if !changed && string(out) != string(data) {
				t.Fatal("unchanged but different")
			}
			entries, err := Inspect(agent, out)
			if err != nil {
				t.Fatalf("installed file unreadable: %v\n%s", err, out)
			}
			for _, h := range Hooks(agent) {
				n := 0
				for _, e := range entries {
					if e.Event == h.Event && sameMatcher(e.Matcher, h.Matcher) && e.Command == cmd {
						n++
					}
				}
				if n != 1 {
					t.Fatalf("%s: %d entries for %s in\n%s", agent, n, h.Event, out)
				}
			}
			if again, changed, err := Install(agent, out, cmd, time.Minute); err != nil || changed || string(again) != string(out) {
				t.Fatalf("second install: changed %v, err %v", changed, err)
			}
			back, _, err := Uninstall(agent, out)
			if err != nil {
				t.Fatal(err)
			}
			if left, err := Inspect(agent, back); err != nil || len(left) != 0 {
				t.Fatalf("after uninstall: %+v, %v", left, err)
			}
		}
	})
}

// FuzzParseCommand: the command Command writes is read back by
// ParseCommand, and ParseCommand never panics.
func FuzzHookParseCommand(f *testing.F) {
	for _, s := range []string{"/usr/bin", "/opt/my tools", "/home/o'brien", `C:\x`, "", "$HOME", "/a\"b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dir string) {
		ParseCommand(dir, ClaudeCode)
		bin := dir + "/agate-cli"
		cmd, err := Command(bin, Cursor)
		if err != nil {
			return
		}
		got, ok := ParseCommand(cmd, Cursor)
		if !ok || got != bin {
			t.Fatalf("ParseCommand(%q) = %q, %v; want %q", cmd, got, ok, bin)
		}
	})
}
