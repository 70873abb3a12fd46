package runner

import (
	"os"
	"strconv"
	"strings"
)

// codexHeadless finds the Codex process among the hook's ancestors
// (Codex runs the hook with $SHELL -lc, which may exec it; an npm
// install adds node above the native binary) and says why it runs
// headless, or "" when a person is at its side.
func codexHeadless() string {
	pid := os.Getppid()
	for range 5 {
		if pid <= 1 {
			break
		}
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			return "agate cannot read the process that runs its hook (" + err.Error() + "), so it cannot tell whether a person is at codex's prompt"
		}
		if sub, ok := codexCommand(strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")); ok {
			return codexHeadlessSub(sub)
		}
		pid = parentOf(pid)
	}
	return "agate finds no codex process above its hook, so it cannot tell whether a person is at codex's prompt"
}
