package settingsjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/internal/jsonc"
	"github.com/tailscale/hujson"
)

const (
	binA = "/usr/local/bin/agate-cli"
	binB = "/opt/agate/bin/agate"
)

func mustCommand(t *testing.T, bin, agent string) string {
	t.Helper()
	c, err := hooks.Command(bin, agent)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// keysOf returns an object's keys in order, as written.
func keysOf(t *testing.T, data []byte) []string {
	t.Helper()
	v, err := hujson.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	var keys []string
	for _, m := range v.Value.(*hujson.Object).Members {
		keys = append(keys, m.Name.Value.(hujson.Literal).String())
	}
	return keys
}

// compact returns data without insignificant whitespace.
func compact(t *testing.T, data []byte) string {
	t.Helper()
	v, err := hujson.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	v.Minimize()
	return string(v.Pack())
}

// claudeSettings is a user's settings file with keys before and after
// hooks, another tool's hooks on PreToolUse and an event agate does not
// use, in an order that is not sorted, indented with four spaces.
const claudeSettings = `{
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"], "deny": []},
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/home/me/bin/audit.sh", "timeout": 5}]}
        ]
    },
    "env": {"FOO": "bar"},
    "alwaysThinkingEnabled": true
}
`

// TestInstallClaude: agate's hooks are added; everything else stays
// as it was, in its order.
func TestHookInstallClaude(t *testing.T) {
	cmd := mustCommand(t, binA, hooks.ClaudeCode)
	out, changed, err := Install(hooks.ClaudeCode, []byte(claudeSettings), cmd, 135*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !changed {
		t.Fatal("not changed")
	}
	if got := strings.Join(keysOf(t, out), ","); got != "model,permissions,hooks,env,alwaysThinkingEnabled" {
		t.Errorf("keys %s", got)
	}
	if !strings.Contains(string(out), "\n    \"model\"") {
		t.Errorf("indentation not kept:\n%s", out)
	}
	agate := `{"type":"command","command":"/usr/local/bin/agate-cli hook claude-code","timeout":135}`
	want := `{"model":"opus","permissions":{"allow":["Bash(npm test)"],"deny":[]},"hooks":{` +
		`"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]},{"hooks":[` + agate + `]}],` +
		`"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/home/me/bin/audit.sh","timeout":5}]},` +
		`{"matcher":"*","hooks":[` + agate + `]}],` +
		`"PostToolUse":[{"matcher":"*","hooks":[` + agate + `]}],` +
		`"PostToolUseFailure":[{"matcher":"*","hooks":[` + agate + `]}],` +
		`"PermissionDenied":[{"matcher":"*","hooks":[` + agate + `]}],` +
		`"UserPromptSubmit":[{"hooks":[` + agate + `]}],` +
		`"SessionEnd":[{"hooks":[` + agate + `]}]},` +
		`"env":{"FOO":"bar"},"alwaysThinkingEnabled":true}`
	if got := compact(t, out); got != want {
		t.Errorf("installed:\n got %s\nwant %s", got, want)
	}

	// Again: nothing to do, and the data comes back as it was.
	again, changed, err := Install(hooks.ClaudeCode, out, cmd, 135*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if changed || string(again) != string(out) {
		t.Errorf("second install changed the file:\n%s", again)
	}

	// Uninstall gives back the original content.
	back, changed, err := Uninstall(hooks.ClaudeCode, out)
	if err != nil {
		t.Fatal(err)
	}
	if !changed || compact(t, back) != compact(t, []byte(claudeSettings)) {
		t.Errorf("uninstall:\n got %s\nwant %s", compact(t, back), compact(t, []byte(claudeSettings)))
	}
	if _, changed, _ := Uninstall(hooks.ClaudeCode, back); changed {
		t.Error("second uninstall changed the file")
	}
}

// TestInstallReplaces: a new binary path or timeout updates agate's own
// entry in place (keeping any other field on it), and duplicates and
// agate entries under another matcher go.
func TestHookInstallReplaces(t *testing.T) {
	old := mustCommand(t, binB, hooks.ClaudeCode)
	in := `{"hooks":{"PreToolUse":[` +
		`{"matcher":"","hooks":[{"type":"command","command":"` + old + `","timeout":60,"statusMessage":"agate"},{"type":"command","command":"lint.sh"}]},` +
		`{"matcher":"*","hooks":[{"type":"command","command":"` + old + `"}]},` +
		`{"matcher":"Bash","hooks":[{"type":"command","command":"agate hook claude-code"}]}` +
		`]}}`
	out, changed, err := Install(hooks.ClaudeCode, []byte(in), mustCommand(t, binA, hooks.ClaudeCode), 135*time.Second)
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	entries, err := Inspect(hooks.ClaudeCode, out)
	if err != nil {
		t.Fatal(err)
	}
	var pre []Entry
	for _, e := range entries {
		if e.Event == "PreToolUse" {
			pre = append(pre, e)
		}
	}
	if len(pre) != 1 || pre[0].Bin != binA || pre[0].Timeout != "135" || pre[0].Matcher != "" {
		t.Fatalf("PreToolUse entries %+v, want one, updated in place", pre)
	}
	wantPre := `[{"matcher":"","hooks":[{"type":"command","command":"/usr/local/bin/agate-cli hook claude-code","timeout":135,"statusMessage":"agate"},{"type":"command","command":"lint.sh"}]}]`
	var file struct{ Hooks map[string]json.RawMessage }
	if err := json.Unmarshal(out, &file); err != nil {
		t.Fatal(err)
	}
	if c, _ := json.Marshal(file.Hooks["PreToolUse"]); string(c) != wantPre {
		t.Errorf("PreToolUse:\n got %s\nwant %s", c, wantPre)
	}
}

// TestInstallGeminiCursor: the other two layouts and units.
func TestHookInstallGeminiCursor(t *testing.T) {
	for _, c := range []struct {
		agent, in, want string
	}{
		{hooks.Gemini, `{"general":{"vimMode":true},"hooks":{"enabled":true,"disabled":["x"],"BeforeTool":[{"matcher":"write_file","hooks":[{"name":"fmt","type":"command","command":"fmt.sh"}]}]}}`,
			`{"general":{"vimMode":true},"hooks":{"enabled":true,"disabled":["x"],` +
				`"BeforeTool":[{"matcher":"write_file","hooks":[{"name":"fmt","type":"command","command":"fmt.sh"}]},{"matcher":".*","hooks":[{"name":"agate","type":"command","command":"/usr/local/bin/agate-cli hook gemini","timeout":134500}]}],` +
				`"AfterTool":[{"matcher":".*","hooks":[{"name":"agate","type":"command","command":"/usr/local/bin/agate-cli hook gemini","timeout":134500}]}],` +
				`"BeforeAgent":[{"hooks":[{"name":"agate","type":"command","command":"/usr/local/bin/agate-cli hook gemini","timeout":134500}]}]}}`},
		{hooks.Cursor, `{"hooks":{"afterFileEdit":[{"command":"./format.sh"}],"beforeShellExecution":[{"command":"./audit.sh"}]}}`,
			`{"version":1,"hooks":{"afterFileEdit":[{"command":"./format.sh"}],` +
				`"beforeShellExecution":[{"command":"./audit.sh"},{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}],` +
				`"beforeMCPExecution":[{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}],` +
				`"beforeReadFile":[{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}],` +
				`"afterMCPExecution":[{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}],` +
				`"beforeSubmitPrompt":[{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}]}}`},
		{hooks.Cursor, ``, `{"version":1,"hooks":{` +
			`"beforeShellExecution":[{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}],` +
			`"beforeMCPExecution":[{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}],` +
			`"beforeReadFile":[{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}],` +
			`"afterMCPExecution":[{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}],` +
			`"beforeSubmitPrompt":[{"command":"/usr/local/bin/agate-cli hook cursor","timeout":135}]}}`},
		{hooks.Cursor, `{"version":1}`, ``}, // checked only for the round trip below
	} {
		out, changed, err := Install(c.agent, []byte(c.in), mustCommand(t, binA, c.agent), 134500*time.Millisecond)
		if err != nil || !changed {
			t.Fatalf("%s %s: changed %v, err %v", c.agent, c.in, changed, err)
		}
		if c.want != "" && compact(t, out) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.agent, compact(t, out), c.want)
		}
		if !strings.HasSuffix(string(out), "}\n") {
			t.Errorf("no final newline: %q", out)
		}
		entries, err := Inspect(c.agent, out)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != len(Hooks(c.agent)) {
			t.Errorf("%s: Inspect found %+v, want %d", c.agent, entries, len(Hooks(c.agent)))
		}
		back, _, err := Uninstall(c.agent, out)
		if err != nil {
			t.Fatal(err)
		}
		if left, _ := Inspect(c.agent, back); len(left) != 0 {
			t.Errorf("%s: left after uninstall: %+v", c.agent, left)
		}
		if c.in != "" && c.agent == hooks.Gemini && compact(t, back) != compact(t, []byte(c.in)) {
			t.Errorf("%s: uninstall gave %s, want %s", c.agent, compact(t, back), c.in)
		}
	}
}

// TestUninstallKeepsOthers: only agate's entries for this agent go; a
// group keeps its other handlers; an emptied group, event and hooks
// object go.
func TestHookUninstallKeepsOthers(t *testing.T) {
	in := `{"hooks":{` +
		`"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/usr/bin/agate hook claude-code"},{"type":"command","command":"audit.sh"}]},` +
		`{"matcher":"Bash","hooks":[{"type":"command","command":"'/opt/my tools/agate-cli' hook claude-code"}]}],` +
		`"PostToolUse":[{"matcher":"WebFetch","hooks":[{"type":"command","command":"/usr/bin/agate hook claude-code"}]}],` +
		`"Notification":[{"hooks":[{"type":"command","command":"/usr/bin/agate hook cursor"},{"type":"command","command":"/usr/bin/notagate hook claude-code"},{"type":"command","command":"env X=1 /usr/bin/agate hook claude-code"}]}]` +
		`},"other":1}`
	out, changed, err := Uninstall(hooks.ClaudeCode, []byte(in))
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	want := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"audit.sh"}]}],` +
		`"Notification":[{"hooks":[{"type":"command","command":"/usr/bin/agate hook cursor"},{"type":"command","command":"/usr/bin/notagate hook claude-code"},{"type":"command","command":"env X=1 /usr/bin/agate hook claude-code"}]}]},"other":1}`
	if got := compact(t, out); got != want {
		t.Errorf("uninstall:\n got %s\nwant %s", got, want)
	}

	only := `{"a":1,"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"agate hook claude-code"}]}]},"b":2}`
	out, _, err = Uninstall(hooks.ClaudeCode, []byte(only))
	if err != nil {
		t.Fatal(err)
	}
	if got := compact(t, out); got != `{"a":1,"b":2}` {
		t.Errorf("uninstall of the last hook: %s", got)
	}
}

