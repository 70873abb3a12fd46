package policy

import (
	"path"
	"strings"
	"testing"
)

func TestMeet(t *testing.T) {
	tests := []struct {
		glob, pattern string
		want          bool
	}{
		{"/w/src/*.go", ".env.*", false}, // the shell's * does not name .env.go
		{"/w/src/.*", ".env.*", true},
		{"/w/src/*", "id_rsa", true},
		{"/w/src/*", ".env", false},
		{"/w/src/?env", ".env", false},
		{"/w/src/[.]env", ".env", false}, // a bracket does not match a leading dot
		{"/w/*.json", "service-account*.json", true},
		{"/w/*.md", "*.pem", false},
		{"/w/**/*.test.ts", ".env.*", true}, // find's -name takes dot names
		{"/w/**/*.go", ".ssh/", true},       // ... and goes into .ssh
		{"/w/*/x", ".ssh/", false},          // the shell's * does not name .ssh
		{"/h/.config/*/*.conf", "/h/.config/rclone/", true},
		{"/h/.config/*/*.conf", "/h/.config/gh/hosts.yml", false},
		{"/h/?ssh/x", ".ssh/", false}, // ? at a component's start is no dot
		{"/h/.ss?/x", ".ssh/", true},
		{"/h/.s*/k", ".ssh/", true},
		{"/proc/1/*", "/proc/*/environ", true},
		{"/proc/1/*", "/proc/*/nope/x", false}, // one component cannot hold two
		{"/proc/1/*", "/proc/*", true},
		{"/w/**/x", "/w/a/b/c/x", true},
		{"/w/a*.x", "/w/*b.x", true}, // a...b.x
		{"/w/a*.x", "/w/*b.y", false},
		{"/w/*a.x", "/w/.*", false}, // both runs at a component's start
		{"/w/x*", "/w/x.*", true},
		{"/w/*", "/w/a.x", true},
	}
	for _, tt := range tests {
		pp, err := compilePathPattern(tt.pattern, Options{Home: "/h"})
		if err != nil {
			t.Fatal(err)
		}
		var got bool
		for _, l := range pp.languages() {
			for _, q := range globLanguages(tt.glob) {
				got = got || meet(q, l)
			}
		}
		if got != tt.want {
			t.Errorf("%s meets %s: %v, want %v", tt.glob, tt.pattern, got, tt.want)
		}
	}
}

// TestMeetByExample checks meet against matching: for every pair of globs
// drawn from a small alphabet, a path that both match proves they meet,
// and meet must say so. (The converse, that meet finds no false witness,
// is what TestMeet's negative cases pin.)
func TestMeetByExample(t *testing.T) {
	parts := []string{"a", ".", "*", "?", "[.a]", "b"}
	var globs []string
	for _, x := range parts {
		for _, y := range parts {
			for _, z := range parts {
				globs = append(globs, "/d/"+x+y+z)
			}
		}
	}
	names := []string{}
	alpha := []string{"a", ".", "b"}
	for _, x := range alpha {
		for _, y := range alpha {
			for _, z := range alpha {
				names = append(names, x+y+z, x+y, x)
			}
		}
	}
	for _, g := range globs {
		for _, pat := range globs {
			want := false
			for _, n := range names {
				if shellMatch(g[3:], n) && wildMatch(pat[3:], n) {
					want = true
					break
				}
			}
			pp, err := compilePathPattern(pat, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, l := range pp.languages()[:1] {
				got = got || meet(steps(g, shellGlob), l)
			}
			if want && !got {
				t.Fatalf("%s and %s both match a name, but meet says no", g, pat)
			}
		}
	}
}

// shellMatch is the shell's glob for one component: path.Match, with a
// wildcard that may not take a leading dot.
func shellMatch(g, name string) bool {
	ok, err := path.Match(strings.ReplaceAll(g, "[.a]", "[.a]"), name)
	if err != nil || !ok {
		return false
	}
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(g, ".") {
		return false
	}
	return true
}
