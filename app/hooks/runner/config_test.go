package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

// TestHookReadsTheDefaultConfig: the file `agate serve` writes on its
// first run is one the hook reads without complaint, and what the person
// sets in it ([approvals] timeout, [hooks] on_daemon_down) takes effect.
func TestHookReadsTheDefaultConfig(t *testing.T) {
	dir := t.TempDir()
	p := api.Paths{Config: filepath.Join(dir, "config.toml")}
	os.WriteFile(p.Config, policy.DefaultConfigText, 0o600)
	hc := readHookConfig(p)
	if hc.err != nil {
		t.Fatalf("the default config: %v", hc.err)
	}
	if hc.timeout != 120*time.Second || hc.onDownAsk {
		t.Fatalf("the default config read as %+v", hc)
	}
	edited := strings.Replace(string(policy.DefaultConfigText), `on_daemon_down = "deny"`, `on_daemon_down = "ask"`, 1)
	edited = strings.Replace(edited, `timeout = "120s"`, `timeout = "30s"`, 1)
	os.WriteFile(p.Config, []byte(edited), 0o600)
	if hc := readHookConfig(p); hc.err != nil || !hc.onDownAsk || hc.timeout != 30*time.Second {
		t.Fatalf("the edited default config read as %+v", hc)
	}
	// A typo in a section the hook reads fails closed.
	os.WriteFile(p.Config, []byte("[hooks]\non_daemon_dwon = \"ask\"\n"), 0o600)
	if hc := readHookConfig(p); hc.err == nil || hc.onDownAsk {
		t.Fatalf("a typo read as %+v", hc)
	}
}
