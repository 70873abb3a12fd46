//go:build unix

package app

import (
	"os"
	"syscall"
)

// fileID identifies a file across renames (its inode).
func fileID(st os.FileInfo) any {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return st.ModTime()
}
