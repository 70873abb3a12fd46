package mcp

import (
	"fmt"
	"path/filepath"
	"strings"
)

// ValidName reports whether name can name a server: 1 to 64 letters,
// digits, '_', '-' and '.', without "__" (which would make
// "mcp__a__b__c" name two servers' tools) and not starting or ending
// with '_'.
func ValidName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("a server name is 1 to 64 characters, not %d", len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(isAlnum(c) || c == '-' || c == '.') {
			return fmt.Errorf("server name %q: only letters, digits, '_', '-' and '.'", name)
		}
	}
	if strings.Contains(name, "__") || name[0] == '_' || name[len(name)-1] == '_' {
		return fmt.Errorf("server name %q: no \"__\", and no '_' at either end", name)
	}
	return nil
}

// launchers run the program or package named by a later argument.
var launchers = map[string]bool{
	"npx": true, "node": true, "bunx": true, "bun": true, "deno": true, "pnpm": true, "pnpx": true, "yarn": true,
	"uvx": true, "uv": true, "pipx": true, "python": true, "python3": true, "docker": true, "podman": true,
	"env": true, "go": true, "cargo": true, "ruby": true, "java": true, "dotnet": true,
}

// launcherWords are subcommands of a launcher that come before the
// program: "uv run", "pnpm dlx", "docker run", "go run".
var launcherWords = map[string]bool{
	"run": true, "dlx": true, "exec": true, "x": true, "tool": true, "-m": true, "-y": true, "--yes": true, "-i": true, "--rm": true,
}

// DefaultName derives a server's name from its command line when none is
// given: the program, or the package a launcher (npx, uvx, node, docker
// run, ...) runs, without its scope, version, extension and the usual
// "mcp-server-", "server-" and "-mcp" affixes:
// "npx -y @modelcontextprotocol/server-filesystem /tmp" is "filesystem",
// "uvx mcp-server-git" is "git". It is always a ValidName.
func DefaultName(command []string) string {
	name := ""
	for i, a := range command {
		base := filepath.Base(a)
		if i < len(command)-1 && (launchers[strings.TrimSuffix(base, ".exe")] || launcherWords[a]) {
			continue
		}
		if strings.HasPrefix(a, "-") && i < len(command)-1 {
			continue
		}
		name = a
		break
	}
	if name == "" && len(command) > 0 {
		name = command[0]
	}
	// A package: "@scope/pkg@1.2", "ghcr.io/owner/image:tag", "pkg==1.0";
	// a path's last element only (its folders may hold '@' or ':').
	if scoped, ok := strings.CutPrefix(name, "@"); ok && strings.Count(scoped, "/") == 1 {
		name = scoped[strings.IndexByte(scoped, '/')+1:]
	} else {
		name = filepath.Base(strings.TrimRight(name, "/"))
	}
	if i := strings.IndexAny(name, "@=:"); i > 0 {
		name = name[:i]
	}
	for _, ext := range []string{".exe", ".js", ".mjs", ".cjs", ".ts", ".py", ".sh"} {
		name = strings.TrimSuffix(name, ext)
	}
	lower := strings.ToLower(name)
	for _, p := range []string{"mcp-server-", "mcp_server_", "server-", "mcp-"} {
		if strings.HasPrefix(lower, p) && len(lower) > len(p) {
			lower = lower[len(p):]
			break
		}
	}
	for _, s := range []string{"-mcp-server", "-mcp", "_mcp", "-server"} {
		if strings.HasSuffix(lower, s) && len(lower) > len(s) {
			lower = lower[:len(lower)-len(s)]
			break
		}
	}
	// Keep what ValidName takes.
	var b strings.Builder
	for i := 0; i < len(lower) && b.Len() < 64; i++ {
		c := lower[i]
		if !(isAlnum(c) || c == '-' || c == '.') {
			c = '-'
		}
		if c == '_' && b.Len() > 0 && strings.HasSuffix(b.String(), "_") {
			continue
		}
		b.WriteByte(c)
	}
	out := strings.Trim(b.String(), "_")
	if ValidName(out) != nil {
		return "server"
	}
	return out
}
