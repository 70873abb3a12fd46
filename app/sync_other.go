//go:build !linux

package app

import "os"

// syncData makes a file's appended data durable.
func syncData(f *os.File) error { return f.Sync() }
