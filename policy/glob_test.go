package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

var globTests = []struct {
	pattern, s string
	want       bool
}{
	// The general pattern's literal head and tail: they cannot overlap.
	{"ab*ba", "aba", false},
	{"ab*ba", "abba", true},
	{"ssh_host_*_key", "ssh_host_rsa_key", true},
	{"ssh_host_*_key", "ssh_host_rsa_key.pub", false},
	{"a[*]b?", "a*bc", true},
	{"a[]]b*", "a]bc", true},
	{"x]y*z", "x]yz", true},
	{"rm*", "rm -rf build", true},
	{"rm*", "ls && rm", false},
	{"*sudo*", "echo; sudo ls", true},
	{"*.env", "/home/u/p/.env", true},
	{"*.env", "/home/u/p/.envrc", false},
	{"git status*", "git status --short", true},
	{"git status", "git status --short", false},
	{"*", "", true},
	{"a?c", "abc", true},
	{"a?c", "ac", false},
	{"a?c", "aéc", true},
	{"[abc]x", "bx", true},
	{"[!abc]x", "bx", false},
	{"[a-c]x", "cx", true},
	{"[]]", "]", true},
	{"*/.git/*", "/p/.git/hooks/x", true},
	{"*a*b*c", "xaxbxc", true},
	{"*a*b*c", "xaxbxcx", false},
	{"**", "anything/at/all", true},
	{"docs.python.org", "docs.python.org", true},
	{"/home/*/proj/*", "/home/u/proj/a/b", true},
}

func TestGlob(t *testing.T) {
	for _, tt := range globTests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		if got := g.match(tt.s); got != tt.want {
			t.Errorf("%q match %q = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
		if got := wildMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("general matcher: %q match %q = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestGlobErrors(t *testing.T) {
	for _, p := range []string{"", "[abc", "x[", "\xff"} {
		if _, err := compileGlob(p); err == nil {
			t.Errorf("%q: no error", p)
		}
	}
}

// FuzzGlob compares the fast kinds with the general matcher and, for
// patterns without brackets and slashes, with path/filepath.Match applied
// to slash-free strings.
func FuzzGlob(f *testing.F) {
	for _, tt := range globTests {
		f.Add(tt.pattern, tt.s)
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		g, err := compileGlob(pattern)
		if err != nil {
			return
		}
		fast, slow := g.match(s), wildMatch(pattern, s)
		if fast != slow {
			t.Fatalf("%q vs %q: fast %v, general %v", pattern, s, fast, slow)
		}
		if !strings.ContainsAny(pattern, "[\\/") && !strings.Contains(s, "/") {
			if m, err := filepath.Match(pattern, s); err == nil && m != slow {
				t.Fatalf("%q vs %q: filepath.Match %v, ours %v", pattern, s, m, slow)
			}
		}
	})
}

func TestParseRule(t *testing.T) {
	tests := []struct {
		in       string
		hard     bool
		verdict  Verdict
		tool     string
		arg      string
		wantsErr bool
	}{
		{in: "deny shell rm*", verdict: Deny, tool: "shell", arg: "rm*"},
		{in: "allow bash git status*", verdict: Allow, tool: "bash", arg: "git status*"},
		{in: "  ask   web  ", verdict: Ask, tool: "web"},
		{in: "allow  bash  a  b ", verdict: Allow, tool: "bash", arg: "a  b"},
		{in: "shell rm -rf*", hard: true, verdict: Deny, tool: "shell", arg: "rm -rf*"},
		{in: "deny shell", hard: true, verdict: Deny, tool: "shell"},
		{in: "allow shell", hard: true, wantsErr: true},
		{in: "shell rm", wantsErr: true},
		{in: "deny", wantsErr: true},
		{in: "", wantsErr: true},
		{in: "deny [x", wantsErr: true},
	}
	for _, tt := range tests {
		r, err := parseRule(tt.in, tt.hard)
		if tt.wantsErr {
			if err == nil {
				t.Errorf("%q: no error", tt.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		arg := ""
		if r.arg != nil {
			arg = r.arg.String()
		}
		if r.verdict != tt.verdict || r.tool.String() != tt.tool || arg != tt.arg {
			t.Errorf("%q: got %s %q %q", tt.in, r.verdict, r.tool, arg)
		}
	}
}

// FuzzParseRule: a rule that parses keeps its text and has a verdict; hard
// deny entries only deny.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"deny shell rm*", "allow bash git status*", "ask web", "shell rm -rf*", "deny [x", "allow  a  b  c"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, hard bool) {
		r, err := parseRule(s, hard)
		if err != nil {
			return
		}
		if r.ref.Text != s {
			t.Fatalf("text %q != %q", r.ref.Text, s)
		}
		if hard && r.verdict != Deny {
			t.Fatalf("hard_deny %q parsed as %s", s, r.verdict)
		}
		if strings.TrimSpace(r.tool.String()) != r.tool.String() || r.tool.String() == "" {
			t.Fatalf("tool glob %q", r.tool)
		}
	})
}

func TestGrants(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{in: "bash:none", want: "bash:none"},
		{in: "write_file:writes_file", want: "write_file:writes"},
		{in: "bash:deletes+network", want: "bash:deletes+network"},
		{in: "bash:network+deletes", want: "bash:deletes+network"},
		{in: "*", want: "*"},
		{in: "read_file", want: "read_file"},
		{in: "bash:sudo+code", want: "bash:elevated+inline_code"},
		{in: "bash:often", err: true},
		{in: ":none", err: true},
		{in: "bash:secret", err: true},
		{in: "two words:none", err: true},
	}
	for _, tt := range tests {
		g, err := ParseGrant(tt.in)
		if tt.err != (err != nil) {
			t.Errorf("%q: err = %v", tt.in, err)
			continue
		}
		if err == nil && g.String() != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, g, tt.want)
		}
	}
	none, _ := ParseGrant("bash:none")
	del, _ := ParseGrant("bash:deletes")
	if got := none.Widen(del).String(); got != "bash:deletes" {
		t.Errorf("widen = %q", got)
	}
	c := builtinCatalog()
	if !c.Covers(none, "Bash", 0) || c.Covers(none, "Bash", Risks(Deletes)) || !c.Covers(del, "Bash", 0) {
		t.Error("bash grants cover the wrong calls")
	}
	if c.Covers(Grant{Tool: "*", Any: true}, "Bash", Risks(Secret)) {
		t.Error("a grant covers a credential")
	}
}

// FuzzParseGrant: a grant that parses prints back to an equivalent grant.
func FuzzParseGrant(f *testing.F) {
	for _, s := range []string{"bash:none", "*", "write_file:writes_file", "bash:deletes+network", "x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGrant(s)
		if err != nil {
			return
		}
		h, err := ParseGrant(g.String())
		if err != nil || !h.Equal(g) {
			t.Fatalf("%q -> %q -> %v %v", s, g, h, err)
		}
	})
}
