//go:build unix

package cli

import (
	"io/fs"
	"syscall"
)

// ownedByRoot reports whether root owns fi.
func ownedByRoot(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == 0
}
