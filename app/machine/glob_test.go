package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestGlobPaths(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{".env", "a.go", "b.go", "src/c.go", "src/.hidden/d.go", "src/e.txt", ".git/config"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(dir, p)
			out = append(out, r)
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"/*", []string{"a.go", "b.go", "src"}},                                // the shell's * skips dot files
		{"/.e*", []string{".env"}},                                             // ...unless the pattern starts with one
		{"/*/*.go", []string{"src/c.go"}},                                      // and dot folders
		{"/**/*.go", []string{"a.go", "b.go", "src/.hidden/d.go", "src/c.go"}}, // find's -name takes them
		{"/src/**", []string{"src", "src/.hidden", "src/.hidden/d.go", "src/c.go", "src/e.txt"}},
		{"/none/**/*.go", nil}, // nothing there: nothing found, and that is all
	}
	for _, tt := range tests {
		got, complete := Glob(dir + tt.pattern)
		if !complete || !slices.Equal(rel(got), tt.want) {
			t.Errorf("Glob(%s) = %v, %v; want %v, complete", tt.pattern, rel(got), complete, tt.want)
		}
	}

	// Too many to name: not complete, so the policy judges by names.
	many := filepath.Join(dir, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range maxGlob + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, complete := Glob(many + "/*"); complete || len(got) != maxGlob {
		t.Errorf("a glob over %d files: %d paths, complete %v; want %d, not complete", maxGlob+1, len(got), complete, maxGlob)
	}
	if _, complete := Glob(many + "/**"); complete {
		t.Errorf("a search over %d files is complete", maxGlob+1)
	}

	// A folder agate cannot read: not complete.
	if os.Getuid() != 0 {
		locked := filepath.Join(dir, "locked")
		if err := os.Mkdir(locked, 0o000); err != nil {
			t.Fatal(err)
		}
		if _, complete := Glob(locked + "/**/*.go"); complete {
			t.Error("a search of an unreadable folder is complete")
		}
	}
}
