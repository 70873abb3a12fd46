package cli

import "io/fs"

// ownedByRoot cannot be told on Windows: no runner counts as root's.
func ownedByRoot(fs.FileInfo) bool { return false }
