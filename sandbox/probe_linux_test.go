//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

func TestSandboxProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real sandboxes")
	}
	tests := []struct {
		launcher, wantVersion string
	}{
		{LauncherBwrap, "bubblewrap "},
		{LauncherLandlock, "Landlock ABI "},
		{LauncherAuto, "bubblewrap "}, // auto takes bwrap first
	}
	for _, tt := range tests {
		t.Run(tt.launcher, func(t *testing.T) {
			if tt.launcher != LauncherLandlock {
				if err := (&bwrap{}).check(Options{}); err != nil {
					t.Skip("bwrap cannot run here: " + err.Error())
				}
			} else if err := (&landlockLauncher{}).check(Options{}); err != nil {
				t.Skip("landlock launcher unavailable here: " + err.Error())
			}
			d := Probe(context.Background(), Options{Launcher: tt.launcher, FailClosed: true, Enabled: true})
			if !d.Available || !d.NetworkIsolation || !d.FailClosed || !d.Enabled || d.Platform != "linux" ||
				!strings.HasPrefix(d.Version, tt.wantVersion) || d.Install != "" {
				t.Fatalf("Probe = %+v", d)
			}
			if want := strings.TrimSpace(tt.wantVersion); tt.launcher == LauncherAuto && d.Launcher != LauncherBwrap {
				t.Errorf("auto chose %s, want bwrap (%s)", d.Launcher, want)
			}
			if len(d.Checks) != 6 {
				t.Errorf("checks %+v, want 6", d.Checks)
			}
			for _, c := range d.Checks {
				if !c.OK {
					t.Errorf("check %s failed: %s", c.Name, c.Detail)
				}
			}
		})
	}
}

// TestAutoFailsClosedWithNothingInstalled hides every launcher: no bwrap,
// podman or docker on PATH, and no agate binary to re-execute.
func TestAutoFailsClosedWithNothingInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("DOCKER_HOST", "")
	for _, o := range []Options{
		{FailClosed: false},                         // zero launcher: closed whatever FailClosed says
		{Launcher: LauncherAuto, FailClosed: true},  // closed by choice
		{Launcher: LauncherBwrap, FailClosed: true}, // pinned and missing
	} {
		o.Executable = "/nonexistent/agate"
		o.WorkDir = t.TempDir()
		_, err := Prepare(context.Background(), o, []string{"true"})
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "apt install bubblewrap") {
			t.Errorf("%+v: err %v, want ErrUnavailable naming bubblewrap", o, err)
		}
		d := Probe(context.Background(), o)
		if d.Available || !strings.Contains(d.Install, "bubblewrap") {
			t.Errorf("%+v: Probe = %+v", o, d)
		}
	}
	o := Options{Launcher: LauncherAuto, FailClosed: false, Executable: "/nonexistent/agate", WorkDir: t.TempDir()}
	p, err := Prepare(context.Background(), o, []string{"true"})
	if err != nil || p.Confined || p.Note != UnconfinedNote {
		t.Errorf("explicit auto, fail open: %+v, %v; want unconfined with the note", p, err)
	}
}

// TestSandboxStopsOnCancel ends a long command through its context: it gets
// SIGTERM and Run reports the context's error with status 128+15.
func TestSandboxStopsOnCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real sandboxes")
	}
	for _, l := range []string{LauncherBwrap, LauncherLandlock} {
		t.Run(l, func(t *testing.T) {
			o := Options{Launcher: l, FailClosed: true, WorkDir: t.TempDir()}
			if err := platformLauncher(l).check(o); err != nil {
				t.Skip(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			var stderr bytes.Buffer
			code, err := Run(ctx, o, []string{"sleep", "60"}, nil, nil, &stderr)
			if !errors.Is(err, context.DeadlineExceeded) || code != 143 {
				t.Errorf("status %d, err %v (stderr %q); want 143 and the deadline", code, err, stderr.String())
			}
		})
	}
}

// TestSandboxAbstractSockets: the host's abstract unix sockets (X11's, some
// D-Bus setups), through which a command could drive programs outside, are
// out of reach without the network, under both launchers; with it, the
// landlock launcher still scopes them away (Landlock ABI 6+). bwrap --net
// reaches them: a documented limit.
func TestSandboxAbstractSockets(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real sandboxes")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("@agate-sandbox-test-%d", os.Getpid())
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	tests := []struct {
		launcher string
		net      bool
		minABI   int  // Landlock ABI needed, 0 for none
		reach    bool // the control: unconfined, the dial must work
	}{
		{LauncherNone, true, 0, true},
		{LauncherBwrap, false, 0, false},
		{LauncherLandlock, false, 0, false},
		{LauncherLandlock, true, 6, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s net=%v", tt.launcher, tt.net), func(t *testing.T) {
			o := Options{Launcher: tt.launcher, FailClosed: tt.launcher != LauncherNone, Net: tt.net, WorkDir: t.TempDir(),
				Env: []string{"PATH=/usr/bin:/bin", envDialHelper + "=" + addr}}
			if l := platformLauncher(tt.launcher); l != nil {
				if err := l.check(o); err != nil {
					t.Skip(err)
				}
			}
			if abi := landlockABI(); abi < tt.minABI {
				t.Skipf("Landlock ABI %d has no abstract socket scoping (needs %d)", abi, tt.minABI)
			}
			var stderr bytes.Buffer
			code, err := Run(context.Background(), o, []string{self}, nil, nil, &stderr)
			if err != nil {
				t.Fatal(err)
			}
			if reached := code == 0; reached != tt.reach {
				t.Errorf("reached the host's abstract socket %s: %v, want %v (stderr %q)", addr, reached, tt.reach, stderr.String())
			}
		})
	}
}
