//go:build !unix

package osutil

import "os"

// FileID identifies a file across renames; Windows has no inode in
// FileInfo, so a rotation is noticed by the size going down.
func FileID(st os.FileInfo) any { return nil }

// Links returns how many names the file has; 0: not known here.
func Links(st os.FileInfo) uint64 { return 0 }
