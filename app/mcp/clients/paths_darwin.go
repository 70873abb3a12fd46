package clients

import "path/filepath"

// claudeDesktopConfig is Claude Desktop's config on macOS.
func claudeDesktopConfig(home string, env func(string) string) string {
	return filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
}

// vscodeUserConfig is VS Code's user mcp.json on macOS.
func vscodeUserConfig(home string, env func(string) string) string {
	return filepath.Join(home, "Library", "Application Support", "Code", "User", "mcp.json")
}
