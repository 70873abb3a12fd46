package machine

import (
	"path/filepath"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

func TestSandboxOptionsFollowConfig(t *testing.T) {
	cfg := policy.DefaultConfig()
	cfg.Sandbox.Launcher = "bwrap"
	cfg.Sandbox.FailClosed = false
	cfg.Tools["sandbox"] = true
	dir := t.TempDir()
	p := api.Paths{Config: filepath.Join(dir, "config.toml"), State: filepath.Join(dir, "state"), Socket: filepath.Join(dir, "run", "agate.sock")}
	o := SandboxOptions(cfg, p, dir)
	if o.Launcher != "bwrap" || o.FailClosed || !o.Enabled || o.WorkDir != dir {
		t.Fatalf("options = %+v", o)
	}
}

func TestOpenKeyStoreAsksNothing(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenKeyStore(api.Paths{State: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Path() != filepath.Join(dir, "keys.json") || s.Backend() != "" {
		t.Fatalf("store at %s, backend %q", s.Path(), s.Backend())
	}
}
