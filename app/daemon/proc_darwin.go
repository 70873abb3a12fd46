package daemon

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// parentPID is pid's parent process, from the kernel's process table
// (sysctl kern.proc.pid), 0 when it cannot be told.
func parentPID(pid int) int {
	if pid <= 0 {
		return 0
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp == nil || int(kp.Proc.P_pid) != pid {
		return 0
	}
	return int(kp.Eproc.Ppid)
}

// processName is pid's name as the kernel keeps it (p_comm, at most 16
// bytes), "" when it cannot be told.
func processName(pid int) string {
	if pid <= 0 {
		return ""
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp == nil || int(kp.Proc.P_pid) != pid {
		return ""
	}
	return unix.ByteSliceToString(kp.Proc.P_comm[:])
}

// processAlive reports whether pid runs.
func processAlive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) != syscall.ESRCH
}

// genuineAgate cannot tell on macOS yet: no process is taken for agate's
// own.
func genuineAgate(pid int) string { return "agate does not yet check a process's program on macOS" }
