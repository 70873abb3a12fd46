//go:build !unix

package sandbox

import "os"

// execInPlace cannot replace the process on this OS.
func execInPlace(string, []string, []string, string, []*os.File) error { return ErrNoExec }
