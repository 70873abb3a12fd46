package daemon

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// status runs the real `agate-cli status --json` against p.
func statusOf(t *testing.T, p api.Paths) *api.Status {
	t.Helper()
	out, err := exec.Command(apptest.Binary(t, "agate-cli"), "status", "--json", "--socket", p.Socket, "--config", p.Config).Output()
	if err != nil {
		t.Fatalf("agate status: %v", err)
	}
	var st api.Status
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("agate status: %v: %s", err, out)
	}
	return &st
}

// decisionOf runs one Bash call through the real hook and returns the
// permissionDecision it printed.
func decisionOf(t *testing.T, d *realDaemon, command string) string {
	t.Helper()
	code, out, errOut := d.hookCall(t, command)
	if code != 0 {
		return "blocked"
	}
	var o struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("hook output %q %q: %v", out, errOut, err)
	}
	return o.HookSpecificOutput.PermissionDecision
}

// TestConfigGoneKeepsProtections: with `hard_deny = ["shell rm*"]` in
// force, removing or emptying config.toml keeps `rm x` denied, says so in
// `agate status`, and never writes the defaults over the file; after a
// restart the daemon starts from the last good copy; `agate config reset`
// is the deliberate way back to the defaults. Deleting grants.toml, the
// opposite case, revokes the grants.
func TestConfigGoneKeepsProtections(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemon processes")
	}
	const strict = "[auto]\nhard_deny = [\"shell rm*\"]\n"
	p := apptest.Paths(t, strict)
	d := startRealDaemon(t, p)
	if got := decisionOf(t, d, "rm x"); got != "deny" {
		t.Fatalf("rm x under hard_deny: %s", got)
	}
	gone := func(what string) {
		t.Helper()
		apptest.WaitFor(t, what+" reported", func() bool {
			st := statusOf(t, p)
			return strings.Contains(st.ConfigError, what)
		})
		if got := decisionOf(t, d, "rm x"); got != "deny" {
			t.Fatalf("rm x after the config is %s: %s", what, got)
		}
	}

	// Removed while running.
	if err := os.Remove(p.Config); err != nil {
		t.Fatal(err)
	}
	gone("missing")
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(p.Config); err == nil {
		t.Fatal("the daemon wrote a config over the one the person removed")
	}

	// Emptied while running.
	os.WriteFile(p.Config, []byte(strict), 0o600)
	apptest.WaitFor(t, "the config back", func() bool { return statusOf(t, p).ConfigError == "" })
	if err := os.Truncate(p.Config, 0); err != nil {
		t.Fatal(err)
	}
	gone("empty")

	// Across a restart, the config gone: the last good copy is in force,
	// and status says which file that is.
	d.cmd.Process.Signal(syscall.SIGTERM)
	d.cmd.Wait()
	os.Remove(p.Config)
	d = startRealDaemon(t, p)
	st := statusOf(t, p)
	if !strings.Contains(st.ConfigError, "missing") ||
		st.PolicySource != filepath.Join(p.State, config.LastGoodName) {
		t.Fatalf("after a restart with the config gone: error %q, source %q", st.ConfigError, st.PolicySource)
	}
	if !strings.Contains(d.stderr.String(), "last good copy") {
		t.Errorf("the daemon's log does not say it runs the last good copy: %s", d.stderr.String())
	}
	if got := decisionOf(t, d, "rm x"); got != "deny" {
		t.Fatalf("rm x after a restart with the config gone: %s", got)
	}
	if _, err := os.Stat(p.Config); err == nil {
		t.Fatal("the daemon wrote the defaults at start over a removed config")
	}

	// The deliberate reset writes the defaults; the daemon takes them.
	out, err := exec.Command(apptest.Binary(t, "agate-cli"), "config", "reset", "--config", p.Config).CombinedOutput()
	if err != nil {
		t.Fatalf("agate config reset: %v %s", err, out)
	}
	apptest.WaitFor(t, "the defaults in force", func() bool { return statusOf(t, p).ConfigError == "" })
	if got := decisionOf(t, d, "rm x"); got != "allow" {
		t.Fatalf("rm x (nothing there) under the defaults: %s", got)
	}

	// grants.toml: deleting it revokes what it granted.
	if got := decisionOf(t, d, "curl https://x.example"); got != "ask" {
		t.Fatalf("curl under the defaults: %s", got)
	}
	os.WriteFile(p.Grants, []byte("version = 2\n[[agents.claude-code.grant]]\ngrant = \"bash(curl) network=x.example\"\n"), 0o600)
	apptest.WaitFor(t, "the grant", func() bool { return decisionOf(t, d, "curl https://x.example") == "allow" })
	os.Remove(p.Grants)
	apptest.WaitFor(t, "the grant revoked", func() bool { return decisionOf(t, d, "curl https://x.example") == "ask" })
}

// TestFirstRunWritesDefaults: only a true first run (no config, no last
// good copy) writes the commented defaults.
func TestFirstRunWritesDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon process")
	}
	p := apptest.Paths(t, "")
	startRealDaemon(t, p)
	b, err := os.ReadFile(p.Config)
	if err != nil || !strings.Contains(string(b), "[auto]") {
		t.Fatalf("first run: %v %q", err, b)
	}
	if st := statusOf(t, p); st.ConfigError != "" {
		t.Fatalf("first run: config error %q", st.ConfigError)
	}
}

// TestStateFolderMustBePrivate: a state folder that is a link to a
// folder of another user open to everyone, or is reached through a link
// someone else owns, stops the daemon before it writes anything there.
func TestStateFolderMustBePrivate(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to make folders of another user")
	}
	const nobody = 65534
	theirs, err := os.MkdirTemp("", "ags")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(theirs)
	os.Chmod(theirs, 0o777)
	os.Chown(theirs, nobody, nobody)
	mine := t.TempDir()
	link := filepath.Join(mine, "state")
	os.Symlink(theirs, link)
	ownState := filepath.Join(mine, "own")
	os.Mkdir(ownState, 0o700)
	theirLink := filepath.Join(mine, "theirlink")
	os.Symlink(ownState, theirLink)
	os.Lchown(theirLink, nobody, nobody)
	for _, state := range []string{link, theirLink} {
		p := apptest.Paths(t, "")
		p.State = state
		cmd := exec.Command(apptest.Binary(t, "agate-cli"), "serve", "--config", p.Config, "--socket", p.Socket)
		cmd.Env = append(os.Environ(), "AGATE_STATE_DIR="+p.State)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "not private") {
			t.Errorf("serve with the state folder %s: %v %s", state, err, out)
		}
		for _, dir := range []string{theirs, ownState} {
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("the daemon wrote into %s: %v", dir, ents)
			}
		}
	}
}

// TestHookDaemonDownWithTheDefaultConfig: the real hook, the daemon down,
// and the file the first run writes with on_daemon_down set to "ask":
// the call goes to the agent's own prompt, and nothing says the config
// is broken.
func TestHookDaemonDownWithTheDefaultConfig(t *testing.T) {
	p := apptest.Paths(t, strings.Replace(string(policy.DefaultConfigText), `on_daemon_down = "deny"`, `on_daemon_down = "ask"`, 1))
	code, out, errOut := apptest.RunHookBinary(t, apptest.WithCommand(t, "claude-code/pretooluse-bash.json", "rm -rf build"),
		"claude-code", "--config", p.Config, "--socket", p.Socket)
	if code != 0 || !strings.Contains(out, `"permissionDecision":"ask"`) || strings.Contains(errOut, "broken") {
		t.Fatalf("exit %d, stdout %q, stderr %q: want an ask, and no word of a broken config", code, out, errOut)
	}
}
