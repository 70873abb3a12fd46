package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/agatehq/agate/sandbox/sandboxtest"
)

// envExecHelper makes the test binary act as a caller of Prepared.Exec:
// its value is the launcher to use.
const envExecHelper = "AGATE_SANDBOX_TEST_EXEC"

// execHelperScript is what the exec helper runs: it shows its streams,
// its pid and its status.
const execHelperScript = `echo "out $$"; echo err >&2; cat; exit 7`

// envDialHelper makes the test binary dial the unix socket it names and
// exit 0 if it connects, 1 if not.
const envDialHelper = "AGATE_SANDBOX_TEST_DIAL"

// Statuses of the exec helper when Exec returns instead of replacing it.
const (
	exitHelperNoExec = 98
	exitHelperFailed = 99
)

// TestMain lets the test binary be the landlock launcher's re-exec target,
// as agate's main is, and a caller of Prepared.Exec.
func TestMain(m *testing.M) {
	sandboxtest.Main() // a test may run a command under a condition through this binary
	MaybeReexec()
	if l := os.Getenv(envExecHelper); l != "" {
		os.Exit(execHelper(l))
	}
	if addr := os.Getenv(envDialHelper); addr != "" {
		c, err := net.Dial("unix", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		c.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// execHelper prepares the script under launcher l in the current dir and
// execs it; it returns only if Exec does.
func execHelper(l string) int {
	o := Options{Launcher: l, FailClosed: l != LauncherNone, Env: os.Environ()}
	p, err := Prepare(context.Background(), o, []string{"sh", "-c", execHelperScript})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitHelperFailed
	}
	err = p.Exec()
	if errors.Is(err, ErrNoExec) {
		return exitHelperNoExec
	}
	fmt.Fprintln(os.Stderr, err)
	return exitHelperFailed
}
