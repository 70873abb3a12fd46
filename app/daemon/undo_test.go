package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// undoProject is a git repository with one commit, and the files named
// written in it untracked.
func undoProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n")
	git("add", "main.go")
	git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "one")
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), body)
	}
	return dir
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shellCall is a Claude Code Bash call in dir, of session s, that nobody
// can be asked about: an ask is a deny.
func shellCall(dir, session, command string) *api.DecideRequest {
	return &api.DecideRequest{Tool: "Bash", Args: map[string]any{"command": command}, Agent: "claude-code",
		Session: session, Cwd: dir}
}

// auditKept returns the kept field of the audit log's decision lines
// whose subject is subject.
func auditKept(t *testing.T, p api.Paths, subject string) []*api.Kept {
	t.Helper()
	f, err := os.Open(p.AuditLog())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*api.Kept
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec audit.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Event == "decision" && rec.Subject == subject {
			out = append(out, rec.Kept)
		}
	}
	return out
}

// TestKeepBeforeDestroy: a delete or overwrite of what git cannot give
// back runs unasked once a copy is kept, says so, and the copy is in the
// store and the audit line; what cannot be kept (too large, a secret in
// it, keeping off) asks, and with nobody to ask is denied.
func TestKeepBeforeDestroy(t *testing.T) {
	p := apptest.Paths(t, "[sandbox]\nconfine_unasked = false\n")
	d, c := startDaemon(t, p)
	ctx := context.Background()
	dir := undoProject(t, map[string]string{"notes.txt": "my notes\n", "out/a.log": "a\n", "out/b.log": "b\n", "conf/.env": "TOKEN=x\n"})

	resp, err := c.Decide(ctx, shellCall(dir, "s1", "rm notes.txt"))
	if err != nil || resp.Decision != policy.Allow || resp.Kept == nil {
		t.Fatalf("rm notes.txt: %+v %v", resp, err)
	}
	if !strings.Contains(resp.Reason, "nothing is lost") || !strings.Contains(resp.Reason, "agate undo "+resp.Kept.ID) {
		t.Errorf("reason %q does not say what was kept", resp.Reason)
	}
	if want := []string{filepath.Join(dir, "notes.txt")}; resp.Kept.Files != 1 || resp.Kept.Bytes != 9 || !equalStrings(resp.Kept.Paths, want) {
		t.Errorf("kept %+v, want 1 file of 9 bytes at %v", resp.Kept, want)
	}
	e, err := d.Undo().Get(resp.Kept.ID)
	if err != nil || e.Agent != "claude-code" || e.Session != "s1" || e.Subject != "rm notes.txt" {
		t.Fatalf("entry %+v %v", e, err)
	}
	if k := auditKept(t, p, "rm notes.txt"); len(k) != 1 || k[0] == nil || k[0].ID != resp.Kept.ID {
		t.Errorf("audit kept %+v", k)
	}
	// The call runs; the copy puts it back.
	os.Remove(filepath.Join(dir, "notes.txt"))
	d.Undo().Wait()
	if res, err := d.Undo().Restore(ctx, resp.Kept.ID); err != nil || len(res.Put) != 1 {
		t.Fatalf("restore: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "my notes\n" {
		t.Errorf("restored %q", b)
	}

	for _, tc := range []struct {
		name, config, command, why string
	}{
		{"too large", "[undo]\nmax_call_mb = 0\nmax_total_mb = 0\n", "rm -rf out", "[undo] max_"},
		{"a secret in it", "", "rm -rf conf", "secret"},
		{"keeping off", "[undo]\nkeep = false\n", "rm notes.txt", "git cannot give back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setConfig(t, d, p, "[sandbox]\nconfine_unasked = false\n"+tc.config)
			resp, err := c.Decide(ctx, shellCall(dir, "s1", tc.command))
			if err != nil || resp.Decision != policy.Deny || resp.By != api.ByUnattended || resp.Kept != nil {
				t.Fatalf("%s: %+v %v", tc.command, resp, err)
			}
			if !strings.Contains(resp.Reason, tc.why) {
				t.Errorf("reason %q lacks %q", resp.Reason, tc.why)
			}
		})
	}
}

