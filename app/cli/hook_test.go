package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/internal/apptest"
)

// TestHookCmdArgs: `agate hook` with anything but one agent and the
// flags it knows blocks the call (exit 2, nothing on stdout) and asks no
// daemon. The runner's own tests (app/hooks/runner) cover the call.
func TestHookCmdArgs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("AGATE_CONFIG", filepath.Join(dir, "config.toml"))
	t.Setenv("AGATE_STATE_DIR", filepath.Join(dir, "state"))
	in, err := os.ReadFile(filepath.Join(apptest.HooksDir(), "claude-code", "pretooluse-bash.json"))
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "absent.sock")
	for _, args := range [][]string{{}, {"aider"}, {"claude-code", "gemini"}, {"claude-code", "--nope"}, {"-h"}} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), &Env{Stdin: bytes.NewReader(in), Stdout: &out, Stderr: &errb}, append([]string{"hook", "--socket", sock}, args...))
		if code != 2 || out.Len() != 0 {
			t.Errorf("agate hook %v: exit %d, stdout %q; want 2 and nothing", args, code, out.String())
		}
		if strings.Contains(errb.String(), "not running") {
			t.Errorf("agate hook %v asked for the daemon: %s", args, errb.String())
		}
		if len(args) == 1 && args[0] == "-h" {
			for _, agent := range hooks.Agents() {
				if !strings.Contains(errb.String(), agent) {
					t.Errorf("agate hook -h does not name %s: %s", agent, errb.String())
				}
			}
		}
	}
}
