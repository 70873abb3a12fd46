package runner

import (
	"os"
	"strconv"
	"strings"
)

// codexProcess finds the Codex process among the hook's ancestors (Codex
// runs the hook with $SHELL -lc, which may exec it; an npm install adds
// node above the native binary) and returns its command line, or why it
// could not.
func codexProcess() (cmdline []string, why string) {
	pid := os.Getppid()
	for range 5 {
		if pid <= 1 {
			break
		}
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			return nil, "agate cannot read the process that runs its hook (" + err.Error() + ")"
		}
		cmdline = strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if _, ok := codexCommand(cmdline); ok {
			return cmdline, ""
		}
		pid = parentOf(pid)
	}
	return nil, "agate finds no codex process above its hook"
}
