package policy

import (
	"encoding/json"
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
		switch m[p] {
		case "recoverable":
			return FileRecoverable
		case "unrecoverable":
			return FileUnrecoverable
		case "unknown":
			return FileUnknown
		}
		return FileAbsent
	}
}
