package osutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ReadRegular reads the regular file at path, at most max bytes, and its
// permission bits. A file that is not there is nil data, mode 0644 and no
// error; a file that is not regular, or larger than max, is an error
// naming it.
func ReadRegular(path string, max int64) ([]byte, os.FileMode, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, 0, fmt.Errorf("%s is larger than %d MiB: not editing it", path, max>>20)
	}
	if data == nil {
		data = []byte{}
	}
	return data, st.Mode().Perm(), nil
}

// Edited is what EditFile did.
type Edited struct {
	Target  string // the file written: path, or where its link points
	Backup  string // the copy of the file as it was, when it was replaced
	Changed bool   // whether the file was written
}

// EditFile edits a file another program owns (an agent's settings, an
// MCP client's config) in place: edit gets its content (nil when there is
// no file, as ReadRegular reads it, at most max bytes) and returns the new
// content and whether it changed. A link at path is edited where it
// points; a link that leads nowhere is an error, not replaced. If the
// file changes while edit runs (its program saving it), EditFile starts
// over from the new content, three times at most. A file
// that was there is backed up (Backup) before it is replaced atomically
// (WriteFile), its mode kept. Edits by other agate processes wait for
// each other (a lock on the file's folder, where the OS has one). An
// error of edit is returned naming path.
func EditFile(path string, max int64, edit func(data []byte) ([]byte, bool, error)) (Edited, error) {
	res := Edited{Target: path}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		res.Target = r
	} else if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
		// A link to nothing (or through a loop): a file written here
		// would replace the person's link.
		return res, fmt.Errorf("%s is a link that leads nowhere (%v): not replacing it", path, err)
	}
	// Another agate editing the file at once (hooks install and mcp
	// install both edit Codex's config.toml) waits: the check below
	// catches a program that saves meanwhile, not the moment between
	// the check and the rename.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	unlock, err := lockDir(ctx, filepath.Dir(res.Target))
	cancel()
	if err != nil {
		return res, fmt.Errorf("lock %s: %w", filepath.Dir(res.Target), err)
	}
	defer unlock()
	for attempt := 0; ; attempt++ {
		data, mode, err := ReadRegular(res.Target, max)
		if err != nil {
			return res, err
		}
		out, changed, err := edit(data)
		if err != nil {
			return res, fmt.Errorf("%s: %w", path, err)
		}
		if !changed {
			return res, nil
		}
		if now, _, err := ReadRegular(res.Target, max); err != nil {
			return res, err
		} else if !bytes.Equal(now, data) || (now == nil) != (data == nil) {
			if attempt < 3 {
				continue // changed under us: edit the new content
			}
			return res, fmt.Errorf("%s keeps changing while agate edits it: try again", path)
		}
		if data != nil {
			if res.Backup, err = Backup(res.Target, data, mode); err != nil {
				return res, err
			}
		}
		if err := WriteFile(res.Target, out, mode); err != nil {
			return res, err
		}
		res.Changed = true
		return res, nil
	}
}
