package daemon

import (
	"bytes"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/hooks/settings/codexrules"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/policy"
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

// TestRulesForCodexNoFolder: a Codex folder the daemon cannot find is
// logged, not passed over in silence: the rules would stay behind the
// config.
func TestRulesForCodexNoFolder(t *testing.T) {
	p := apptest.Paths(t, "")
	var buf bytes.Buffer
	d, err := New(p, Options{Logger: log.New(&buf, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	t.Setenv("CODEX_HOME", "")
	t.Setenv("HOME", "")
	d.syncCodexRules(&policy.Config{})
	if !strings.Contains(buf.String(), "codex rules") {
		t.Errorf("nothing logged: %q", buf.String())
	}
}

// TestRulesForCodexRecorded: rules installed under another CODEX_HOME
// than the daemon's environment names (recorded in the state folder by
// `agate hooks install codex`) follow the config too.
func TestRulesForCodexRecorded(t *testing.T) {
	t.Setenv("CODEX_HOME", t.TempDir()) // the daemon's: no rules there
	elsewhere := codexrules.Path(t.TempDir())
	if _, err := codexrules.Write(elsewhere, codexrules.Render(codexrules.FromConfig(nil))); err != nil {
		t.Fatal(err)
	}
	p := apptest.Paths(t, "[auto]\nhard_deny = [\"bash terraform destroy*\"]\n")
	if err := codexrules.Record(p.State, elsewhere); err != nil {
		t.Fatal(err)
	}
	startDaemon(t, p)
	if data, _ := os.ReadFile(elsewhere); !strings.Contains(string(data), `"terraform", "destroy"`) {
		t.Fatalf("recorded rules not synced at start:\n%s", data)
	}
}
