package daemon

import (
	"os"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/apptest"
	"github.com/agatehq/agate/app/codexrules"
)

// TestRulesForCodexFollowConfig: the daemon rewrites agate's Codex rules
// from the config at start and on each good edit, when they are
// installed; it never creates them.
func TestRulesForCodexFollowConfig(t *testing.T) {
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	path := codexrules.Path(codexHome)
	p := apptest.Paths(t, "[auto]\nhard_deny = [\"bash terraform destroy*\"]\n")
	startDaemon(t, p)
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the daemon created the rules file")
	}
	if _, err := codexrules.Write(path, codexrules.Render(codexrules.FromConfig(nil))); err != nil {
		t.Fatal(err)
	}
	p = apptest.Paths(t, "[auto]\nhard_deny = [\"bash terraform destroy*\"]\n")
	d, _ := startDaemon(t, p)
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"terraform", "destroy"`) {
		t.Fatalf("not synced at start:\n%s", data)
	}
	if err := os.WriteFile(p.Config, []byte("[auto]\nhard_deny = [\"bash gh repo delete*\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.Reload(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"gh", "repo", "delete"`) || strings.Contains(string(data), "terraform") {
		t.Errorf("not synced on reload:\n%s", data)
	}
}
