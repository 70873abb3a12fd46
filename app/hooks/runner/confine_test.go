package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/daemon/daemontest"
	"github.com/agatehq/agate/app/internal/apptest"
)

// TestConfinedForReal: a Claude Code Bash call the daemon allows on its
// own judgment is rewritten, and the rewritten command, run as Claude
// Code runs it (bash -c in the call's folder), meets the sandbox: a link
// made in the same command to a credential store reads nothing (permission
// denied), nor does a search of the project a .env deep in it, a
// read-only call cannot write the project, and an edit of the project
// lands. The line runs under agate-hook.
func TestConfinedForReal(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("no bwrap here")
	}
	// Outside /tmp, which the sandbox replaces with its own.
	home, err := os.MkdirTemp("/var/tmp", "agate-confined-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	project := filepath.Join(home, "proj")
	for path, text := range map[string]string{
		".config/gh/hosts.yml":           "github.com:\n  oauth_token: CANARY_gh_7f3a\n",
		"proj/README.md":                 "hello\n",
		"proj/services/api/.env":         "API_KEY=CANARY_env_deep\n",
		"proj/services/api/.env.example": "API_KEY=\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, path)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, path), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cli := apptest.Binary(t, "agate-hook") // built before the clock starts
	t.Setenv("HOME", home)
	p := apptest.Paths(t, "")
	d, _ := daemontest.Start(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d.SandboxDiagnostics(ctx)
	t.Setenv("AGATE_CONFIG", p.Config)
	t.Setenv("AGATE_STATE_DIR", p.State)
	t.Setenv("AGATE_SOCKET", p.Socket)
	t.Setenv("CLAUDE_PROJECT_DIR", project)

	run := func(command string) (rewritten, output string) {
		t.Helper()
		in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": project, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": command}, "tool_use_id": "toolu_" + command[:2]})
		var out, errb bytes.Buffer
		// Wait for the daemon's first probe of the sandbox: until it is
		// in, calls are judged as without confinement.
		for range 100 {
			out.Reset()
			code := Run(ctx, Options{Agent: "claude-code", Stdin: bytes.NewReader(in), Stdout: &out, Stderr: &errb, CLIBin: cli})
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", command, code, errb.String())
			}
			if strings.Contains(out.String(), "updatedInput") {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		var ans struct {
			HSO struct {
				PermissionDecision string         `json:"permissionDecision"`
				UpdatedInput       map[string]any `json:"updatedInput"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out.Bytes(), &ans); err != nil || ans.HSO.PermissionDecision != "allow" {
			t.Fatalf("%s: %s (%v); want an allow", command, out.String(), err)
		}
		cmd, _ := ans.HSO.UpdatedInput["command"].(string)
		if !strings.Contains(cmd, " sandbox --strict ") {
			t.Fatalf("%s: not confined: %s", command, out.String())
		}
		sh := exec.CommandContext(ctx, "bash", "-c", cmd)
		sh.Dir = project
		b, _ := sh.CombinedOutput()
		return cmd, string(b)
	}

	// A link to a credential store in the project, read by a name agate
	// cannot tell before it runs: it runs confined read-only, and the
	// sandbox meets the store.
	if err := os.Symlink("../.config/gh/hosts.yml", filepath.Join(project, "k")); err != nil {
		t.Fatal(err)
	}
	if cmd, out := run(`cat "$(printf k)"`); strings.Contains(out, "CANARY") || !strings.Contains(out, "Permission denied") {
		t.Errorf("a link to a credential store read %q\n(%s)", out, cmd)
	}
	if cmd, out := run("cat README.md > copy.md; ls"); strings.Contains(cmd, "--read-only") {
		t.Logf("%s: %s", cmd, out)
	}
	if _, err := os.Stat(filepath.Join(project, "copy.md")); err != nil {
		t.Errorf("an edit of the project did not land: %v", err)
	}
	if cmd, out := run("grep -rn API_KEY ."); strings.Contains(out, "CANARY") || !strings.Contains(out, ".env.example") {
		t.Errorf("a search of the project read %q\n(%s)", out, cmd)
	}
	if cmd, _ := run("grep -rn hello ."); !strings.Contains(cmd, "--read-only") {
		t.Errorf("a read runs with the project writable: %s", cmd)
	}
}
