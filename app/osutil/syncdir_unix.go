//go:build unix

package osutil

import "os"

// SyncDir flushes a folder's entries, so that a rename or a new file in
// it survives a crash.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
