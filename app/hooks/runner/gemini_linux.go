package runner

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// geminiHeadless finds the Gemini CLI process among the hook's ancestors
// (Gemini runs the hook's command with bash -c, which may exec it) and
// says why it runs headless, or "" when it runs with a person at its
// terminal, or when no ancestor is Gemini CLI (the hook was run by hand,
// or by a test): then the payload's word stands.
func geminiHeadless() string {
	pid := os.Getppid()
	for range 4 {
		if pid <= 1 {
			return ""
		}
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			return ""
		}
		if args, ok := geminiArgs(strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")); ok {
			return readGeminiProc(pid, args).headless()
		}
		pid = parentOf(pid)
	}
	return ""
}

func readGeminiProc(pid int, args []string) *geminiProc {
	dir := "/proc/" + strconv.Itoa(pid)
	g := &geminiProc{args: args, env: map[string]string{}}
	env, err := os.ReadFile(dir + "/environ")
	if err != nil {
		g.unreadable, g.unreadableAt = true, "its environment: "+err.Error()
		return g
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			g.env[k] = v
		}
	}
	var errs []string
	g.stdinTTY, errs = isTTY(dir+"/fd/0", errs)
	g.stdoutTTY, errs = isTTY(dir+"/fd/1", errs)
	if len(errs) > 0 {
		g.unreadable, g.unreadableAt = true, strings.Join(errs, "; ")
	}
	return g
}

// isTTY reports whether an open file of another process is a terminal,
// from where its link points: a pseudo-terminal or a console.
func isTTY(link string, errs []string) (bool, []string) {
	target, err := os.Readlink(link)
	if err != nil {
		return false, append(errs, err.Error())
	}
	return strings.HasPrefix(target, "/dev/pts/") || strings.HasPrefix(target, "/dev/tty") || target == "/dev/console", errs
}

// parentOf reads a process's parent from /proc/PID/stat, or 0.
func parentOf(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: the fields
	// after its last ')' are state, ppid, ...
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}
