// Package apptest is for the tests of agate's application packages (the
// daemon, the command line): private paths for one test, agate's real
// binaries built once per test process, the recorded hook payloads in the
// repository's testdata/hooks, and a wait for something asynchronous.
//
// It imports no package of agate's but app/api, so any package's tests
// may use it, the daemon's own included.
package apptest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
)

// Paths returns private paths for one test: config, state and a short
// socket path (unix socket paths are limited to about 100 bytes). With
// config set, the config file is written with it.
func Paths(t testing.TB, config string) api.Paths {
	t.Helper()
	dir := t.TempDir()
	sockDir, err := os.MkdirTemp("", "agt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	p := api.Paths{
		Config: filepath.Join(dir, "config", "config.toml"),
		Grants: filepath.Join(dir, "config", "grants.toml"),
		State:  filepath.Join(dir, "state"),
		Socket: filepath.Join(sockDir, "agate.sock"),
	}
	if config != "" {
		if err := os.MkdirAll(filepath.Dir(p.Config), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p.Config, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// WaitFor polls cond for up to 10 s (reloads are asynchronous; the test
// checks they happen, not how fast).
func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The real binaries, built once per test process: tests of what agents
// run use agate-hook and agate-cli as agents and people start them.
var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// Binary returns the path of agate's binary name ("agate-hook" or
// "agate-cli"), built without cgo the way `make cli` builds it.
// AGATE_E2E_BIN names a folder that already holds them (make test's bin/).
func Binary(t testing.TB, name string) string {
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
			{"agate-hook", "github.com/agatehq/agate/app/hooks/agate-hook", ""},
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

// RemoveBinaries removes the binaries Binary built; TestMain calls it
// after the tests.
func RemoveBinaries() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

type buildError struct {
	name, out string
	err       error
}

func (e *buildError) Error() string { return "build " + e.name + ": " + e.err.Error() + "\n" + e.out }

// RunHookBinary runs the real agate-hook for one hook event, as an agent
// does: the event on stdin, "hook AGENT ARGS..." on the command line, the
// test's environment.
func RunHookBinary(t *testing.T, stdin string, agent string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), Binary(t, "agate-hook"), append([]string{"hook", agent}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// HooksDir is the repository's testdata/hooks: the hook payloads recorded
// from the real agents.
func HooksDir() string { return filepath.Join(Root(), "testdata", "hooks") }

// Root is the repository's root: the folder above this file's (or, built
// with -trimpath, above the test's working folder) that holds go.mod.
func Root() string {
	start, _ := os.Getwd()
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		start = filepath.Dir(file)
	}
	for dir := start; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return start
		}
	}
}

// WithCommand returns a recorded shell payload (a file in HooksDir) with
// its command replaced.
func WithCommand(t *testing.T, file, command string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(HooksDir(), file))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if ti, ok := m["tool_input"].(map[string]any); ok {
		ti["command"] = command
	} else {
		m["command"] = command
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// Setting is a config file, a state folder and a socket where no daemon
// runs, in a temp folder, named by AGATE_CONFIG, AGATE_STATE_DIR and
// AGATE_SOCKET for the rest of the test.
type Setting struct {
	Dir, Config string
}

// UseConfig makes a Setting whose config holds text ("" for no file).
func UseConfig(t testing.TB, text string) *Setting {
	t.Helper()
	s := &Setting{Dir: t.TempDir()}
	s.Config = filepath.Join(s.Dir, "config.toml")
	if text != "" {
		if err := os.WriteFile(s.Config, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("AGATE_CONFIG", s.Config)
	t.Setenv("AGATE_STATE_DIR", filepath.Join(s.Dir, "state"))
	t.Setenv("AGATE_SOCKET", filepath.Join(s.Dir, "no-daemon.sock"))
	return s
}

// ProjectEnv sets every agent's project folder variable
// (CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR, CURSOR_PROJECT_DIR) to dir.
func ProjectEnv(t testing.TB, dir string) {
	for _, v := range []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR"} {
		t.Setenv(v, dir)
	}
}