// TestSettingsErrors: a file agate cannot read is an error that says
// where, and nothing is produced.
func TestHookSettingsErrors(t *testing.T) {
	cmd := mustCommand(t, binA, hooks.ClaudeCode)
	for _, c := range []struct {
		name, in, want string
	}{
		{"syntax", "{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}", "line 3, column 13"},
		{"truncated", "{\"a\": [1, 2", "line 1, column"},
		{"unclosed comment", "{\n/* mine\n\"a\": 1}", "line 2, column"},
		{"not an object", `["hooks"]`, "not a JSON object"},
		{"two objects", `{} {}`, "line 1, column 4"},
		{"hooks not an object", `{"hooks":[]}`, `"hooks" is not a JSON object`},
		{"event not a list", `{"hooks":{"PreToolUse":{}}}`, "hooks.PreToolUse is not a list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := Install(hooks.ClaudeCode, []byte(c.in), cmd, time.Minute)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("install: out %s, err %v; want an error with %q", out, err, c.want)
			}
			if out != nil {
				t.Errorf("install returned %s with its error", out)
			}
			if c.name == "event not a list" {
				return // uninstall leaves what it does not own
			}
			if _, _, err := Uninstall(hooks.ClaudeCode, []byte(c.in)); err == nil {
				t.Error("uninstall: no error")
			}
			if _, err := Inspect(hooks.ClaudeCode, []byte(c.in)); err == nil {
				t.Error("inspect: no error")
			}
		})
	}
}

