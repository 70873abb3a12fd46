//go:build linux

package cli

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agatehq/agate/app/internal/apptest"
)

// TestScopedTokenAsAnotherUser runs the real daemon as the person and the
// real agate-hook as another uid (a CI runner's user) with a scoped
// token: a read in the token's project is allowed, a write asks and,
// with nobody attached, is denied (never handed to the agent's prompt),
// a call outside the project is denied, the routes an agent does not need
// are refused, every line it causes names it, another user cannot use it,
// and once revoked it is refused.
func TestScopedTokenAsAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the token's caller runs as another uid")
	}
	const caller = 65534
	cli, hook := buildCLI(t), apptest.Binary(t, "agate-hook")
	base, err := os.MkdirTemp("", "agate-tokens-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	proj, other, state := filepath.Join(base, "proj"), filepath.Join(base, "other"), filepath.Join(base, "state")
	for _, d := range []string{proj, other} {
		os.Mkdir(d, 0o755)
	}
	os.WriteFile(filepath.Join(proj, "README"), []byte("hi\n"), 0o644)
	sock, tokSock := filepath.Join(state, "run", "agate.sock"), filepath.Join(base, "tok", "tokens.sock")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "AGATE_STATE_DIR=" + state, "AGATE_CONFIG=" + filepath.Join(state, "config.toml"),
		"AGATE_SOCKET=" + sock, "AGATE_TOKEN_SOCKET=" + tokSock, "TMPDIR=" + base}
	person := func(args ...string) result {
		cmd := exec.Command(cli, args...)
		cmd.Env = env
		return run(t, cmd, "")
	}
	r := person("tokens", "add", "ci", "--user", "65534", "--project", proj, "--mode", "manual", "--expires", "1h")
	var secret string
	for _, line := range strings.Split(r.stdout, "\n") {
		if s := strings.TrimSpace(line); strings.HasPrefix(s, "agt_") {
			secret = s
		}
	}
	if r.code != 0 || secret == "" || !strings.Contains(r.stdout, tokSock) {
		t.Fatalf("tokens add: %+v", r)
	}
	if data, _ := os.ReadFile(filepath.Join(state, "tokens.json")); strings.Contains(string(data), secret) {
		t.Fatal("the secret is stored")
	}
	if l := person("tokens"); !strings.Contains(l.stdout, "ci") || !strings.Contains(l.stdout, "65534") || strings.Contains(l.stdout, secret) {
		t.Errorf("tokens: %+v", l)
	}

	daemon := exec.Command(cli, "serve")
	daemon.Env = env
	var serveLog strings.Builder
	daemon.Stdout, daemon.Stderr = &serveLog, &serveLog
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Kill(); daemon.Wait() })
	waitFor(t, "the tokens' socket", func() bool {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
		}
		_, serr := os.Stat(tokSock)
		return err == nil && serr == nil
	})

	callerEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "AGATE_SOCKET=" + tokSock, "AGATE_TOKEN=" + secret, "TMPDIR=" + os.TempDir()}
	hookAs := func(uid int, env []string, cwd, command string) string {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"session_id": "ci-1", "transcript_path": filepath.Join(base, "t.jsonl"), "cwd": cwd,
			"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]any{"command": command}, "tool_use_id": "toolu_1"})
		cmd := exec.Command(hook, "hook", "claude-code")
		cmd.Env, cmd.Dir = env, cwd
		if uid != 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
		}
		r := run(t, cmd, string(b))
		return r.stdout + r.stderr
	}
	const allow, ask = `"permissionDecision":"allow"`, `"permissionDecision":"ask"`
	if out := hookAs(caller, callerEnv, proj, "cat README"); !strings.Contains(out, allow) {
		t.Fatalf("a read in the project: %s\n%s", out, serveLog.String())
	}
	if out := hookAs(caller, callerEnv, proj, "touch new.txt"); strings.Contains(out, allow) || strings.Contains(out, ask) || !strings.Contains(out, "nobody can be asked") {
		t.Errorf("a write in manual mode, nobody attached: %s", out)
	}
	if out := hookAs(caller, callerEnv, other, "cat x"); strings.Contains(out, allow) || !strings.Contains(out, `token \"ci\" is for`) {
		t.Errorf("a call outside the project: %s", out)
	}
	// The routes an agent does not need.
	st := exec.Command(cli, "status")
	st.Env = callerEnv
	st.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: caller, Gid: caller}}
	if r := run(t, st, ""); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "reaches only decide") {
		t.Errorf("status with a token: %+v", r)
	}
	// Another token, and another user with this one.
	bad := append(append([]string{}, callerEnv[:3]...), "AGATE_TOKEN="+secret[:len(secret)-2]+"xx", "TMPDIR="+os.TempDir())
	if out := hookAs(caller, bad, proj, "cat README"); strings.Contains(out, allow) {
		t.Errorf("a wrong token: %s", out)
	}
	if out := hookAs(0, callerEnv, proj, "cat README"); strings.Contains(out, allow) {
		t.Errorf("another user with the token: %s", out)
	}
	// Every line it caused names it.
	audit, _ := os.ReadFile(filepath.Join(state, "audit.jsonl"))
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(audit)), "\n") {
		if strings.Contains(line, `"agent":"token:ci"`) {
			n++
			if !strings.Contains(line, `"token":"ci"`) {
				t.Errorf("a line without the token: %s", line)
			}
		}
	}
	if n < 3 {
		t.Errorf("%d audit lines of the token:\n%s", n, audit)
	}
	// Revoked.
	if r := person("tokens", "remove", "ci"); r.code != 0 {
		t.Fatalf("tokens remove: %+v", r)
	}
	if out := hookAs(caller, callerEnv, proj, "cat README"); strings.Contains(out, allow) {
		t.Errorf("a revoked token: %s", out)
	}
}
