//go:build !unix

package osutil

// FileLimit: Windows has no such limit on handles that matters here.
func FileLimit() (uint64, bool) { return 0, false }