// TestInstallRefuses: what would make an entry agate could not find again.
func TestHookInstallRefuses(t *testing.T) {
	for _, c := range []struct {
		agent, cmd string
		timeout    time.Duration
	}{
		{hooks.ClaudeCode, "/usr/bin/agate hook gemini", time.Minute},
		{hooks.ClaudeCode, "/usr/bin/other hook claude-code", time.Minute},
		{hooks.ClaudeCode, "/usr/bin/agate hook claude-code", 0},
		{"codex", "/usr/bin/agate hook codex", time.Minute},
	} {
		if _, _, err := Install(c.agent, nil, c.cmd, c.timeout); err == nil {
			t.Errorf("Install(%s, %q, %v): no error", c.agent, c.cmd, c.timeout)
		}
	}
}

// TestIndentUnit: the indentation a file uses is kept.
func TestHookIndentUnit(t *testing.T) {
	for in, want := range map[string]string{
		"{\n    \"a\": 1\n}": "    ",
		"{\n\t\"a\": 1\n}":   "\t",
		`{"a": 1}`:           "  ",
		"":                   "  ",
	} {
		if got := jsonc.IndentUnit([]byte(in)); got != want {
			t.Errorf("jsonc.IndentUnit(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRepeatedKeys: a key written twice is read as the agents read it,
// the last value in the first place, and written once.
func TestHookRepeatedKeys(t *testing.T) {
	in := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"agate hook claude-code"}]}],"Stop":[],"PreToolUse":[]},"a":1,"hooks":{"Stop":[]}}`
	entries, err := Inspect(hooks.ClaudeCode, []byte(in))
	if err != nil || len(entries) != 0 {
		t.Fatalf("entries %+v, err %v; want none: the last hooks wins", entries, err)
	}
	out, _, err := Install(hooks.ClaudeCode, []byte(in), "agate hook claude-code", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keysOf(t, out), ","); got != "hooks,a" {
		t.Errorf("keys %s", got)
	}
}

// commentsOf lists the comments of a JSON-with-comments document, as
// written.
func commentsOf(t *testing.T, data []byte) []string {
	t.Helper()
	v, err := hujson.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	var out []string
	scan := func(b hujson.Extra) {
		for i := 0; i < len(b); {
			switch {
			case bytes.HasPrefix(b[i:], []byte("//")):
				j := bytes.IndexByte(b[i:], '\n')
				if j < 0 {
					j = len(b) - i - 1
				}
				out = append(out, string(b[i:i+j+1]))
				i += j + 1
			case bytes.HasPrefix(b[i:], []byte("/*")):
				j := bytes.Index(b[i+2:], []byte("*/"))
				out = append(out, string(b[i:i+2+j+2]))
				i += j + 4
			default:
				i++
			}
		}
	}
	for x := range v.All() {
		scan(x.BeforeExtra)
		scan(x.AfterExtra)
		switch c := x.Value.(type) {
		case *hujson.Object:
			scan(c.AfterExtra)
		case *hujson.Array:
			scan(c.AfterExtra)
		}
	}
	sort.Strings(out)
	return out
}

// geminiCommented is a hooks.Gemini CLI settings file as a person keeps it:
// line and block comments, trailing commas, another tool's hook.
const geminiCommented = `{
  // hooks.Gemini CLI settings: JSON with comments.
  "general": {"vimMode": true}, // vim, always
  /* the hooks I run */
  "hooks": {
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"name": "fmt", "type": "command", "command": "fmt.sh"}]}, // format first
    ],
  },
  "ui": {
    "theme": "GitHub", // light
  },
}
`

// TestHookSettingsKeepComments: in a settings file with comments and
// trailing commas, Install adds agate's hooks and changes nothing else:
// every comment is still there, in its place, the lists that end with a
// trailing comma still do, and Uninstall gives the file back byte for
// byte.
func TestHookSettingsKeepComments(t *testing.T) {
	cmd := mustCommand(t, binA, hooks.Gemini)
	out, changed, err := Install(hooks.Gemini, []byte(geminiCommented), cmd, 135*time.Second)
	if err != nil || !changed {
		t.Fatalf("install: changed %v, err %v", changed, err)
	}
	if got, want := commentsOf(t, out), commentsOf(t, []byte(geminiCommented)); !reflect.DeepEqual(got, want) {
		t.Errorf("comments\n got %q\nwant %q\n%s", got, want, out)
	}
	for _, line := range []string{
		"  // hooks.Gemini CLI settings: JSON with comments.\n",
		`  "general": {"vimMode": true}, // vim, always` + "\n",
		"  /* the hooks I run */\n",
		`      {"matcher": "write_file", "hooks": [{"name": "fmt", "type": "command", "command": "fmt.sh"}]}, // format first` + "\n",
		`    "theme": "GitHub", // light` + "\n",
	} {
		if !strings.Contains(string(out), line) {
			t.Errorf("the line %q is gone:\n%s", line, out)
		}
	}
	if !strings.Contains(string(out), "        ]\n      },\n    ],\n") {
		t.Errorf("BeforeTool's list lost its trailing comma:\n%s", out)
	}
	entries, err := Inspect(hooks.Gemini, out)
	if err != nil || len(entries) != len(Hooks(hooks.Gemini)) {
		t.Fatalf("inspect: %+v, %v", entries, err)
	}
	std, err := hujson.Standardize(bytes.Clone(out))
	if err != nil || !json.Valid(std) {
		t.Fatalf("the result is not JSON with comments: %v\n%s", err, out)
	}
	if again, changed, err := Install(hooks.Gemini, out, cmd, 135*time.Second); err != nil || changed || string(again) != string(out) {
		t.Errorf("second install: changed %v, err %v", changed, err)
	}
	back, changed, err := Uninstall(hooks.Gemini, out)
	if err != nil || !changed || string(back) != geminiCommented {
		t.Errorf("uninstall: changed %v, err %v:\n%s\nwant the original:\n%s", changed, err, back, geminiCommented)
	}
	if off := GeminiHooksOff([]byte(strings.Replace(geminiCommented, `"ui"`, `"hooksConfig": {"enabled": false, /* for now */}, "ui"`, 1))); off == "" {
		t.Error("GeminiHooksOff does not read a file with comments")
	}
}

