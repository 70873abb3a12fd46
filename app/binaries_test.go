package app

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The real binaries, built once per test run: tests of what agents run
// use agate-hook and agate-cli as agents and people start them.
var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// realBinary returns the path of agate's binary name ("agate-hook" or
// "agate-cli"), built without cgo the way `make cli` builds it.
// AGATE_E2E_BIN names a folder that already holds them (make test's bin/).
func realBinary(t testing.TB, name string) string {
	t.Helper()
	if dir := os.Getenv("AGATE_E2E_BIN"); dir != "" {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "agate-bins")
		if binErr != nil {
			return
		}
		os.Chmod(binDir, 0o755)
		for _, b := range []struct{ name, pkg, tags string }{
			{"agate-hook", "github.com/agatehq/agate/app/hookcmd/agate-hook", ""},
			{"agate-cli", "github.com/agatehq/agate", "nogui"},
		} {
			cmd := exec.Command("go", "build", "-tags", b.tags, "-o", filepath.Join(binDir, b.name), b.pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = &buildError{name: b.name, out: string(out), err: err}
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, name)
}

type buildError struct {
	name, out string
	err       error
}

func (e *buildError) Error() string { return "build " + e.name + ": " + e.err.Error() + "\n" + e.out }

// runHookBinary runs the real agate-hook for one hook event, as an agent
// does: the event on stdin, "hook AGENT ARGS..." on the command line, the
// test's environment.
func runHookBinary(t *testing.T, stdin string, agent string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), realBinary(t, "agate-hook"), append([]string{"hook", agent}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}
