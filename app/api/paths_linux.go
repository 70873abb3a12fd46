package api

import (
	"os"
	"path/filepath"
)

// stateDir is $XDG_STATE_HOME/agate, or ~/.local/state/agate.
func stateDir() (string, error) {
	if s := os.Getenv("XDG_STATE_HOME"); s != "" {
		return filepath.Join(s, "agate"), nil
	}
	h, err := HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".local", "state", "agate"), nil
}