// TestHookStrictStaysStrict: a plain JSON file (Claude Code's settings,
// read with JSON.parse) stays plain JSON: no comment, no trailing comma;
// the lines agate does not edit are left as they were, and Uninstall
// gives the file back byte for byte.
func TestHookStrictStaysStrict(t *testing.T) {
	for _, c := range []struct{ agent, in string }{
		{hooks.ClaudeCode, claudeSettings},
		{hooks.ClaudeCode, "{}\n"},
		{hooks.ClaudeCode, "{\n\t\"model\": \"opus\",\n\t\"hooks\": {\"Notification\": []}\n}\n"},
		{hooks.ClaudeCode, "{\r\n  \"model\": \"opus\"\r\n}\r\n"},
		{hooks.Gemini, `{"general":{"vimMode":true},"hooks":{"BeforeTool":[{"matcher":"write_file","hooks":[{"name":"fmt","type":"command","command":"fmt.sh"}]}]}}` + "\n"},
	} {
		out, changed, err := Install(c.agent, []byte(c.in), mustCommand(t, binA, c.agent), time.Minute)
		if err != nil || !changed {
			t.Fatalf("%q: changed %v, err %v", c.in, changed, err)
		}
		if !json.Valid(out) {
			t.Errorf("%q gave a file that is not plain JSON:\n%s", c.in, out)
		}
		if v, err := hujson.Parse(out); err != nil || !v.IsStandard() {
			t.Errorf("%q gave comments or trailing commas:\n%s", c.in, out)
		}
		if strings.Contains(c.in, "\r\n") && strings.Count(string(out), "\n") != strings.Count(string(out), "\r\n") {
			t.Errorf("%q: line endings mixed:\n%q", c.in, out)
		}
		back, _, err := Uninstall(c.agent, out)
		if err != nil || string(back) != c.in {
			t.Errorf("uninstall of %q: %v\n%q", c.in, err, back)
		}
	}
	out, _, _ := Install(hooks.ClaudeCode, []byte(claudeSettings), mustCommand(t, binA, hooks.ClaudeCode), time.Minute)
	for _, line := range []string{
		"{\n    \"model\": \"opus\",\n    \"permissions\": {\"allow\": [\"Bash(npm test)\"], \"deny\": []},\n    \"hooks\": {\n",
		`        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}, {"hooks": [`,
		`            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/home/me/bin/audit.sh", "timeout": 5}]},` + "\n",
		"    },\n    \"env\": {\"FOO\": \"bar\"},\n    \"alwaysThinkingEnabled\": true\n}\n",
	} {
		if !strings.Contains(string(out), line) {
			t.Errorf("not kept as it was: %q\n%s", line, out)
		}
	}
}

