package app

import "path/filepath"

// stateDir is ~/Library/Application Support/agate/state.
func stateDir() (string, error) {
	h, err := homeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "Library", "Application Support", "agate", "state"), nil
}
