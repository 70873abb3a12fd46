package daemon

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// TestHookAgents: a hook's call is taken from the caller and the nearest
// of its ancestors that is not a shell, never one further up (the
// terminal's shell, systemd --user, a subreaper that adopted a
// double-forked process).
func TestHookAgents(t *testing.T) {
	names := map[int]string{13: "env", 10: "sh", 11: "bash", 12: "zsh", 20: "claude", 21: "node", 22: "codex", 30: "bash", 40: "systemd"}
	name := func(pid int) string { return names[pid] }
	for _, tc := range []struct {
		chain []int
		want  []int
	}{
		{[]int{1000, 10, 20, 30, 40}, []int{1000, 20}},     // Claude Code: /bin/sh -c, then the agent
		{[]int{1000, 20, 30, 40}, []int{1000, 20}},         // the shell exec'd the hook
		{[]int{1000, 11, 22, 21, 30, 40}, []int{1000, 22}}, // Codex: $SHELL -lc under the native binary
		{[]int{1000, 21}, []int{1000, 21}},                 // Gemini CLI: bash execs, node runs the hook
		{[]int{1000, 10, 11, 12, 20}, []int{1000, 20}},     // shells in shells
		{[]int{1000, 13, 10, 20}, []int{1000, 20}},         // env in a shell
		{[]int{1000}, []int{1000}},                         // no parent known
		{[]int{1000, 10, 11}, []int{1000}},                 // only shells
		{[]int{1000, 10, 99, 20}, []int{1000}},             // a process whose name cannot be read
		{nil, nil},
	} {
		if got := hookAgents(tc.chain, name); !slices.Equal(got, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.chain, got, tc.want)
		}
	}
}

// TestStepAsideOnlyForTheHooksAgent: a registration whose client is an
// ancestor further up than the hook's agent (a proxy started by hand in
// the terminal the agent runs in, a process adopted by systemd --user)
// makes no hook step aside.
func TestStepAsideOnlyForTheHooksAgent(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	parent := os.Getppid()
	grand := parentPID(parent)
	if grand <= 1 {
		t.Skip("this test's parent has no parent to play the far ancestor")
	}
	// The "proxy" is this test's parent, registered under its own parent:
	// the hook (this process) has both among its ancestors.
	ps := &proxies{byID: map[string]*proxyEntry{"x": {server: "gh", proxyPID: parent, clientPID: grand, tools: map[string]bool{"delete_repo": true}}}}
	if e := ps.covering("gh", "delete_repo", hookAgents(ancestors(os.Getpid(), 32), processName)); e != nil {
		t.Fatalf("a proxy registered under pid %d, above the hook's agent %d, is covered", grand, parent)
	}
	ps.byID["x"].proxyPID, ps.byID["x"].clientPID = os.Getpid(), parent
	if processName(parent) != "" && !hookShells[processName(parent)] {
		if e := ps.covering("gh", "delete_repo", hookAgents(ancestors(os.Getpid(), 32), processName)); e == nil {
			t.Fatal("the hook's own agent's proxy is not covered")
		}
	}
}

// TestMCPRelativePaths: a proxied call's relative path is taken from the
// folder the proxy says its server resolves it against (the client's
// first root), never from the proxy's working folder; with none known,
// it is a file agate cannot tell.
func TestMCPRelativePaths(t *testing.T) {
	p := apptest.Paths(t, "")
	_, client := startDaemon(t, p)
	ctx := context.Background()
	for _, tc := range []struct {
		name, tool, path, base string
		want                   policy.Verdict
	}{
		{"no root known", "read_text_file", "notes.txt", "", policy.Deny},
		{"no root known, a write", "write_file", ".local/bin/git", "", policy.Deny},
		{"the root is the project", "read_text_file", "notes.txt", "/home/dev/project", policy.Allow},
		{"a root outside the project, a write", "write_file", "notes.txt", "/home/dev/docs", policy.Deny},
		{"a relative root is no root", "read_text_file", "notes.txt", "home/dev/project", policy.Deny},
		{"an absolute path needs no root", "read_text_file", "/home/dev/project/notes.txt", "", policy.Allow},
	} {
		r := mcpReq("filesystem", tc.tool, nil, map[string]any{"path": tc.path, "content": "x"})
		r.MCP.Base = tc.base
		resp, err := client.Decide(ctx, r)
		if err != nil || resp.Decision != tc.want {
			t.Errorf("%s: %+v %v", tc.name, resp, err)
		}
	}
}
