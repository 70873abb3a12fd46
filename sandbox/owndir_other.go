//go:build !unix

package sandbox

import "os"

// ownDir reports whether path is a directory (not a symlink to one).
func ownDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// closedToOthers reports true: this OS gives no owner or mode to check
// (the container launchers' folder is private by its place, the user's
// temp folder).
func closedToOthers(os.FileInfo) bool { return true }

// unreadable reports true, as closedToOthers.
func unreadable(os.FileInfo) bool { return true }
