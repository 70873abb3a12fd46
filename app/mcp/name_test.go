package mcp

import "testing"

func TestDefaultName(t *testing.T) {
	for _, tt := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, "filesystem"},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-everything@2026.8.31"}, "everything"},
		{[]string{"uvx", "mcp-server-git", "--repository", "."}, "git"},
		{[]string{"/usr/local/bin/github-mcp-server", "stdio"}, "github"},
		{[]string{"node", "/opt/srv/build/index.js"}, "index"},
		{[]string{"python3", "-m", "weather_mcp"}, "weather"},
		{[]string{"docker", "run", "-i", "--rm", "ghcr.io/acme/tools:1.2"}, "tools"},
		{[]string{"my server"}, "my-server"},
		{[]string{"___"}, "server"},
		{[]string{"/home/u/.cache/agents/server-filesystem@2026.8.31/node_modules/.bin/mcp-server-filesystem", "/tmp"}, "filesystem"},
		{[]string{"/home/u/@work:x/bin/srv"}, "srv"},
	} {
		got := DefaultName(tt.cmd)
		if got != tt.want {
			t.Errorf("DefaultName(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
		if err := ValidName(got); err != nil {
			t.Errorf("DefaultName(%q) = %q: %v", tt.cmd, got, err)
		}
	}
	for _, bad := range []string{"", "a__b", "_a", "a_", "a b", "a/b", "é"} {
		if ValidName(bad) == nil {
			t.Errorf("ValidName(%q) is nil", bad)
		}
	}
}
