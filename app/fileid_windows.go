package app

import "os"

// fileID identifies a file across renames; Windows has no inode in
// FileInfo, so a rotation is noticed by the size going down.
func fileID(st os.FileInfo) any { return nil }
