//go:build unix

package osutil

import (
	"os"
	"syscall"
)

// FileID identifies a file across renames (its inode), so that a reader
// following a log notices that it was rotated.
func FileID(st os.FileInfo) any {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return st.ModTime()
}

// Links returns how many names the file has (its hard links); 0 where
// that is not known.
func Links(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 0
}
