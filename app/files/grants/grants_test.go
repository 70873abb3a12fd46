package grants

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agatehq/agate/policy"
)

func strs(gs []policy.Grant) string {
	var out []string
	for _, g := range gs {
		out = append(out, g.String())
	}
	return strings.Join(out, ",")
}

// TestLoadBothVersions: version 1 (a list per agent) and version 2 (a
// table per grant) read; what Marshal writes (version 2) reads back the
// same; a missing file is no grants.
func TestLoadBothVersions(t *testing.T) {
	dir := t.TempDir()
	if g, err := Load(filepath.Join(dir, "none.toml")); err != nil || len(g.Agents()) != 0 {
		t.Fatalf("a missing file: %v, %v", g.Agents(), err)
	}
	v1 := filepath.Join(dir, "v1.toml")
	os.WriteFile(v1, []byte("[agents.claude-code]\ngrants = [\"bash:none\", \"bash(git status)\"]\n"), 0o600)
	v2 := filepath.Join(dir, "v2.toml")
	os.WriteFile(v2, []byte("version = 2\n\n[[agents.gemini.grant]]\ngrant = \"bash(git status)\"\nsaved = 2026-12-01T10:00:00Z\n"), 0o600)
	g1, err := Load(v1)
	if err != nil || strs(g1.For("claude-code")) != "bash:none,bash(git status)" {
		t.Fatalf("version 1: %v, %v", strs(g1.For("claude-code")), err)
	}
	g2, err := Load(v2)
	if err != nil || strs(g2.For("gemini")) != "bash(git status)" {
		t.Fatalf("version 2: %v, %v", strs(g2.For("gemini")), err)
	}
	out := filepath.Join(dir, "out.toml")
	os.WriteFile(out, g1.Marshal(), 0o600)
	back, err := Load(out)
	if err != nil || strs(back.For("claude-code")) != strs(g1.For("claude-code")) {
		t.Fatalf("round trip: %v, %v\n%s", strs(back.For("claude-code")), err, g1.Marshal())
	}
	if !strings.Contains(string(g2.Marshal()), "saved = 2026-12-01T10:00:00Z") {
		t.Errorf("the time a grant was saved is lost:\n%s", g2.Marshal())
	}
}

// TestLoadRefuses: a file that does not parse names its line, an unknown
// key is an error, and a newer version is refused: no grant is dropped
// silently.
func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ text, want string }{
		"syntax":  {"version = 2\n[[agents.x.grant]\n", "syntax.toml:3:"},
		"unknown": {"version = 2\ncolour = 1\n", "colour: unknown key"},
		"newer":   {"version = 3\n", "newer than this agate reads"},
		"grant":   {"[agents.x]\ngrants = [\"bash((\"]\n", "agents.x.grants[0]"},
	} {
		path := filepath.Join(dir, name+".toml")
		os.WriteFile(path, []byte(c.text), 0o600)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}

// TestUpdateUnderLock: writers that update the file at once never lose
// each other's grants.
func TestUpdateUnderLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.toml")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gr, err := policy.ParseGrant(fmt.Sprintf("bash(make t%d)", i))
			if err != nil {
				t.Error(err)
				return
			}
			if err := Update(path, func(s *Set) error { s.Add("claude-code", gr); return nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	g, err := Load(path)
	if err != nil || len(g.For("claude-code")) != 8 {
		t.Fatalf("%d grants (%v), want 8: %s", len(g.For("claude-code")), err, strs(g.For("claude-code")))
	}
	if !g.Revoke("claude-code", "bash(make t3)") || len(g.For("claude-code")) != 7 {
		t.Errorf("revoke one: %s", strs(g.For("claude-code")))
	}
}

// TestConfinedGrantsRoundTrip: a grant to run calls confined is saved
// marked so, read back apart from the others, listed, and revoked.
func TestConfinedGrantsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.toml")
	plain, err := policy.ParseGrant("bash(rm) delete=/p/build")
	if err != nil {
		t.Fatal(err)
	}
	conf, err := policy.ParseGrant("bash(curl) network=example.org")
	if err != nil {
		t.Fatal(err)
	}
	if err := Update(path, func(g *Set) error { g.Add("claude-code", plain); g.AddConfined("claude-code", conf); return nil }); err != nil {
		t.Fatal(err)
	}
	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.For("claude-code"); len(got) != 1 || !got[0].Equal(plain) {
		t.Errorf("plain grants %v", got)
	}
	if got := g.ConfinedFor("claude-code"); len(got) != 1 || !got[0].Equal(conf) {
		t.Errorf("confined grants %v", got)
	}
	if !g.RevokeOne("claude-code", conf) || len(g.ConfinedFor("claude-code")) != 0 || len(g.For("claude-code")) != 1 {
		t.Errorf("revoking the confined grant: %v %v", g.For("claude-code"), g.ConfinedFor("claude-code"))
	}
}
