package cli

// noDisplay says why the tray app cannot start here, or "" when it can:
// on macOS a logged-in session always has a window server.
func noDisplay() string { return "" }
