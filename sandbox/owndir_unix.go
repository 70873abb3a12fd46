//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// ownDir reports whether path is a directory (not a symlink to one) that
// this user owns.
func ownDir(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// ownedBySelf reports whether this user owns fi.
func ownedBySelf(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// closedToOthers reports whether fi is this user's, mode 0700.
func closedToOthers(fi os.FileInfo) bool { return ownedBySelf(fi) && fi.Mode().Perm() == 0o700 }

// unreadable reports whether fi is this user's, mode 0000.
func unreadable(fi os.FileInfo) bool { return ownedBySelf(fi) && fi.Mode().Perm() == 0 }
