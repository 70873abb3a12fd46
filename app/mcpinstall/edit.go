package mcpinstall

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

// maxSize bounds a client's file.
const maxSize = 16 << 20

// Options are what Install needs.
type Options struct {
	// Agate is the absolute path of the agate binary the clients run.
	Agate string
}

// Result is what one edit of one file did.
type Result struct {
	File    string
	Exists  bool
	Changed bool
	Backup  string // the copy of the file as it was, when it changed
	// Rewritten are the servers now run through agate (Install), or
	// given back their own command (Uninstall); Proxied those already
	// run through it (Install) or never were (Uninstall).
	Rewritten []Server
	Proxied   []Server
	// Remote are the servers reached over HTTP or SSE: the proxy does
	// not gate them.
	Remote []Server
	// Skipped are the servers agate could not read, each with Why.
	Skipped []Server
}

// Install rewrites t's stdio servers to run through agate.
func Install(t Target, o Options) (Result, error) {
	if !filepath.IsAbs(o.Agate) {
		return Result{File: t.File}, fmt.Errorf("mcpinstall: the agate binary %q is not an absolute path", o.Agate)
	}
	return editTarget(t, o, false)
}

// Uninstall gives t's servers that run through agate their own command
// and args back.
func Uninstall(t Target) (Result, error) { return editTarget(t, Options{}, true) }

func editTarget(t Target, o Options, undo bool) (Result, error) {
	res := Result{File: t.File}
	target := t.File
	if r, err := filepath.EvalSymlinks(t.File); err == nil {
		target = r
	}
	for attempt := 0; ; attempt++ {
		data, mode, err := readFile(target)
		if errors.Is(err, fs.ErrNotExist) {
			return res, nil
		}
		if err != nil {
			return res, err
		}
		res.Exists = true
		var out []byte
		var r Result
		switch t.Format {
		case TOML:
			out, r, err = editTOML(data, t, o, undo)
		default:
			out, r, err = editJSON(data, t, o, undo)
		}
		if err != nil {
			return res, fmt.Errorf("%s: %w", t.File, err)
		}
		res.Rewritten, res.Proxied, res.Remote, res.Skipped = r.Rewritten, r.Proxied, r.Remote, r.Skipped
		if bytes.Equal(out, data) {
			return res, nil
		}
		if now, _, err := readFile(target); err != nil {
			return res, err
		} else if !bytes.Equal(now, data) {
			if attempt < 3 {
				continue // changed under us: edit the new content
			}
			return res, fmt.Errorf("%s keeps changing while agate edits it: try again", t.File)
		}
		if res.Backup, err = osutil.Backup(target, data, mode); err != nil {
			return res, err
		}
		if err := osutil.WriteFile(target, out, mode); err != nil {
			return res, err
		}
		res.Changed = true
		return res, nil
	}
}

// readFile reads a regular file of at most maxSize bytes, and its mode.
func readFile(path string) ([]byte, os.FileMode, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxSize {
		return nil, 0, fmt.Errorf("%s is larger than %d MiB: not editing it", path, maxSize>>20)
	}
	return data, st.Mode().Perm(), nil
}
