package ui

import (
	"errors"
	"os"
	"runtime"

	"github.com/gen2brain/beeep"

	"github.com/agatehq/agate/assets"
)

// errNoSessionBus means there is no session bus to send a notification on.
var errNoSessionBus = errors.New("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset): no desktop notification")

// notifyDesktop shows a desktop notification with beeep. It never calls
// beeep.Alert, which writes a BEL byte to standard output when it cannot
// play a sound. Run sets beeep.AppName once, before any. Without a session bus on Linux it sends nothing: asking
// for one would start a stray D-Bus daemon.
func notifyDesktop(title, body string) error {
	if runtime.GOOS == "linux" && os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return errNoSessionBus
	}
	return beeep.Notify(title, body, assets.Icon)
}
