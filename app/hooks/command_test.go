package hooks

import (
	"testing"
	"time"
)

// TestCommand: the command agate writes is recognised as its own, with
// the binary path back unquoted; other commands are not.
func TestHookCommand(t *testing.T) {
	for _, bin := range []string{
		"/usr/local/bin/agate", "/usr/local/bin/agate-cli", "/opt/my tools/agate", "/home/o'brien/bin/agate-cli",
		`/weird/$HOME/"x"/agate`, "agate", `C:\Program Files\agate\agate.exe`,
	} {
		for _, agent := range Agents() {
			cmd, err := Command(bin, agent)
			if err != nil {
				t.Fatalf("%q: %v", bin, err)
			}
			got, ok := ParseCommand(cmd, agent)
			if !ok || got != bin {
				t.Errorf("ParseCommand(%q) = %q, %v; want %q", cmd, got, ok, bin)
			}
			for _, other := range Agents() {
				if _, ok := ParseCommand(cmd, other); ok != (other == agent) {
					t.Errorf("ParseCommand(%q, %s) = %v", cmd, other, ok)
				}
			}
		}
	}
	for _, cmd := range []string{
		"/usr/bin/agate-helper hook claude-code",
		"/usr/bin/agate hook claude-code --bogus /x",
		"/usr/bin/agate hook claude-code --socket",
		"/usr/bin/agate hook claude-code --socket /x --socket /y",
		"/usr/bin/agate hook claude-code --agent-timeout soon",
		"/usr/bin/agate hook claude-code extra",
		"/usr/bin/agate hook claude-code --socket '/x",
		"env A=1 /usr/bin/agate hook claude-code",
		"$HOME/bin/agate hook claude-code",
		"/usr/bin/agate; rm -rf ~ hook claude-code",
		"'/usr/bin/agate hook claude-code",
		"hook claude-code",
		"agatehook claude-code",
		"",
	} {
		if bin, ok := ParseCommand(cmd, ClaudeCode); ok {
			t.Errorf("ParseCommand(%q) = %q, want not agate's", cmd, bin)
		}
	}
	if _, err := Command("/usr/bin/agate\x00", ClaudeCode); err == nil {
		t.Error("a NUL in the path: no error")
	}
	if _, err := Command("/usr/bin/agate", "aider"); err == nil {
		t.Error("unknown agent: no error")
	}
}

func TestCommandWithTimeout(t *testing.T) {
	c, err := CommandWithTimeout("/usr/bin/agate-hook", ClaudeCode, 135*time.Second)
	if err != nil || c != "/usr/bin/agate-hook hook claude-code --agent-timeout 135s" {
		t.Fatalf("%q %v", c, err)
	}
	if bin, ok := ParseCommand(c, ClaudeCode); !ok || bin != "/usr/bin/agate-hook" {
		t.Fatalf("ParseCommand(%q) = %q %v", c, bin, ok)
	}
	if _, ok := ParseCommand("/usr/bin/agate-hook hook claude-code --agent-timeout x; rm -rf /", ClaudeCode); ok {
		t.Fatal("a command with more after it is agate's")
	}
}

// TestHookCommandWith: the socket and config paths an installed command
// carries are read back, quoted or not, in any order.
func TestHookCommandWith(t *testing.T) {
	o := CommandOptions{AgentTimeout: 135 * time.Second, Socket: "/run/user/1000/agate/agate.sock", Config: "/home/o'brien/my config/agate.toml"}
	c, err := CommandWith("/opt/my tools/agate-hook", Gemini, o)
	if err != nil {
		t.Fatal(err)
	}
	want := `'/opt/my tools/agate-hook' hook gemini --agent-timeout 135s --socket /run/user/1000/agate/agate.sock --config "/home/o'brien/my config/agate.toml"`
	if c != want {
		t.Fatalf("command %s\nwant    %s", c, want)
	}
	hc, ok := ParseCommandWith(c, Gemini)
	if !ok || hc.Bin != "/opt/my tools/agate-hook" || hc.CommandOptions != o {
		t.Fatalf("ParseCommandWith(%q) = %+v, %v", c, hc, ok)
	}
	for _, c := range []string{
		"agate-hook hook gemini --config /c.toml --socket /s.sock",
		`agate-hook hook gemini --socket "/s.sock" --config /c.toml`,
	} {
		if hc, ok := ParseCommandWith(c, Gemini); !ok || hc.Socket != "/s.sock" || hc.Config != "/c.toml" {
			t.Errorf("ParseCommandWith(%q) = %+v, %v", c, hc, ok)
		}
	}
	if _, err := CommandWith("/usr/bin/agate-hook", Gemini, CommandOptions{Socket: "run/agate.sock"}); err == nil {
		t.Error("a relative socket: no error")
	}
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
