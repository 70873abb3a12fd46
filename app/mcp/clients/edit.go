package clients

import (
	"bytes"
	"fmt"
	"path/filepath"
	"unicode/utf8"

	"github.com/agatehq/agate/app/osutil"
)

// maxSize bounds a client's file: Claude Code's ~/.claude.json keeps
// every project's history and grows past 16 MiB in long use.
const maxSize = 64 << 20

// Options are what Install needs.
type Options struct {
	// Agate is the absolute path of the agate binary the clients run.
	Agate string
	// Leave, when set, says why a remote server is to stay as it is
	// ("" to run it through agate): one that signs in with OAuth, which
	// only the client can do.
	Leave func(Server) string
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
	// Remote are the servers reached over HTTP or SSE that do not run
	// through agate, each with Why when Install left it so.
	Remote []Server
	// Skipped are the servers agate could not read, each with Why.
	Skipped []Server
}

// Install rewrites t's stdio servers to run through agate.
func Install(t Target, o Options) (Result, error) {
	if !filepath.IsAbs(o.Agate) {
		return Result{File: t.File}, fmt.Errorf("mcp clients: the agate binary %q is not an absolute path", o.Agate)
	}
	if !utf8.ValidString(o.Agate) {
		// Written into a config, it would name another file.
		return Result{File: t.File}, fmt.Errorf("mcp clients: the agate binary's path %q is not UTF-8", o.Agate)
	}
	return editTarget(t, o, false)
}

// Uninstall gives t's servers that run through agate their own command
// and args back.
func Uninstall(t Target) (Result, error) { return editTarget(t, Options{}, true) }

// Inspect reads t and says, writing nothing, which of its servers run
// through agate (Proxied), which stdio servers would be rewritten by
// Install (Rewritten), and which it cannot gate (Remote, Skipped).
func Inspect(t Target) (Result, error) {
	res := Result{File: t.File}
	data, _, err := osutil.ReadRegular(t.File, maxSize)
	if err != nil || data == nil {
		return res, err
	}
	res.Exists = true
	// An uninstall, not written: the servers it would give back their
	// own command run through agate now, the others do not.
	var r Result
	switch t.Format {
	case TOML:
		_, r, err = editTOML(data, t, Options{}, true)
	default:
		_, r, err = editJSON(data, t, Options{}, true)
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w", t.File, err)
	}
	res.Proxied, res.Rewritten, res.Remote, res.Skipped = r.Rewritten, r.Proxied, r.Remote, r.Skipped
	return res, nil
}

func editTarget(t Target, o Options, undo bool) (Result, error) {
	res := Result{File: t.File}
	ed, err := osutil.EditFile(t.File, maxSize, func(data []byte) ([]byte, bool, error) {
		if data == nil {
			return nil, false, nil // no file: no servers
		}
		res.Exists = true
		var out []byte
		var r Result
		var err error
		switch t.Format {
		case TOML:
			out, r, err = editTOML(data, t, o, undo)
		default:
			out, r, err = editJSON(data, t, o, undo)
		}
		if err != nil {
			return nil, false, err
		}
		res.Rewritten, res.Proxied, res.Remote, res.Skipped = r.Rewritten, r.Proxied, r.Remote, r.Skipped
		return out, !bytes.Equal(out, data), nil
	})
	res.Backup, res.Changed = ed.Backup, ed.Changed
	return res, err
}
