//go:build !darwin

package clients

import "path/filepath"

// claudeDesktopConfig is Claude Desktop's config on Linux.
func claudeDesktopConfig(home string, env func(string) string) string {
	return filepath.Join(configHome(home, env), "Claude", "claude_desktop_config.json")
}

// vscodeUserConfig is VS Code's user mcp.json on Linux.
func vscodeUserConfig(home string, env func(string) string) string {
	return filepath.Join(configHome(home, env), "Code", "User", "mcp.json")
}
