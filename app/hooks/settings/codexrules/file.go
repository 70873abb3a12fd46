package codexrules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agatehq/agate/app/osutil"
)

// ErrNotAgates is returned when the rules file's place holds a file agate
// did not write: it is left alone.
var ErrNotAgates = errors.New("not agate's rules file")

// maxSize bounds the rules file agate reads back.
const maxSize = 1 << 20

// Path is agate's rules file in Codex's folder codexHome.
func Path(codexHome string) string { return filepath.Join(codexHome, "rules", "agate.rules") }

// Write writes data to path atomically (its folder made when missing),
// unless a file agate did not write is there. It reports whether the
// file changed.
func Write(path string, data []byte) (bool, error) {
	old, err := read(path)
	switch {
	case err == nil && bytes.Equal(old, data):
		return false, nil
	case err == nil && !isAgates(old):
		return false, fmt.Errorf("%s: %w: not replacing it (move it, then install again)", path, ErrNotAgates)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("rules folder: %w", err)
	}
	if err := osutil.WriteFile(path, data, 0o600); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}

// Sync rewrites agate's rules file at path with data only when it is
// there already (the person installed it); a missing file stays missing.
// It reports whether the file changed.
func Sync(path string, data []byte) (bool, error) {
	old, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !isAgates(old) {
		return false, fmt.Errorf("%s: %w", path, ErrNotAgates)
	}
	return Write(path, data)
}

// Remove removes agate's rules file; it reports whether there was one. A
// file there that agate did not write stays.
func Remove(path string) (bool, error) {
	old, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !isAgates(old) {
		return false, nil
	}
	if err := os.Remove(path); err != nil {
		return false, fmt.Errorf("remove %s: %w", path, err)
	}
	return true, nil
}

// Installed reports whether agate's rules file is at path.
func Installed(path string) bool {
	data, err := read(path)
	return err == nil && isAgates(data)
}

// read reads a regular file (not through a link: agate writes its own
// file, and never where a link points), up to maxSize.
func read(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: %w", path, ErrNotAgates)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxSize {
		return nil, fmt.Errorf("%s is larger than %d KiB: %w", path, maxSize>>10, ErrNotAgates)
	}
	return data, nil
}

// DefaultPath is agate's rules file in Codex's folder: $CODEX_HOME, else
// ~/.codex.
func DefaultPath() (string, error) {
	if d := os.Getenv("CODEX_HOME"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("CODEX_HOME %q: %w", d, err)
		}
		return Path(abs), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", fmt.Errorf("find Codex's folder: no home folder (%v)", err)
	}
	return Path(filepath.Join(home, ".codex")), nil
}
