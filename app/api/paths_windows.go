package api

import (
	"os"
	"path/filepath"
)

// stateDir is %LocalAppData%\agate.
func stateDir() (string, error) {
	if s := os.Getenv("LocalAppData"); s != "" {
		return filepath.Join(s, "agate"), nil
	}
	h, err := HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "AppData", "Local", "agate"), nil
}
