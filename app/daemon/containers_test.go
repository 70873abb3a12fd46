package daemon

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/files/tokens"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
)

// TestContainerCalls: a dev container's calls, on its own socket with its
// token, are decided for the host's project (the paths it names moved
// there), answered in the container's paths, never confined in the
// host's sandbox, and logged under the container's name; its socket
// opens when the token is added and its token is refused once removed.
func TestContainerCalls(t *testing.T) {
	ctx := context.Background()
	p := apptest.Paths(t, "")
	short, err := os.MkdirTemp("", "agc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	p.State = filepath.Join(short, "st")
	d, host := startDaemon(t, p)
	sctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go d.serveContainers(sctx)

	proj := filepath.Join(short, "proj")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("the person's notes\n"), 0o644)
	secret, err := tokens.Add(ctx, tokens.Path(p.State), tokens.Token{Name: "box", Project: proj, Container: true, Inside: "/w"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dir, err := tokens.WriteContainerDir(p.State, "box", secret, os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, tokens.ContainerSocket)
	apptest.WaitFor(t, "the container's socket", func() bool {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	box := &api.Client{Socket: sock, Token: secret}
	call := func(c *api.Client, tool string, args map[string]any, cwd string) *api.DecideResponse {
		t.Helper()
		r := &api.DecideRequest{Tool: tool, Args: args, Agent: "claude-code", Session: "s1", Cwd: cwd, Interactive: true, AgentPrompt: true}
		resp, err := c.Decide(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	// What a host agent runs confined unasked, a container's does not.
	hostLS := call(host, "Bash", map[string]any{"command": "ls -la"}, proj)
	boxLS := call(box, "Bash", map[string]any{"command": "ls -la"}, "/w")
	if boxLS.Decision != policy.Allow || boxLS.Sandbox || boxLS.Confine != nil {
		t.Errorf("ls in the container: %+v", boxLS)
	}
	t.Logf("the same call on the host: sandbox %v, confine %v", hostLS.Sandbox, hostLS.Confine != nil)
	if got := call(box, "Bash", map[string]any{"command": "go test ./..."}, "/w/sub"); got.Decision == policy.Allow || got.Confine != nil {
		t.Errorf("the project's code, from the container: %+v", got)
	}

	// A delete is judged on the host's file, kept there, told in the
	// container's paths.
	rm := call(box, "Bash", map[string]any{"command": "rm /w/notes.txt"}, "/w")
	if rm.Decision != policy.Allow || rm.Kept == nil || len(rm.Kept.Paths) != 1 || rm.Kept.Paths[0] != "/w/notes.txt" || strings.Contains(rm.Reason, proj) {
		t.Errorf("rm of an untracked file, from the container: %+v %+v", rm, rm.Kept)
	}
	w := call(box, "Write", map[string]any{"file_path": "/w/../etc/x", "content": "x"}, "/w")
	if w.Decision == policy.Allow {
		t.Errorf("a write above the mount: %+v", w)
	}
	if out := call(box, "Read", map[string]any{"file_path": "/w/notes.txt"}, "/elsewhere"); out.Decision != policy.Deny || out.Layer != policy.LayerToken {
		t.Errorf("a call outside the mount: %+v", out)
	}

	// However a path into the project is spelt, the policy reaches the
	// host's disk only through the container's facts: the project's
	// secrets are seen, the container's own files are not the host's,
	// and agate's folder in the container is agate's.
	os.WriteFile(filepath.Join(proj, ".env"), []byte("TOKEN=x\n"), 0o600)
	os.WriteFile(filepath.Join(proj, "README"), []byte("hi\n"), 0o644)
	if got := call(box, "Bash", map[string]any{"command": "cat /w/README"}, "/w"); got.Decision != policy.Allow {
		t.Errorf("a plain read in the project: %+v", got)
	}
	for _, cmd := range []string{"cat /w/.e*", "cat //w/.e*", "cat /./w/.e*", `cat /"w"/.e*`, `cat \/w/.e*`, "cat /[w]/.e*",
		"cat ../w/.e*", "cd / && cat w/.e*", "cat /tmp/x/.e*", "cat /run/agate/token", "cat /run/agate/tok*"} {
		if got := call(box, "Bash", map[string]any{"command": cmd}, "/w"); got.Decision == policy.Allow {
			t.Errorf("%s, from the container: allowed (%s)", cmd, got.Reason)
		}
	}
	if got := call(box, "Read", map[string]any{"file_path": "/run/agate/token"}, "/w"); got.Decision == policy.Allow {
		t.Errorf("Read of the container's token: allowed (%s)", got.Reason)
	}
	mcp := &api.DecideRequest{Tool: "mcp__github__delete_repo", Agent: "claude-code", Cwd: "/w", MCP: &api.MCPCall{Server: "github", Tool: "delete_repo"}}
	if _, err := box.Decide(ctx, mcp); err == nil || !strings.Contains(err.Error(), "no MCP proxy") {
		t.Errorf("a container's call with a proxy's fields: %v", err)
	}
	big := &api.DecideRequest{Tool: "Write", Args: map[string]any{"file_path": "/w/big", "content": strings.Repeat("x", 2<<20)}, Agent: "claude-code", Cwd: "/w"}
	if _, err := box.Decide(ctx, big); err == nil {
		t.Error("a 2 MiB body from a container")
	}

	// The log: the container's name, the host's paths.
	n := 0
	for _, r := range readAudit(t, p) {
		if r.Agent != "container:box" {
			continue
		}
		n++
		if r.Container != "box" || r.Token != "" {
			t.Errorf("a record of the container: %+v", r)
		}
		if r.Subject == "rm /w/notes.txt" || strings.Contains(r.Subject, "/w/notes") {
			t.Errorf("the log holds the container's path, not the host's: %+v", r)
		}
	}
	if n < 5 {
		t.Errorf("%d records of the container", n)
	}

	// The tokens' socket does not take it; removed, it is refused.
	tl, err := d.ListenTokens(filepath.Join(short, "tok", "tokens.sock"))
	if err != nil {
		t.Fatal(err)
	}
	go d.ServeTokens(sctx, tl)
	if _, err := (&api.Client{Socket: filepath.Join(short, "tok", "tokens.sock"), Token: secret}).Decide(ctx, apptest.Call("Bash", "ls")); err == nil {
		t.Error("the tokens' socket took the container's token")
	}
	if err := tokens.Remove(ctx, tokens.Path(p.State), "box"); err != nil {
		t.Fatal(err)
	}
	if _, err := box.Decide(ctx, &api.DecideRequest{Tool: "Bash", Args: map[string]any{"command": "ls"}, Agent: "claude-code", Cwd: "/w"}); err == nil {
		t.Error("a removed container's token was taken")
	}
	apptest.WaitFor(t, "the socket to close", func() bool {
		_, err := os.Stat(sock)
		return os.IsNotExist(err)
	})
}

// readAudit is every record of p's audit log.
func readAudit(t *testing.T, p api.Paths) []audit.Record {
	t.Helper()
	var out []audit.Record
	if err := audit.Read(p.AuditLog(), func(r *audit.Record) error { out = append(out, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTokenLimiter: a token's burst, then its rate; its requests in
// flight; each token its own bucket.
func TestTokenLimiter(t *testing.T) {
	var l tokenLimiter
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	for i := range tokenBurst {
		release, why := l.take("flood", now)
		if why != "" {
			t.Fatalf("request %d of the burst: %s", i, why)
		}
		release()
	}
	if _, why := l.take("flood", now); !strings.Contains(why, "requests a second") {
		t.Errorf("past the burst: %q", why)
	}
	if release, why := l.take("other", now); why != "" {
		t.Errorf("another token, refused with the first: %s", why)
	} else {
		release()
	}
	now = now.Add(time.Second)
	n := 0
	for ; n < 2*tokenRate; n++ {
		release, why := l.take("flood", now)
		if why != "" {
			break
		}
		release()
	}
	if n != tokenRate {
		t.Errorf("%d requests in the next second, want %d", n, tokenRate)
	}
	now = now.Add(time.Minute)
	var held []func()
	for range tokenInFlight {
		release, why := l.take("slow", now)
		if why != "" {
			t.Fatal(why)
		}
		held = append(held, release)
	}
	if _, why := l.take("slow", now); !strings.Contains(why, "being answered") {
		t.Errorf("one too many in flight: %q", why)
	}
	held[0]()
	held[0]()                                     // twice is once
	if _, why := l.take("slow", now); why != "" { // held
		t.Errorf("after one ended: %s", why)
	}
	if _, why := l.take("slow", now); why == "" {
		t.Error("a release counted twice")
	}
}
