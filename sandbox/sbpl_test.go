package sandbox

import (
	"strings"
	"testing"
)

func TestSBPLProfile(t *testing.T) {
	tests := []struct {
		name    string
		p       *plan
		want    []string // lines or fragments, in this order
		wantNot []string
	}{
		{
			name: "writes only in the work dir and temp, no network",
			p:    &plan{work: "/Users/a/proj", mounts: []mount{{mountBindRW, "/Users/a/proj"}}},
			want: []string{
				"(version 1)\n",
				"(allow default)\n",
				"(deny file-write*)\n",
				"(allow file-write*\n    (subpath \"/private/tmp\")\n    (subpath \"/private/var/folders\")\n    (subpath \"/Users/a/proj\")\n    (literal \"/dev/null\")",
				"(deny appleevent-send)\n",
				"(deny network*)\n",
			},
		},
		{
			name:    "network allowed",
			p:       &plan{work: "/w", net: true, mounts: []mount{{mountBindRW, "/w"}}},
			want:    []string{"(subpath \"/w\")", "(deny appleevent-send)\n"},
			wantNot: []string{"(deny network*)"},
		},
		{
			name: "writable, protected, pinned and hidden paths",
			p: &plan{work: "/w", writable: []string{"/data"}, mounts: []mount{
				{mountBindRW, "/w"}, {mountBindRW, "/data"}, {mountHideDir, "/Users/a/Library/agate/run"},
				{mountPin, "/w/.git"}, {mountProtect, "/w/.git/hooks"},
			}},
			want: []string{
				"(subpath \"/w\")\n    (subpath \"/data\")",
				"(deny file-read* file-write* (subpath \"/Users/a/Library/agate/run\"))\n",
				"(deny network-outbound (remote unix-socket (path-regex #\"^/Users/a/Library/agate/run(/|$)\")))\n",
				"(deny file-write-unlink (literal \"/w/.git\"))\n",
				"(deny file-write* (subpath \"/w/.git/hooks\"))\n",
				"(deny network*)\n",
			},
		},
		{
			name: "regex metacharacters in a hidden path are quoted",
			p:    &plan{work: "/w", mounts: []mount{{mountHideDir, "/a.b+c"}}},
			want: []string{`(path-regex #"^/a\.b\+c(/|$)")`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sbplProfile(tt.p)
			if err != nil {
				t.Fatal(err)
			}
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("profile lacks, in order, %q:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tt.wantNot {
				if strings.Contains(got, n) {
					t.Errorf("profile has %q:\n%s", n, got)
				}
			}
			if strings.Count(got, "(") != strings.Count(got, ")") {
				t.Errorf("unbalanced parentheses:\n%s", got)
			}
		})
	}
}

func TestSBPLProfileRefusesUnquotablePaths(t *testing.T) {
	for _, path := range []string{`/w/"quoted"`, `/w/back\slash`, "/w/new\nline"} {
		p := &plan{work: "/w", mounts: []mount{{mountProtect, path}}}
		if _, err := sbplProfile(p); err == nil {
			t.Errorf("sbplProfile accepted %q", path)
		}
	}
}
