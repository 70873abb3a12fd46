package sandbox

import (
	"context"
	"runtime"
	"testing"
)

// TestSandboxSeatbelt probes sandbox-exec for real on macOS: the probe's
// writes outside, its read of a hidden dir and its connections must fail.
func TestSandboxSeatbelt(t *testing.T) {
	if runtime.GOOS != "darwin" {
		t.Skip("sandbox-exec exists only on macOS; its profile is tested as text in TestSBPLProfile")
	}
	if testing.Short() {
		t.Skip("starts real sandboxes")
	}
	d := Probe(context.Background(), Options{Launcher: LauncherSandboxExec, FailClosed: true})
	if !d.Available || !d.NetworkIsolation {
		t.Fatalf("Probe = %+v", d)
	}
	for _, c := range d.Checks {
		if !c.OK {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
}
