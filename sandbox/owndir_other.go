//go:build !unix

package sandbox

import "os"

// ownDir reports whether path is a directory (not a symlink to one).
func ownDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}
