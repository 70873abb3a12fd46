package daemon

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// parentPID is pid's parent process, 0 when it cannot be told.
func parentPID(pid int) int {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	return statParent(b)
}

// statParent reads the parent's pid from a /proc/PID/stat line, 0 when
// it cannot.
func statParent(b []byte) int {
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil || ppid < 0 {
		return 0
	}
	return ppid
}

// processName is pid's name as the kernel keeps it (its executable's
// base name, at most 15 bytes), "" when it cannot be told.
func processName(pid int) string {
	if pid <= 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return string(bytes.TrimSuffix(b, []byte("\n")))
}

// processAlive reports whether pid runs.
func processAlive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) != syscall.ESRCH
}

// genuineAgate says why process pid is not an agate binary the person
// cannot have changed (its program root's, written by nobody else, and
// named agate...), "" when it is one.
func genuineAgate(pid int) string {
	exe := "/proc/" + strconv.Itoa(pid) + "/exe"
	target, err := os.Readlink(exe)
	if err != nil {
		return "its program cannot be read: " + err.Error()
	}
	fi, err := os.Stat(exe) // the file it runs, whatever was renamed since
	if err != nil {
		return "its program cannot be read: " + err.Error()
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !strings.HasPrefix(filepath.Base(target), "agate"):
		return "it runs " + target + ", not agate"
	case !ok || st.Uid != 0:
		return "it runs " + target + ", which is not root's: one you could have changed"
	case fi.Mode().Perm()&0o022 != 0:
		return "it runs " + target + ", which others than root may write"
	}
	return ""
}
