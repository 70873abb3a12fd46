package clients

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The clients Install knows.
const (
	ClaudeCode    = "claude-code"
	ClaudeDesktop = "claude-desktop"
	Cursor        = "cursor"
	Gemini        = "gemini"
	Codex         = "codex"
	VSCode        = "vscode"
	Copilot       = "copilot"
	OpenCode      = "opencode"
)

// ErrUnknownClient means a client Install does not know.
var ErrUnknownClient = errors.New("unknown MCP client")

// Clients lists the clients Install knows, sorted.
func Clients() []string {
	c := []string{ClaudeCode, ClaudeDesktop, Cursor, Gemini, Codex, VSCode, Copilot, OpenCode}
	sort.Strings(c)
	return c
}

// Format is how a file is written.
type Format int

// The formats of the clients' files.
const (
	JSON Format = iota // JSON, with comments and trailing commas where the file has them
	TOML               // Codex's config.toml
)

// Target is one file of a client's, and where its servers are in it.
type Target struct {
	Client string
	File   string
	Format Format
	// Roots are the key paths of the objects (tables) whose members are
	// servers, by name; "*" stands for any member ("projects", "*",
	// "mcpServers" in ~/.claude.json).
	Roots [][]string
	// ArgvCommand says a server's "command" may be one array, the
	// program and then its arguments (OpenCode's).
	ArgvCommand bool
}

// Targets returns the files of client that hold its servers: the user's
// files, or with project set (an absolute folder) that project's.
// home is the user's home folder; env looks up CODEX_HOME and
// XDG_CONFIG_HOME (nil: the process's environment).
func Targets(client, home, project string, env func(string) string) ([]Target, error) {
	if env == nil {
		env = os.Getenv
	}
	if home == "" {
		return nil, errors.New("mcp clients: no home folder")
	}
	if project != "" && !filepath.IsAbs(project) {
		return nil, fmt.Errorf("mcp clients: project %q is not an absolute path", project)
	}
	mcpServers := [][]string{{"mcpServers"}}
	switch client {
	case ClaudeCode:
		if project != "" {
			return []Target{
				{Client: client, File: filepath.Join(project, ".mcp.json"), Roots: mcpServers},
				{Client: client, File: filepath.Join(home, ".claude.json"), Roots: [][]string{{"projects", project, "mcpServers"}}},
			}, nil
		}
		return []Target{{Client: client, File: filepath.Join(home, ".claude.json"),
			Roots: [][]string{{"mcpServers"}, {"projects", "*", "mcpServers"}}}}, nil
	case ClaudeDesktop:
		if project != "" {
			return nil, errors.New("mcp clients: Claude Desktop has no project config")
		}
		return []Target{{Client: client, File: claudeDesktopConfig(home, env), Roots: mcpServers}}, nil
	case Cursor:
		dir := home
		if project != "" {
			dir = project
		}
		return []Target{{Client: client, File: filepath.Join(dir, ".cursor", "mcp.json"), Roots: mcpServers}}, nil
	case Gemini:
		dir := home
		if project != "" {
			dir = project
		}
		return []Target{{Client: client, File: filepath.Join(dir, ".gemini", "settings.json"), Roots: mcpServers}}, nil
	case VSCode:
		if project != "" {
			return []Target{{Client: client, File: filepath.Join(project, ".vscode", "mcp.json"), Roots: [][]string{{"servers"}}}}, nil
		}
		return []Target{{Client: client, File: vscodeUserConfig(home, env), Roots: [][]string{{"servers"}}}}, nil
	case Copilot:
		// ~/.copilot/mcp-config.json ($COPILOT_HOME): {"mcpServers":
		// {NAME: {"type": "local", "command", "args", "tools"}}}.
		if project != "" {
			return nil, errors.New("mcp clients: Copilot CLI reads its servers from ~/.copilot/mcp-config.json alone")
		}
		dir := env("COPILOT_HOME")
		if dir == "" {
			dir = filepath.Join(home, ".copilot")
		} else if abs, err := filepath.Abs(dir); err != nil {
			return nil, fmt.Errorf("COPILOT_HOME %q: %w", dir, err)
		} else {
			dir = abs
		}
		return []Target{{Client: client, File: filepath.Join(dir, "mcp-config.json"), Roots: mcpServers}}, nil
	case OpenCode:
		// opencode.json or opencode.jsonc in ~/.config/opencode/, or a
		// project's own: {"mcp": {NAME: {"type": "local", "command":
		// [PROGRAM, ARGS...]}}}. OpenCode reads both names; each one there
		// is a target, opencode.json when neither is.
		dir := filepath.Join(configHome(home, env), "opencode")
		if project != "" {
			dir = project
		}
		var out []Target
		for _, name := range []string{"opencode.json", "opencode.jsonc"} {
			f := filepath.Join(dir, name)
			if _, err := os.Lstat(f); err == nil {
				out = append(out, Target{Client: client, File: f, Roots: [][]string{{"mcp"}}, ArgvCommand: true})
			}
		}
		if len(out) == 0 {
			out = []Target{{Client: client, File: filepath.Join(dir, "opencode.json"), Roots: [][]string{{"mcp"}}, ArgvCommand: true}}
		}
		return out, nil
	case Codex:
		if project != "" {
			return []Target{{Client: client, File: filepath.Join(project, ".codex", "config.toml"), Format: TOML, Roots: [][]string{{"mcp_servers"}}}}, nil
		}
		dir := env("CODEX_HOME")
		if dir == "" {
			dir = filepath.Join(home, ".codex")
		} else if abs, err := filepath.Abs(dir); err != nil {
			return nil, fmt.Errorf("CODEX_HOME %q: %w", dir, err)
		} else {
			dir = abs // as Codex and agate's hooks read it
		}
		return []Target{{Client: client, File: filepath.Join(dir, "config.toml"), Format: TOML, Roots: [][]string{{"mcp_servers"}}}}, nil
	}
	return nil, fmt.Errorf("%w %q (want %s)", ErrUnknownClient, client, strings.Join(Clients(), ", "))
}

// configHome is $XDG_CONFIG_HOME, else ~/.config.
func configHome(home string, env func(string) string) string {
	if d := env("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(home, ".config")
}
