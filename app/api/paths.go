package api

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Paths are the files agate reads and writes. Every one can be moved by an
// environment variable, which is how tests and a second instance keep apart.
type Paths struct {
	Config string // config.toml: --config, AGATE_CONFIG, or <user config dir>/agate/config.toml
	Grants string // the "always" grants, beside the config: grants.toml
	State  string // the state folder (audit log, key store): AGATE_STATE_DIR or the platform's
	Socket string // the daemon's socket: --socket, AGATE_SOCKET, or <runtime dir>/agate/agate.sock
	// TokenSocket is the socket scoped tokens are used on (`agate tokens
	// add`): AGATE_TOKEN_SOCKET, or <temp dir>/agate-UID/tokens.sock, a
	// folder other users can reach (the person's own runtime folder is
	// theirs alone).
	TokenSocket string
}

// ConfigDir is the folder holding config.toml, the one the watcher watches.
func (p Paths) ConfigDir() string { return filepath.Dir(p.Config) }

// AuditLog is the path of the current audit log file.
func (p Paths) AuditLog() string { return filepath.Join(p.State, "audit.jsonl") }

// KeyStore is the path of the sealed key store.
func (p Paths) KeyStore() string { return filepath.Join(p.State, "keys.json") }

// ResolvePaths works out the paths from the flags (empty when not given)
// and the environment.
func ResolvePaths(configFlag, socketFlag string) (Paths, error) {
	var p Paths
	switch {
	case configFlag != "":
		p.Config = configFlag
	case os.Getenv("AGATE_CONFIG") != "":
		p.Config = os.Getenv("AGATE_CONFIG")
	default:
		dir, err := os.UserConfigDir()
		if err != nil {
			return p, fmt.Errorf("find the config folder: %w (set AGATE_CONFIG)", err)
		}
		p.Config = filepath.Join(dir, "agate", "config.toml")
	}
	abs, err := filepath.Abs(p.Config)
	if err != nil {
		return p, fmt.Errorf("config path %q: %w", p.Config, err)
	}
	p.Config = abs
	p.Grants = filepath.Join(p.ConfigDir(), "grants.toml")

	if s := os.Getenv("AGATE_STATE_DIR"); s != "" {
		p.State = s
	} else {
		s, err := stateDir()
		if err != nil {
			return p, fmt.Errorf("find the state folder: %w (set AGATE_STATE_DIR)", err)
		}
		p.State = s
	}
	if p.State, err = filepath.Abs(p.State); err != nil {
		return p, fmt.Errorf("state path: %w", err)
	}

	switch {
	case socketFlag != "":
		p.Socket = socketFlag
	case os.Getenv("AGATE_SOCKET") != "":
		p.Socket = os.Getenv("AGATE_SOCKET")
	case os.Getenv("XDG_RUNTIME_DIR") != "":
		p.Socket = filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "agate", "agate.sock")
	default:
		p.Socket = filepath.Join(p.State, "run", "agate.sock")
	}
	if p.Socket, err = filepath.Abs(p.Socket); err != nil {
		return p, fmt.Errorf("socket path: %w", err)
	}
	p.TokenSocket = os.Getenv("AGATE_TOKEN_SOCKET")
	if p.TokenSocket == "" {
		p.TokenSocket = filepath.Join(os.TempDir(), fmt.Sprintf("agate-%d", os.Getuid()), "tokens.sock")
	}
	if p.TokenSocket, err = filepath.Abs(p.TokenSocket); err != nil {
		return p, fmt.Errorf("tokens' socket path: %w", err)
	}
	return p, nil
}

// HomeDir returns the person's home folder.
func HomeDir() (string, error) {
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if h == "" {
		return "", errors.New("no home folder")
	}
	return h, nil
}

// SiblingBinary returns the first of names that is an executable file in
// the same folder as the running binary ("agate-hook", "agate-cli"): the
// builds of agate installed side by side.
func SiblingBinary(names ...string) (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	ext := ""
	if runtime.GOOS == "windows" {
		ext = ".exe"
	}
	for _, name := range names {
		p := filepath.Join(filepath.Dir(exe), name+ext)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}
