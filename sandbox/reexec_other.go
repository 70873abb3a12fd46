//go:build !linux

package sandbox

// MaybeReexec returns at once: only Linux's landlock launcher re-executes
// agate. Call it first thing in main on every platform.
func MaybeReexec() {}
