package clients

import (
	"path/filepath"
	"strings"

	"github.com/agatehq/agate/app/mcp"
)

// Server is one server of a client's file.
type Server struct {
	// Where is the key path of the object holding it, joined with '.'
	// ("mcpServers", "projects./home/me/proj.mcpServers").
	Where string
	Key   string // the client's name for it
	// Name is the server's name in agate's policy (mcp__NAME__TOOL).
	Name string
	// Command and Args are what the client starts, before the edit;
	// Now is what it starts after it (command, then args), for the
	// servers rewritten.
	Command string
	Args    []string
	Now     []string
	// URL is where a remote server is reached (HTTP or SSE), SSE
	// whether over the older SSE transport, Headers the names of the
	// headers it is sent.
	URL     string
	SSE     bool
	Headers []string
	// Why says why it was skipped.
	Why string
}

// ServerName is the name agate's policy knows a client's server by: its
// key, where that is a valid name, else the key with every character a
// name cannot hold made '_' (as clients name MCP tools).
func ServerName(key string) string {
	if mcp.ValidName(key) == nil {
		return key
	}
	var b strings.Builder
	for i := 0; i < len(key) && b.Len() < 64; i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			c = '_'
		}
		if c == '_' && strings.HasSuffix(b.String(), "_") {
			continue
		}
		b.WriteByte(c)
	}
	name := strings.Trim(b.String(), "_")
	if mcp.ValidName(name) != nil {
		return "server"
	}
	return name
}

// wrap returns the command and args that run command and args through
// agate's proxy as server name.
func wrap(agate, name, command string, args []string) (string, []string) {
	out := append([]string{"mcp", "run", "--name", name, "--", command}, args...)
	return agate, out
}

// unwrap returns the original command and args of a server wrap
// rewrote (a program named agate..., run as "mcp run ... --"); ok is
// false when it is not one.
func unwrap(command string, args []string) (orig string, origArgs []string, ok bool) {
	if !strings.HasPrefix(filepath.Base(command), "agate") {
		return "", nil, false
	}
	if len(args) < 4 || args[0] != "mcp" || args[1] != "run" {
		return "", nil, false
	}
	for i := 2; i < len(args); i++ {
		if args[i] == "--" {
			rest := args[i+1:]
			if len(rest) == 0 || rest[0] == "" {
				return "", nil, false
			}
			return rest[0], append([]string{}, rest[1:]...), true
		}
	}
	return "", nil, false
}
