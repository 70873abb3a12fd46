//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package keystore

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// listenUnix makes a unix socket at path, closed with the test.
func listenUnix(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

// TestBusAddress: the session bus is found where it is, and never asked
// to be started.
func TestBusAddress(t *testing.T) {
	dir := t.TempDir()
	xdg, runUser, plain := filepath.Join(dir, "xdg"), filepath.Join(dir, "run-user"), filepath.Join(dir, "plain")
	listenUnix(t, filepath.Join(xdg, "bus"))
	listenUnix(t, filepath.Join(runUser, "bus"))
	if err := os.MkdirAll(plain, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(plain, "bus"), []byte("not a socket"))
	sessionFile := filepath.Join(dir, "run-user-session")
	if err := os.MkdirAll(sessionFile, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sessionFile, "dbus-session"), []byte("DBUS_SESSION_BUS_ADDRESS=unix:abstract=/tmp/dbus-E1c73yNqrG\n"))
	none := filepath.Join(dir, "none")

	for _, tc := range []struct {
		why     string
		env     map[string]string
		runUser string
		want    string // "" for no bus
		export  bool
		errHas  []string
	}{
		{"address given", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x/bus", "XDG_RUNTIME_DIR": xdg}, runUser, "unix:path=/x/bus", false, nil},
		{"the user bus in XDG_RUNTIME_DIR", map[string]string{"XDG_RUNTIME_DIR": xdg}, none, "unix:path=" + escapeBusValue(filepath.Join(xdg, "bus")), true, nil},
		{"autolaunch asked for, a bus there", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "autolaunch:", "XDG_RUNTIME_DIR": xdg}, none, "unix:path=" + escapeBusValue(filepath.Join(xdg, "bus")), true, nil},
		{"the bus in /run/user/UID", map[string]string{}, runUser, "unix:path=" + escapeBusValue(filepath.Join(runUser, "bus")), false, nil},
		{"/run/user/UID/dbus-session", map[string]string{"XDG_RUNTIME_DIR": none}, sessionFile, "unix:abstract=/tmp/dbus-E1c73yNqrG", false, nil},
		{"a file that is not a socket", map[string]string{"XDG_RUNTIME_DIR": plain}, none, "", false,
			[]string{"DBUS_SESSION_BUS_ADDRESS is unset", filepath.Join(plain, "bus"), filepath.Join(none, "bus")}},
		{"nothing at all", map[string]string{}, none, "", false, []string{"DBUS_SESSION_BUS_ADDRESS is unset", "starts no bus"}},
		{"autolaunch asked for, no bus", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "autolaunch:"}, none, "", false, []string{"DBUS_SESSION_BUS_ADDRESS is autolaunch:"}},
	} {
		t.Run(tc.why, func(t *testing.T) {
			addr, export, err := busAddress(func(k string) string { return tc.env[k] }, tc.runUser)
			if tc.want == "" {
				if !errors.Is(err, ErrNoSessionBus) {
					t.Fatalf("busAddress = %q, %v; want ErrNoSessionBus", addr, err)
				}
				for _, s := range tc.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
				return
			}
			if err != nil || addr != tc.want || export != tc.export {
				t.Errorf("busAddress = %q, %v, %v; want %q, %v", addr, export, err, tc.want, tc.export)
			}
		})
	}
	if got := escapeBusValue("/run/user/1000/a b,c=d"); got != "/run/user/1000/a%20b%2cc%3dd" {
		t.Errorf("escapeBusValue = %q", got)
	}
}

// TestKeychainStartsNoBus: with no session bus in the environment, the
// real keychain backend answers ErrUnavailable (and ErrNoSessionBus)
// without running dbus-launch, which would start a dbus-daemon that
// outlives agate. A dbus-launch of the test's own, first on PATH, records
// any call.
func TestKeychainStartsNoBus(t *testing.T) {
	runUser := "/run/user/" + strconv.Itoa(os.Getuid())
	if _, err := os.Stat(filepath.Join(runUser, "bus")); err == nil {
		t.Skipf("%s/bus exists: this user has a session bus, so there is no machine without one to play here", runUser)
	}
	if _, err := os.Stat(filepath.Join(runUser, "dbus-session")); err == nil {
		t.Skipf("%s/dbus-session exists: this user has a session bus", runUser)
	}
	dir := t.TempDir()
	called := filepath.Join(dir, "dbus-launch-called")
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bin, "dbus-launch"), []byte("#!/bin/sh\necho called >> "+called+"\nexit 1\n"))
	if err := os.Chmod(filepath.Join(bin, "dbus-launch"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(dir, "run"))
	t.Setenv("DISPLAY", "")

	ctx := context.Background()
	k := &Keychain{Service: "agate-test-no-bus"}
	_, getErr := k.Get(ctx, nil)
	_, setErr := k.Set(ctx, newMasterKey())
	delErr := k.Delete(ctx)
	for what, err := range map[string]error{"Get": getErr, "Set": setErr, "Delete": delErr} {
		if !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrNoSessionBus) {
			t.Errorf("%s = %v, want ErrUnavailable and ErrNoSessionBus", what, err)
		}
	}
	if _, err := os.Stat(called); err == nil {
		t.Error("the keychain ran dbus-launch: a session bus was started and left behind")
	}
	// The store falls back to the passphrase, as with any keychain that
	// does not answer.
	s, err := Open(storePath(t), k, testPassphrase("pw"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "k", "value-without-a-bus"); err != nil || s.Backend() != "passphrase" {
		t.Errorf("Set = %v, backend %q; want the passphrase", err, s.Backend())
	}
}
