//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSandboxExecInPlace runs the test binary as a caller that execs the confined
// command in its own place: the status and streams are the command's, and
// with no sandbox the command even has the caller's pid.
func TestSandboxExecInPlace(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		launcher string
		skip     func() error
		code     int
		samePID  bool // the command runs with the helper's own pid
	}{
		{LauncherNone, func() error { return nil }, 7, true},
		{LauncherBwrap, func() error { return (&bwrap{}).check(Options{}) }, 7, false},
		{LauncherLandlock, func() error { return (&landlockLauncher{}).check(Options{}) }, exitHelperNoExec, false},
	}
	for _, tt := range tests {
		t.Run(tt.launcher, func(t *testing.T) {
			if err := tt.skip(); err != nil {
				t.Skip(err)
			}
			cmd := exec.Command(self)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), envExecHelper+"="+tt.launcher)
			cmd.Stdin = strings.NewReader("in\n")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.code {
				t.Fatalf("err %v (stderr %q), want status %d", err, stderr.String(), tt.code)
			}
			if tt.code == exitHelperNoExec {
				return
			}
			if !strings.HasPrefix(stdout.String(), "out ") || !strings.HasSuffix(stdout.String(), "\nin\n") || stderr.String() != "err\n" {
				t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
			}
			if tt.samePID && stdout.String() != fmt.Sprintf("out %d\nin\n", cmd.Process.Pid) {
				t.Errorf("stdout %q: the command did not take the helper's pid %d", stdout.String(), cmd.Process.Pid)
			}
		})
	}
}
