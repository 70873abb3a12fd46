package app

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/keystore"
)

func TestDoctor(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home+"/.config")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+home+"/no-bus")
	t.Setenv("DISPLAY", "")
	t.Setenv("AGATE_TEST_UNSET_SECRET", "")
	p := testPaths(t, "[tools]\nsandbox = true\n[secrets.env]\nOPENAI_API_KEY = \"${AGATE_TEST_UNSET_SECRET}\"\n")
	t.Setenv("AGATE_STATE_DIR", p.State)
	if err := keystore.RecordLeak(p.State, "keystore:openai", time.Now()); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "doctor", "--json", "--config", p.Config, "--socket", p.Socket)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (problems found): %s", code, errOut)
	}
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The sandbox fields the issue names, from a real probe.
	var raw map[string]map[string]any
	json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"enabled", "platform", "launcher", "available", "version", "network_isolation", "fail_closed", "reason"} {
		if _, ok := raw["sandbox"][k]; !ok {
			t.Errorf("sandbox diagnostics lack %q", k)
		}
	}
	if !r.Sandbox.Enabled || r.Sandbox.ProbedAt.IsZero() {
		t.Errorf("sandbox %+v", r.Sandbox)
	}
	if _, err := exec.LookPath("bwrap"); err == nil && (!r.Sandbox.Available || !r.Sandbox.NetworkIsolation) {
		t.Errorf("bwrap is installed but the probe says %+v", r.Sandbox)
	}
	if len(r.Leaked) != 1 || r.Leaked[0].Name != "keystore:openai" {
		t.Errorf("leaked %+v", r.Leaked)
	}
	if len(r.Unset) != 1 || !strings.Contains(r.Unset[0], "OPENAI_API_KEY") {
		t.Errorf("unset %v", r.Unset)
	}
	if !strings.Contains(r.Daemon, "not running") {
		t.Errorf("daemon %q", r.Daemon)
	}
	if len(r.Hooks) != 3 || r.Hooks[0].Installed {
		t.Errorf("hooks %+v", r.Hooks)
	}
	// The text form names the problems.
	_, text, _ := runCLI(t, nil, "doctor", "--config", p.Config, "--socket", p.Socket)
	for _, want := range []string{"keystore:openai appeared in an agent's arguments", "OPENAI_API_KEY is referenced but unset", "daemon is not running"} {
		if !strings.Contains(text, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, text)
		}
	}
}
