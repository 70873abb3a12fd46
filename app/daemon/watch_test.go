package daemon

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

func TestLiveConfigReload(t *testing.T) {
	p := apptest.Paths(t, "[auto]\nmode = \"ask\"\n")
	d, c := startDaemon(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go d.watchConfig(ctx)
	ls := apptest.Call("Bash", "make test")

	// A good edit, saved the way editors save (temp file + rename).
	if err := osutil.WriteFile(p.Config, []byte("[auto]\nmode = \"plan\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	apptest.WaitFor(t, "plan mode", func() bool {
		r, _ := c.Decide(ctx, ls)
		return r != nil && r.Decision == policy.Deny && r.Layer == policy.LayerMode
	})

	// A broken edit: the last good policy stays, the error names the line.
	events, stop := d.Subscribe("")
	defer stop()
	os.WriteFile(p.Config, []byte("[auto]\nmode = \"plan\"\nhard_deyn = []\n"), 0o600)
	apptest.WaitFor(t, "the config error", func() bool {
		st, _ := c.Status(ctx)
		return st != nil && strings.Contains(st.ConfigError, "config.toml:3: auto.hard_deyn: unknown key")
	})
	if r, _ := c.Decide(ctx, ls); r.Layer != policy.LayerMode {
		t.Fatalf("broken edit changed the policy: %+v", r)
	}
	got := false
	for !got {
		select {
		case ev := <-events:
			got = ev.Type == "config" && strings.Contains(ev.Error, "hard_deyn")
		case <-time.After(10 * time.Second):
			t.Fatal("no config event on the stream")
		}
	}

	// Fixed: the new policy applies and the error clears.
	osutil.WriteFile(p.Config, []byte("[auto]\nmode = \"ask\"\n"), 0o600)
	apptest.WaitFor(t, "the fix", func() bool {
		st, _ := c.Status(ctx)
		r, _ := c.Decide(ctx, ls)
		return st != nil && st.ConfigError == "" && r != nil && r.Decision == policy.Allow
	})
}

func TestBrokenConfigAtStartIsStrict(t *testing.T) {
	p := apptest.Paths(t, "[auto]\nmode = \"yolo\"\nrules = [\"allow *\"\n")
	_, c := startDaemon(t, p)
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.ConfigError == "" || st.Mode != "manual" {
		t.Fatalf("status %+v, want manual mode and the error", st)
	}
	r, _ := c.Decide(context.Background(), apptest.Call("Bash", "make test"))
	if r.Decision != policy.Ask || r.Layer != policy.LayerMode {
		t.Fatalf("broken config at start: %+v", r)
	}
}

func TestGrantsFileReload(t *testing.T) {
	p := apptest.Paths(t, "")
	d, c := startDaemon(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go d.watchConfig(ctx)
	osutil.WriteFile(p.Grants, []byte("[agents.claude-code]\ngrants = [\"bash:network\"]\n"), 0o600)
	apptest.WaitFor(t, "the grant", func() bool {
		r, _ := c.Decide(ctx, apptest.Call("Bash", "curl https://x.example"))
		return r != nil && r.Decision == policy.Allow && r.Layer == policy.LayerGrant
	})
}

// A project's .agate.toml governs calls made in it, and calls made from
// elsewhere for it (the agent's project root); it cannot be rewritten by
// the agent without asking.
func TestProjectOverlay(t *testing.T) {
	p := apptest.Paths(t, "")
	_, c := startDaemon(t, p)
	proj := t.TempDir()
	os.WriteFile(proj+"/.agate.toml", []byte("[auto]\nrules = [\"deny shell make deploy*\"]\n"), 0o644)
	ctx := context.Background()
	for _, tt := range []struct{ cwd, workspace string }{{proj, ""}, {proj + "/sub", ""}, {"/tmp", proj}} {
		r := apptest.Call("Bash", "make deploy-prod")
		r.Cwd, r.Workspace = tt.cwd, tt.workspace
		resp, err := c.Decide(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Decision != policy.Deny || resp.Layer != policy.LayerRule {
			t.Errorf("cwd %s workspace %q: %+v", tt.cwd, tt.workspace, resp)
		}
	}
	w := &api.DecideRequest{Tool: "Write", Args: map[string]any{"file_path": proj + "/.agate.toml", "content": ""},
		Agent: "claude-code", Cwd: proj, Interactive: true, AgentPrompt: true}
	if resp, _ := c.Decide(ctx, w); resp.Decision != policy.Ask || resp.Layer != policy.LayerProtected {
		t.Fatalf("writing the overlay: %+v", resp)
	}
}
