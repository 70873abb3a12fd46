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
	"time"

	"github.com/agatehq/agate/app/internal/apptest"
)

// managedBinaries builds agate-cli and agate-hook with the managed
// policy's place set to path, as a build for another system sets it (the
// place is fixed when agate is built, never at run time).
func managedBinaries(t *testing.T, path string) (cli, hook string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "agate-managed-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	ld := "-X github.com/agatehq/agate/app/files/managed.Path=" + path
	for _, b := range []struct{ out, pkg, tags string }{
		{"agate-cli", "github.com/agatehq/agate", "nogui"},
		{"agate-hook", "github.com/agatehq/agate/app/hooks/agate-hook", ""},
	} {
		cmd := exec.Command("go", "build", "-tags", b.tags, "-ldflags", ld, "-o", filepath.Join(dir, b.out), b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", b.out, err, out)
		}
	}
	return filepath.Join(dir, "agate-cli"), filepath.Join(dir, "agate-hook")
}

// TestManagedPolicyAsAnotherUser runs the real daemon, agate-hook and
// agate-cli as an unprivileged uid (the person) under a managed policy
// root owns. The person's config turns yolo on, allows curl and answers
// "ask" when the daemon is down; the managed file turns yolo off, denies
// curl and denies when the daemon is down. Every way the person reaches
// a decision (agate check, the hook through the daemon, the hook with the
// daemon down) holds to the managed file, which the person cannot write;
// status says it is in force and what it refused; an edit of it applies
// live; made writable by others it is no longer trusted, and agate fails
// closed.
func TestManagedPolicyAsAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: root owns the managed file, and agate runs as another uid (the person)")
	}
	const person = 65534
	base, err := os.MkdirTemp("", "agate-managed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	etc := filepath.Join(base, "etc", "agate")
	if err := os.MkdirAll(etc, 0o755); err != nil {
		t.Fatal(err)
	}
	managedFile := filepath.Join(etc, "managed.toml")
	writeManaged := func(text string) {
		t.Helper()
		tmp := managedFile + ".new"
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, managedFile); err != nil {
			t.Fatal(err)
		}
	}
	const managedText = "[approvals]\nallow_yolo = false\n[auto]\nrules = [\"deny Bash curl *\"]\n[hooks]\non_daemon_down = \"deny\"\n" +
		"[managed]\nmcp_servers = [\"@modelcontextprotocol/server-filesystem\", \"/bin/cat\"]\n"
	writeManaged(managedText)
	cli, hook := managedBinaries(t, managedFile)

	w := newMachineWorld(t, person, "[approvals]\nallow_yolo = true\n[auto]\nmode = \"yolo\"\nrules = [\"allow Bash curl *\"]\n[hooks]\non_daemon_down = \"ask\"\n")
	sock := filepath.Join(w.state, "agate.sock")
	env := w.env("AGATE_CONFIG="+w.config, "AGATE_SOCKET="+sock)
	as := func(bin string, args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, w.work
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: person, Gid: person}}
		return cmd
	}
	payload := func(command string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": filepath.Join(w.tmp, "t.jsonl"), "cwd": w.work,
			"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]any{"command": command}, "tool_use_id": "toolu_1"})
		return string(b)
	}
	hookSays := func(command string) string {
		t.Helper()
		r := run(t, as(hook, "hook", "claude-code"), payload(command))
		return r.stdout + r.stderr
	}

	// agate check, the policy compiled in the person's process.
	r := run(t, as(cli, "check", "--cwd", w.work, "Bash", `{"command":"curl https://example.com"}`), "")
	if !strings.HasPrefix(r.stdout, "deny") || !strings.Contains(r.stdout, "layer:    managed") || !strings.Contains(r.stdout, managedFile) {
		t.Fatalf("agate check: %+v", r)
	}

	// The person cannot write the managed file.
	if r := run(t, as("/bin/sh", "-c", "echo '[auto]' > "+managedFile), ""); r.code == 0 {
		t.Fatal("the person wrote the managed file")
	}

	// The daemon, as the person.
	daemon := as(cli, "serve")
	var serveLog strings.Builder
	daemon.Stdout, daemon.Stderr = &serveLog, &serveLog
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Kill(); daemon.Wait() })
	waitFor(t, "the daemon's socket", func() bool {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	if out := hookSays("curl https://example.com"); !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "managed policy") {
		t.Fatalf("curl through the daemon: %s\n%s", out, serveLog.String())
	}
	// Yolo is off: what acts is not waved through.
	if out := hookSays("wget -q https://example.com"); strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("wget under the person's yolo: %s", out)
	}
	// MCP servers: one the managed file does not name never starts; one it
	// names does; a server's tool no proxy gates is denied.
	if r := run(t, as(cli, "mcp", "run", "--name", "ev", "--", "npx", "-y", "@modelcontextprotocol/server-everything"), ""); r.code != 126 || !strings.Contains(r.stderr, "does not allow this MCP server") {
		t.Errorf("a server the managed file does not name: %+v", r)
	}
	if r := run(t, as(cli, "mcp", "run", "--name", "ev", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem@npm:evil-fs", "/tmp"), ""); r.code != 126 {
		t.Errorf("another package under an allowed name: %+v", r)
	}
	if r := run(t, as(cli, "mcp", "run", "--name", "cat", "--", "/bin/cat"), ""); r.code == 126 || strings.Contains(r.stderr, "does not allow") {
		t.Errorf("a server the managed file names: %+v", r)
	}
	if r := run(t, as(cli, "mcp", "run", "--name", "r", "--url", "https://mcp.example.com/mcp"), ""); r.code != 126 {
		t.Errorf("a remote server the managed file does not name: %+v", r)
	}
	mcpCall, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": filepath.Join(w.tmp, "t.jsonl"), "cwd": w.work,
		"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "mcp__github__search_code",
		"tool_input": map[string]any{"q": "x"}, "tool_use_id": "toolu_2"})
	if r := run(t, as(hook, "hook", "claude-code"), string(mcpCall)); !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stdout, "only through agate's proxy") {
		t.Errorf("an ungated server's tool: %+v", r)
	}
	st := run(t, as(cli, "status"), "")
	if !strings.Contains(st.stdout, "managed:    "+managedFile+" is in force") || !strings.Contains(st.stdout, "mode yolo is off under the managed policy") {
		t.Fatalf("status: %+v", st)
	}

	// An edit of the managed file applies live.
	writeManaged(strings.Replace(managedText, `"deny Bash curl *"`, `"deny Bash curl *", "deny Bash ls *"`, 1))
	waitFor(t, "the managed edit to apply", func() bool {
		return strings.Contains(hookSays("ls -la"), `"permissionDecision":"deny"`)
	})

	// Writable by others, it is not trusted: agate fails closed (manual).
	if err := os.Chmod(managedFile, 0o666); err != nil {
		t.Fatal(err)
	}
	writeManaged(managedText) // (an event for the watcher; the mode stays)
	os.Chmod(managedFile, 0o666)
	waitFor(t, "the daemon to stop trusting the managed file", func() bool {
		return strings.Contains(run(t, as(cli, "status"), "").stdout, "is NOT in force")
	})
	if out := hookSays("touch " + filepath.Join(w.work, "x")); strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("a write allowed with the managed file untrusted: %s", out)
	}
	if d := run(t, as(cli, "doctor"), ""); !strings.Contains(d.stdout, "is NOT in force") || d.code == 0 {
		t.Errorf("doctor: %+v", d)
	}

	// The daemon down: the person's "ask" does not hold, the managed
	// file's deny does (and an untrusted one fails closed the same way).
	daemon.Process.Kill()
	daemon.Wait()
	// (Without a managed file, the person's "ask" holds: the control.)
	if r := run(t, as(apptestHook(t), "hook", "claude-code"), payload("echo hi")); !strings.Contains(r.stdout, `"permissionDecision":"ask"`) {
		t.Fatalf("the daemon down, no managed file: %+v", r)
	}
	for _, mode := range []os.FileMode{0o666, 0o644} {
		os.Chmod(managedFile, mode)
		out := hookSays("echo hi")
		if strings.Contains(out, `"permissionDecision":"ask"`) || !strings.Contains(out, "the call was blocked") {
			t.Errorf("the daemon down, managed file mode %04o: %s", mode, out)
		}
	}
}

// apptestHook is agate-hook as make builds it: the managed file at its
// own place, which this machine does not have.
func apptestHook(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/etc/agate/managed.toml"); err == nil {
		t.Skip("this machine has a managed policy of its own")
	}
	p := apptest.Binary(t, "agate-hook")
	return p
}

// waitFor polls cond for up to 15 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
