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
