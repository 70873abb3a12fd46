//go:build unix

package undo

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agatehq/agate/app/osutil"
)

// supported says this platform keeps copies.
const supported = true

// deviceOf returns the device a path is on.
func deviceOf(p string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return 0, err
	}
	return uint64(st.Dev), nil
}

func statOf(info fs.FileInfo) *syscall.Stat_t {
	st, _ := info.Sys().(*syscall.Stat_t)
	return st
}

// soleLink reports whether a file has no other name than the one it was
// seen by, and lies on device dev: a hard link to it then holds what it
// holds for as long as nothing writes it in place.
func soleLink(info fs.FileInfo, dev uint64) bool {
	st := statOf(info)
	return st != nil && st.Nlink == 1 && uint64(st.Dev) == dev
}

// hardLink links blob to what is at p now, which the walk saw as the
// regular file info, and refuses (removing the link) when what it linked
// is not that file. What it linked is checked again when the entry is
// sealed and when it is restored, where a kept file that is not a
// regular file of the size and time the walk saw is never put back.
func hardLink(p, blob string, info fs.FileInfo) error {
	if err := unix.Linkat(unix.AT_FDCWD, p, unix.AT_FDCWD, blob, 0); err != nil {
		return err
	}
	// What was linked must be the file the walk measured, not one put at
	// p since (the caller then copies what is there now).
	if now, err := os.Lstat(blob); err != nil || !os.SameFile(now, info) || now.Size() != info.Size() {
		os.Remove(blob)
		return fmt.Errorf("%s changed since it was measured", p)
	}
	return nil
}

// openBlob opens a kept file for reading, never through a link.
func openBlob(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return f, nil
}

// cloneOrCopy makes blob a copy of the regular file at p (the file info
// saw): a clone where the filesystem can, else a copy of at most limit
// bytes, synced. It returns how and the bytes kept.
func cloneOrCopy(p, blob string, info fs.FileInfo, limit int64) (how string, size int64, err error) {
	src, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", 0, err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return "", 0, err
	}
	if !st.Mode().IsRegular() || !os.SameFile(st, info) {
		return "", 0, fmt.Errorf("%s changed while it was kept", p)
	}
	dst, err := os.OpenFile(blob, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", 0, err
	}
	defer func() {
		if cerr := dst.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			os.Remove(blob)
		}
	}()
	how, size = "clone", st.Size()
	if clone(dst, src) != nil {
		how = "copy"
		if size, err = io.Copy(dst, io.LimitReader(src, limit+1)); err != nil {
			return "", 0, err
		}
		if size > limit {
			return "", 0, fmt.Errorf("%s grew past [undo] max_call_mb while it was kept: %w", p, ErrLimit)
		}
	}
	// The copy carries the file's time, as a hard link would: the seal
	// checks it.
	mt := unix.NsecToTimespec(st.ModTime().UnixNano())
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, blob, []unix.Timespec{mt, mt}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return "", 0, err
	}
	if err := dst.Sync(); err != nil {
		return "", 0, err
	}
	return how, size, nil
}

// freeSpace returns the bytes free to an unprivileged user on the disk
// holding dir.
func freeSpace(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

func syncDir(dir string) { osutil.SyncDir(dir) }
