package policy

import (
	"encoding/json"
	"path"
	"sort"
	"strings"
	"testing"
)

const (
	testHome = "/home/u"
	testCwd  = "/home/u/proj"
)

var testOpts = Options{
	Home:      testHome,
	ConfigDir: "/home/u/.config/agate",
	StateDir:  "/home/u/.local/state/agate",
	Self:      []string{"/usr/local/bin/agate"},
}

// mustPolicy parses and compiles a config text.
func mustPolicy(t testing.TB, text string) *Policy {
	t.Helper()
	cfg, err := Parse("config.toml", []byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	p, err := Compile(cfg, testOpts)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// args decodes a JSON object of arguments.
func args(t testing.TB, s string) map[string]any {
	t.Helper()
	if s == "" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("args %s: %v", s, err)
	}
	return m
}

// req builds an interactive request from the test project, where every
// path a call would overwrite or delete is not there yet.
func req(t testing.TB, tool, a string) *Request {
	return &Request{Tool: tool, Args: args(t, a), Agent: "claude-code", Cwd: testCwd, Interactive: true, Files: absentFiles}
}

// absentFiles says nothing is at any path.
func absentFiles(string) FileState { return FileAbsent }

// filesFrom says what is at each path, and that nothing is elsewhere.
func filesFrom(m map[string]string) func(string) FileState {
	return func(p string) FileState {
		if strings.ContainsAny(p, "*?[") {
			return FileUnknown // (as machine.Facts.Files: a glob names no one file)
		}
		switch m[p] {
		case "recoverable":
			return FileRecoverable
		case "unrecoverable":
			return FileUnrecoverable
		case "unknown":
			return FileUnknown
		case "build-output":
			return FileBuildOutput
		}
		return FileAbsent
	}
}

// treeGlob is Request.Glob over a fixed list of absolute file paths (and
// the folders they imply), matched as the shell and find match, with
// path.Match: an implementation apart from the policy's own.
func treeGlob(files []string) func(string) ([]string, bool) {
	all := map[string]bool{}
	for _, f := range files {
		for p := f; p != "/" && p != "."; p = path.Dir(p) {
			all[p] = true
		}
	}
	shell := func(g, p string) bool {
		gs, ps := strings.Split(g, "/"), strings.Split(p, "/")
		if len(gs) != len(ps) {
			return false
		}
		for i := range gs {
			ok, err := path.Match(gs[i], ps[i])
			if err != nil || !ok || strings.HasPrefix(ps[i], ".") && !strings.HasPrefix(gs[i], ".") {
				return false
			}
		}
		return true
	}
	return func(pattern string) ([]string, bool) {
		var out []string
		for p := range all {
			var ok bool
			if head, name, found := strings.Cut(pattern, "/**/"); found {
				m, _ := path.Match(name, path.Base(p))
				d := path.Dir(p)
				for d != "/" && !ok {
					ok = m && shell(head, d)
					d = path.Dir(d)
				}
			} else if head, found := strings.CutSuffix(pattern, "/**"); found {
				for d := p; d != "/" && !ok; d = path.Dir(d) {
					ok = shell(head, d)
				}
			} else {
				ok = shell(pattern, p)
			}
			if ok {
				out = append(out, p)
			}
		}
		sort.Strings(out)
		return out, true
	}
}