// setConfig writes the config and puts it in force.
func setConfig(t *testing.T, d *Daemon, p api.Paths, text string) {
	t.Helper()
	if err := os.WriteFile(p.Config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.Reload(); err != nil {
		t.Fatal(err)
	}
}

func equalStrings(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestKeepFailsAsks: a keep the store cannot make leaves the call asking,
// never allowed on the promise of a copy.
func TestKeepFailsAsks(t *testing.T) {
	p := apptest.Paths(t, "[sandbox]\nconfine_unasked = false\n")
	d, c := startDaemon(t, p)
	dir := undoProject(t, map[string]string{"notes.txt": "my notes\n"})
	// The store's folder is replaced by a file: nothing can be made in it.
	store := d.Undo().Dir()
	if err := os.RemoveAll(store); err != nil {
		t.Fatal(err)
	}
	writeFile(t, store, "not a folder")
	resp, err := c.Decide(context.Background(), shellCall(dir, "s1", "rm notes.txt"))
	if err != nil || resp.Decision != policy.Deny || resp.Kept != nil {
		t.Fatalf("%+v %v", resp, err)
	}
	if !strings.Contains(resp.Reason, "git cannot give back") {
		t.Errorf("reason %q", resp.Reason)
	}
}

// TestSessionMadeFiles: a file the session wrote into being and left as
// it was deletes without a copy; once the person changes it, or for
// another session, it is kept; a hard link to it is not the session's.
func TestSessionMadeFiles(t *testing.T) {
	p := apptest.Paths(t, "[sandbox]\nconfine_unasked = false\n")
	_, c := startDaemon(t, p)
	ctx := context.Background()
	dir := undoProject(t, nil)
	decide := func(session, command string) *api.DecideResponse {
		t.Helper()
		resp, err := c.Decide(ctx, shellCall(dir, session, command))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	write := func(name, body string) {
		t.Helper()
		resp, err := c.Decide(ctx, &api.DecideRequest{Tool: "Write", Agent: "claude-code", Session: "s1", Cwd: dir,
			Args: map[string]any{"file_path": filepath.Join(dir, name), "content": body}})
		if err != nil || resp.Decision != policy.Allow {
			t.Fatalf("Write %s: %+v %v", name, resp, err)
		}
		writeFile(t, filepath.Join(dir, name), body) // the agent writes it
	}
	write("scratch.txt", "the agent's\n")
	write("draft.txt", "the agent's\n")
	write("linked.txt", "the agent's\n")
	// The session's next call fixes what its writes left.
	if r := decide("s1", "ls"); r.Decision != policy.Allow {
		t.Fatalf("ls: %+v", r)
	}
	if r := decide("s1", "rm scratch.txt"); r.Decision != policy.Allow || r.Kept != nil || !strings.Contains(r.Reason, "this session made itself") {
		t.Errorf("rm of the session's own file: %+v", r)
	}
	if r := decide("s2", "rm draft.txt"); r.Decision != policy.Allow || r.Kept == nil {
		t.Errorf("another session's file is kept: %+v", r)
	}
	// The person edits it: it is theirs now.
	time.Sleep(10 * time.Millisecond)
	writeFile(t, filepath.Join(dir, "draft.txt"), "the person's\n")
	if r := decide("s1", "rm draft.txt"); r.Decision != policy.Allow || r.Kept == nil {
		t.Errorf("a file the person changed is kept: %+v", r)
	}
	// A second name for it could carry a write in place to another file.
	if err := os.Link(filepath.Join(dir, "linked.txt"), filepath.Join(dir, "other-name.txt")); err != nil {
		t.Fatal(err)
	}
	if r := decide("s1", "truncate -s 0 linked.txt"); r.Decision != policy.Allow || r.Kept == nil {
		t.Errorf("a file with two names is kept: %+v", r)
	}
	// A person's turn between the write and the next call: the person may
	// have edited it meanwhile, so it is theirs.
	write("turn.txt", "the agent's\n")
	writeFile(t, filepath.Join(dir, "turn.txt"), "the person's\n")
	if err := c.StartRun(ctx, &api.TaintRequest{Agent: "claude-code", Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	if r := decide("s1", "rm turn.txt"); r.Decision != policy.Allow || r.Kept == nil {
		t.Errorf("a file written before a person's turn is kept: %+v", r)
	}
	// The agent's report that the call ran fixes what it wrote then: a
	// person's edit after it, and before the next call, is seen.
	write("reported.txt", "the agent's\n")
	if _, err := c.Outcome(ctx, &api.OutcomeRequest{Agent: "claude-code", Session: "s1", Event: "PostToolUse", Outcome: api.OutcomeRan,
		Tool: "Write", Args: map[string]any{"file_path": filepath.Join(dir, "reported.txt")}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	writeFile(t, filepath.Join(dir, "reported.txt"), "the person's!\n")
	if r := decide("s1", "rm reported.txt"); r.Decision != policy.Allow || r.Kept == nil {
		t.Errorf("a file the person edited after the call ran is kept: %+v", r)
	}
}
