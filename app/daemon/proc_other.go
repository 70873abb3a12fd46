//go:build !linux && !darwin

package daemon

// parentPID is 0 where agate does not read the process table: a proxy
// registers, but agents' hooks do not step aside for it (they ask too).
func parentPID(pid int) int { return 0 }

// processName is "" where agate does not read the process table.
func processName(pid int) string { return "" }

// processAlive reports whether pid runs; the lease's connection says so
// where it cannot be asked.
func processAlive(pid int) bool { return pid > 0 }

// genuineAgate cannot tell on this system: no process is taken for
// agate's own.
func genuineAgate(pid int) string { return "this system does not say what program a process runs" }
