package cli

import (
	"os"
)

// noDisplay says why the tray app cannot start here, or "" when it can.
func noDisplay() string {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return "no display (DISPLAY and WAYLAND_DISPLAY are unset)"
	}
	return ""
}
