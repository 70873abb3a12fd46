//go:build !unix

package sandbox

// execInPlace cannot replace the process on this OS.
func execInPlace(string, []string, []string, string) error { return ErrNoExec }
