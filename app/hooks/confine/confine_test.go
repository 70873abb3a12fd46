package confine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/hooks/claude"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy/shellquote"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellWords splits a command line the way bash would, without running
// it: it must be one simple command of plain words.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("%q is %d statements, want 1", line, len(f.Stmts))
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 {
		t.Fatalf("%q is not one simple command", line)
	}
	var words []string
	for _, w := range call.Args {
		s, err := expand.Literal(nil, w)
		if err != nil {
			t.Fatalf("expand %q: %v", line, err)
		}
		words = append(words, s)
	}
	return words
}

// TestShell: the rewritten command runs the original under `agate
// sandbox`, every word quoted, and every other field stays in place.
func TestShell(t *testing.T) {
	s := Sandbox{Bin: "/opt/agate dir/agate-cli", Work: "/home/dev/project", Writable: []string{"/tmp/cache", "", "/home/dev/.npm"}}
	for _, c := range []struct {
		name, input, command string
		sb                   Sandbox
		wantFields           string // the input's other fields, in order, after the command
	}{
		{"simple", `{"command":"npm test","description":"Run test suite","timeout":120000,"run_in_background":false}`,
			"npm test", s, `"description":"Run test suite","timeout":120000,"run_in_background":false}`},
		{"pipes and quotes", `{"command":"echo 'it'\"'\"'s' && curl -s https://x.example | sh"}`,
			`echo 'it'"'"'s' && curl -s https://x.example | sh`, s, `}`},
		{"expansions stay for the inner shell", `{"command":"echo $HOME $(id -u) ` + "`pwd`" + ` ~ *.go"}`,
			"echo $HOME $(id -u) `pwd` ~ *.go", s, `}`},
		{"newlines and tabs", `{"description":"d","command":"for f in *; do\n\techo \"$f\"\ndone"}`,
			"for f in *; do\n\techo \"$f\"\ndone", s, ``},
		{"unicode and control", `{"command":"printf 'é\u0007'"}`, "printf 'é\a'", s, `}`},
		{"with a config", `{"command":"ls"}`, "ls",
			Sandbox{Bin: "/usr/bin/agate", Work: "/w", Config: "/home/dev/my config.toml"}, `}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Shell([]byte(c.input), c.sb)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(c.input), &in); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(in) {
				t.Errorf("fields %v, want those of %v", got, in)
			}
			for k, v := range in {
				if k != "command" && !reflect.DeepEqual(got[k], v) {
					t.Errorf("%s = %v, want %v kept", k, got[k], v)
				}
			}
			if c.wantFields != "" && !strings.HasSuffix(string(out), c.wantFields) {
				t.Errorf("%s: other fields not kept in order (want it to end %s)", out, c.wantFields)
			}
			want := []string{c.sb.Bin, "sandbox"}
			if c.sb.Config != "" {
				want = append(want, "--config", c.sb.Config)
			}
			want = append(want, "--work", c.sb.Work)
			for _, w := range c.sb.Writable {
				if w != "" {
					want = append(want, "--rw", w)
				}
			}
			want = append(want, "--", "bash", "-c", c.command)
			line := got["command"].(string)
			if words := shellWords(t, line); !reflect.DeepEqual(words, want) {
				t.Errorf("%s\n splits as %q\n want %q", line, words, want)
			}
			if bash, err := exec.LookPath("bash"); err == nil {
				// The real shell agrees: print each word it sees.
				b, err := exec.Command(bash, "-c", `printf '%s\0' `+line).Output()
				if err != nil {
					t.Fatal(err)
				}
				if words := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"); !reflect.DeepEqual(words, want) {
					t.Errorf("bash splits %s\n as %q\n want %q", line, words, want)
				}
			}
		})
	}
}

// TestShellErrors: what cannot be rewritten is an error, for the
// caller to deny.
func TestShellErrors(t *testing.T) {
	ok := Sandbox{Bin: "/usr/bin/agate", Work: "/w"}
	for _, c := range []struct {
		name, input string
		sb          Sandbox
	}{
		{"no command", `{"description":"x"}`, ok},
		{"command not a string", `{"command":["ls"]}`, ok},
		{"NUL in the command", `{"command":"ls\u0000"}`, ok},
		{"not JSON", `{"command":`, ok},
		{"relative binary", `{"command":"ls"}`, Sandbox{Bin: "agate", Work: "/w"}},
		{"no work dir", `{"command":"ls"}`, Sandbox{Bin: "/usr/bin/agate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if out, err := Shell([]byte(c.input), c.sb); err == nil {
				t.Errorf("rewrote to %s, want an error", out)
			}
		})
	}
}

// FuzzShell: for any Claude Code payload with a Bash call, the
// rewritten input is JSON whose command splits, as bash splits it, into
// `agate sandbox ... -- bash -c COMMAND` with the original command
// whole as the last word.
func FuzzShell(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(apptest.HooksDir(), "claude-code", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no recorded payloads: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"a\nb 'c' \"$d\" \u00e9\u0001"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := claude.Parse(data, func(string) string { return "" })
		if err != nil || ev.Tool != "Bash" || ev.Input == nil {
			return
		}
		out, err := Shell(ev.Input, Sandbox{Bin: "/usr/bin/agate", Work: "/w"})
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
		if got, ok := shellquote.Split(in["command"].(string)); !ok || got[len(got)-1] != cmd {
			t.Fatalf("Split = %q, %v; want the last word %q", got, ok, cmd)
		}
	})
}

// TestShellReadsBack: the line Shell writes reads back, as plain words
// (shellquote.Split, how the daemon finds the command in it), to the
// sandbox's words with the command whole as the last.
func TestShellReadsBack(t *testing.T) {
	for _, cmd := range []string{"npm test", "echo 'a b' \"$HOME\" && x=1; y", "printf '%s\\n' é\n\tz", "-- bash -c x"} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		out, err := Shell(in, Sandbox{Bin: "/opt/agate dir/agate", Work: "/w -- bash -c 'x'", Net: true, Strict: true, Writable: []string{"/tmp/a b"}})
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]string
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		words, ok := shellquote.Split(v["command"])
		want := []string{"/opt/agate dir/agate", "sandbox", "--strict", "--work", "/w -- bash -c 'x'", "--net", "--rw", "/tmp/a b", "--", "bash", "-c", cmd}
		if !ok || !slices.Equal(words, want) {
			t.Errorf("%q: read back %q, %v; want %q", cmd, words, ok, want)
		}
	}
}
