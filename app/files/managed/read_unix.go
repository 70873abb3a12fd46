//go:build unix

package managed

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// readAt reads the managed file at path after checking it and every
// folder above it.
func readAt(path string) ([]byte, bool, error) {
	if !filepath.IsAbs(path) {
		return nil, true, unsafef(path, "its place is not an absolute path")
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, fmt.Errorf("managed policy: %w", err)
	}
	if err := checkChain(filepath.Dir(path)); err != nil {
		return nil, true, err
	}
	if err := checkFile(path, fi); err != nil {
		return nil, true, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, true, fmt.Errorf("managed policy: %w", err)
	}
	defer f.Close()
	// What was opened is what was checked.
	ofi, err := f.Stat()
	if err != nil {
		return nil, true, fmt.Errorf("managed policy: %w", err)
	}
	if !os.SameFile(fi, ofi) {
		return nil, true, unsafef(path, "it was replaced while agate read it")
	}
	if err := checkFile(path, ofi); err != nil {
		return nil, true, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, true, fmt.Errorf("managed policy: %w", err)
	}
	if len(data) > MaxSize {
		return nil, true, fmt.Errorf("%s: more than %d bytes", path, MaxSize)
	}
	return data, true, nil
}

// checkFile says why the file fi at path cannot be trusted, or nil.
func checkFile(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return unsafef(path, "it is not a regular file (%s)", fi.Mode().Type())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return unsafef(path, "its owner cannot be read")
	}
	if st.Uid != 0 {
		return unsafef(path, "it is owned by uid %d, not root", st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return unsafef(path, "others than root may write it (mode %04o)", fi.Mode().Perm())
	}
	return nil
}

// checkChain checks dir and every folder above it: each a folder (not a
// link), owned by root, writable by nobody else but under its sticky
// bit.
func checkChain(dir string) error {
	for {
		fi, err := os.Lstat(dir)
		if err != nil {
			return fmt.Errorf("managed policy: %w", err)
		}
		if !fi.IsDir() {
			return unsafef(dir, "a folder above the managed file is not a folder (%s)", fi.Mode().Type())
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return unsafef(dir, "its owner cannot be read")
		}
		if st.Uid != 0 {
			return unsafef(dir, "a folder above the managed file is owned by uid %d, not root", st.Uid)
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return unsafef(dir, "others than root may write a folder above the managed file (mode %04o)", fi.Mode().Perm())
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}
