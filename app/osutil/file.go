package osutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// WriteFile replaces path with data so that a reader sees either the old
// file or the whole new one, never a part: it writes a temp file in the
// same folder (mode perm from the start), syncs it, renames it over path
// and syncs the folder. A crash leaves the old file in place. The folder
// is created, mode 0700, when it is missing.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	SyncDir(dir)
	return nil
}

// ReadLimited reads at most limit bytes of a file, and one more, so that
// the caller notices a file that is too big (and refuses it whole).
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// ReadPrivate reads one of agate's own files, as ReadLimited does, after
// checking that its folder is private to this user (CheckDir): a file in
// a folder someone else could change is not read, and the error wraps
// ErrNotPrivate. A folder that is not there reads as a missing file (the
// error wraps fs.ErrNotExist).
func ReadPrivate(path string, limit int64) ([]byte, error) {
	if err := CheckDir(filepath.Dir(path), false); err != nil {
		return nil, err
	}
	return ReadLimited(path, limit)
}

// Backup writes data to PATH.agate-backup-YYYYMMDD-HHMMSS (with -2, -3,
// ... when that exists), with mode, and returns its name. It never
// replaces a file.
func Backup(path string, data []byte, mode os.FileMode) (string, error) {
	base := path + ".agate-backup-" + time.Now().Format("20060102-150405")
	for i := 1; i < 100; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: too many backups this second", path)
}
