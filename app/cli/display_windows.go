package cli

// noDisplay says why the tray app cannot start here, or "" when it can.
func noDisplay() string { return "" }
