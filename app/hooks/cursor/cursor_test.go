package cursor

import "testing"

// TestCursorMCPName: how a Cursor MCP tool is named without a server
// name in the payload.
func TestHookCursorMCPName(t *testing.T) {
	for _, c := range []struct {
		tool, url, command, want string
	}{
		{"create_issue", "", "npx -y @modelcontextprotocol/server-github", "mcp__server-github__create_issue"},
		{"create_issue", "", "npx -y @modelcontextprotocol/server-github@1.2.3", "mcp__server-github__create_issue"},
		{"status", "", "uvx mcp-server-git --repository /home/dev/project", "mcp__mcp-server-git__status"},
		{"get", "", "/opt/mcp/bin/my-server --port 7", "mcp__my-server__get"},
		{"search", "", "docker run -i --rm -e TOKEN ghcr.io/github/github-mcp-server:latest", "mcp__github-mcp-server__search"},
		{"query", "https://mcp.example.com:8443/sse", "", "mcp__mcp.example.com__query"},
		{"query", "https://mcp.example.com/sse", "npx other", "mcp__mcp.example.com__query"},
		{"MCP:linear:create_issue", "https://mcp.linear.app/sse", "", "mcp__linear__create_issue"},
		{"query", "", "", "mcp__unknown__query"},
		{"query", "", "npx -y evil__server", "mcp__evil_server__query"},
		{"query", "", "node ___", "mcp__unknown__query"},
		{"MCP:a__b:c", "", "", "mcp__a_b__c"},
	} {
		cmd := &c.command
		if c.command == "" {
			cmd = nil
		}
		if got := cursorMCPName(&cursorInput{ToolName: c.tool, URL: c.url, Command: cmd}); got != c.want {
			t.Errorf("%q %q %q: %q, want %q", c.tool, c.url, c.command, got, c.want)
		}
	}
}
