package api

import "path/filepath"

// stateDir is ~/Library/Application Support/agate/state.
func stateDir() (string, error) {
	h, err := HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "Library", "Application Support", "agate", "state"), nil
}
