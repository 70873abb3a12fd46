//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package keystore

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Here go-keyring talks to the Secret Service over the D-Bus session bus,
// which its D-Bus library (godbus) finds in DBUS_SESSION_BUS_ADDRESS, then
// at /run/user/UID/bus or in /run/user/UID/dbus-session. Where it finds
// none it runs dbus-launch, which starts a dbus-daemon (and that, asked
// for the Secret Service, a gnome-keyring-daemon) that nobody ever stops:
// one more pair for every command on a server, over SSH or from cron.
// sessionBus looks first, so that agate never gets that far.

// sessionBus returns nil when go-keyring will find an existing session
// bus, and an error wrapping ErrNoSessionBus when it would have to start
// one. A bus at $XDG_RUNTIME_DIR/bus, where sd-bus and GDBus look too, is
// put in DBUS_SESSION_BUS_ADDRESS for go-keyring to use.
func sessionBus() error {
	addr, export, err := busAddress(os.Getenv, "/run/user/"+strconv.Itoa(os.Getuid()))
	if err != nil {
		return err
	}
	if export {
		return os.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	}
	return nil
}

// busAddress finds the session bus without starting one, as go-keyring's
// D-Bus library would look for it, in the environment getenv reads and
// the per-user runtime dir runUser (/run/user/UID). export is true when
// the address is not where that library looks: the caller puts it in
// DBUS_SESSION_BUS_ADDRESS. With no bus, the error wraps ErrNoSessionBus.
func busAddress(getenv func(string) string, runUser string) (addr string, export bool, err error) {
	env := getenv("DBUS_SESSION_BUS_ADDRESS")
	// "autolaunch:" asks for the bus to be started on demand: the very
	// thing refused here.
	if env != "" && !strings.HasPrefix(env, "autolaunch:") {
		return env, false, nil
	}
	if dir := getenv("XDG_RUNTIME_DIR"); dir != "" && filepath.IsAbs(dir) && filepath.Clean(dir) != filepath.Clean(runUser) {
		if p := filepath.Join(dir, "bus"); isSocket(p) {
			return "unix:path=" + escapeBusValue(p), true, nil
		}
	}
	if p := filepath.Join(runUser, "bus"); exists(p) {
		return "unix:path=" + escapeBusValue(p), env != "", nil
	}
	if b, err := os.ReadFile(filepath.Join(runUser, "dbus-session")); err == nil {
		if a, ok := strings.CutPrefix(string(b), "DBUS_SESSION_BUS_ADDRESS="); ok {
			if a = strings.TrimRight(a, "\r\n"); a != "" {
				return a, env != "", nil
			}
		}
	}
	where := "DBUS_SESSION_BUS_ADDRESS is unset"
	if env != "" {
		where = "DBUS_SESSION_BUS_ADDRESS is " + env
	}
	places := runUser + "/bus"
	if dir := getenv("XDG_RUNTIME_DIR"); dir != "" && filepath.Clean(dir) != filepath.Clean(runUser) {
		places = filepath.Join(dir, "bus") + " nor " + places
	}
	return "", false, fmt.Errorf("%w (%s, and there is no %s; agate starts no bus of its own)", ErrNoSessionBus, where, places)
}

func isSocket(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Type() == os.ModeSocket
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// escapeBusValue escapes a value in a D-Bus address: bytes outside
// [-0-9A-Za-z_/.\*] become %XX.
func escapeBusValue(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', strings.IndexByte("-_/.\\*", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}
