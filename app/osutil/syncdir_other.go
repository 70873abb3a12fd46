//go:build !unix

package osutil

// SyncDir does nothing: Windows cannot open a folder to flush it.
func SyncDir(string) {}