// FuzzHookSettingsKeepComments: whatever the settings file, Install and
// Uninstall keep every comment in it, and never make a plain JSON file
// anything else.
func FuzzHookSettingsKeepComments(f *testing.F) {
	for _, s := range []string{geminiCommented, claudeSettings, "{}", "{/*a*/}", "{\"hooks\": { // h\n}}",
		"{\"hooks\":{\"BeforeTool\":[ /* x */ ]}, // y\n}", "[1,]", "{\"a\":1,}\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := hujson.Parse(data)
		if err != nil {
			return
		}
		for _, agent := range hooks.Agents() {
			out, changed, err := Install(agent, data, "/usr/bin/agate hook "+agent, time.Minute)
			if err != nil || !changed {
				continue
			}
			if got, want := commentsOf(t, out), commentsOf(t, data); !reflect.DeepEqual(got, want) {
				t.Fatalf("install: comments\n got %q\nwant %q\nin\n%s", got, want, out)
			}
			if v.IsStandard() && !json.Valid(out) {
				t.Fatalf("install made plain JSON into something else:\n%s\nfrom\n%s", out, data)
			}
			back, _, err := Uninstall(agent, out)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := commentsOf(t, back), commentsOf(t, data); !reflect.DeepEqual(got, want) {
				t.Fatalf("uninstall: comments\n got %q\nwant %q\nin\n%s", got, want, back)
			}
		}
	})
}

// FuzzSettings: for any settings file, Install either fails or installs
// every hook, once; a second Install changes nothing; Uninstall removes
// every agate hook and nothing else.
func FuzzHookSettings(f *testing.F) {
	for _, s := range []string{claudeSettings, ``, `{}`, `{"hooks":null}`, `{"version":1,"hooks":{"beforeReadFile":[{"command":"agate hook cursor"}]}}`,
		`{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"command":"/x/agate-cli hook gemini","timeout":"x"}]},{"hooks":7},5]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, agent := range hooks.Agents() {
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
