package policy

import (
	"strings"
	"testing"
)

func TestDiffTargets(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"unified", "--- a/src/x.c\t2024-01-01 10:00\n+++ b/src/x.c\t2024-01-02 10:00\n@@ -1 +1 @@\n-a\n+b\n", []string{"a/src/x.c", "b/src/x.c"}},
		{"git, new file", "diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n", []string{"a/.git/hooks/pre-commit", "b/.git/hooks/pre-commit"}},
		{"git rename", "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to ../outside.txt\n", []string{"a/old.txt", "b/new.txt", "../outside.txt"}},
		{"quoted", "--- \"a/sp ace.txt\"\n+++ \"b/sp ace.txt\"\n", []string{"a/sp ace.txt", "b/sp ace.txt"}},
		{"context", "*** a/f.c\t2024\n--- b/f.c\t2024\n***************\n*** 1,3 ****\n--- 1,3 ----\n", []string{"a/f.c", "b/f.c"}},
		{"svn", "Index: lib/a.rb\n===\n--- lib/a.rb\n+++ lib/a.rb\n", []string{"lib/a.rb"}},
		{"no diff", "just some text\n", nil},
		{"crlf", "--- a/x\r\n+++ b/x\r\n", []string{"a/x", "b/x"}},
	}
	for _, tt := range tests {
		got := DiffTargets(tt.text)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func FuzzDiffTargets(f *testing.F) {
	f.Add("--- a/x\n+++ b/x\n")
	f.Add("diff --git a/x b/y\nrename to z\n")
	f.Add("*** a\n--- b\n")
	f.Fuzz(func(t *testing.T, s string) {
		got := DiffTargets(s)
		if len(got) > maxPatchTargets {
			t.Fatalf("%d targets", len(got))
		}
		seen := map[string]bool{}
		for _, p := range got {
			if p == "" || p == "/dev/null" || seen[p] {
				t.Fatalf("%q: target %q in %q", s, p, got)
			}
			seen[p] = true
		}
	})
}
