//go:build !linux

package osutil

import "os"

// SyncData makes a file's appended data durable.
func SyncData(f *os.File) error { return f.Sync() }
