//go:build unix

package osutil

import "syscall"

// FileLimit is the process's soft limit on open files (Go raises it to
// the hard limit at start).
func FileLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	return uint64(r.Cur), true
}
