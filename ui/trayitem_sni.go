//go:build (linux || freebsd || netbsd || openbsd) && !nogui

package ui

import (
	"fmt"
	"sync"
	_ "unsafe" // go:linkname

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// On Linux and the BSDs the tray icon is a StatusNotifierItem on the
// session bus, which fyne.io/systray exports. It sets the item's title and
// tooltip but has no way to set its Status, which it leaves at "Active":
// a panel never learns that calls wait (NeedsAttention). setTrayItem sets
// it through the item's own properties, reached as below.

// sniTray is fyne.io/systray's unexported tray (systray_unix.go), field for
// field, at the version go.mod pins; the blank fields are the ones agate
// does not read. TestSNITrayLayout checks the mirror against the library,
// so an update of systray that changes the struct fails it.
type sniTray struct {
	conn                *dbus.Conn
	_                   []byte // iconData
	title, tooltipTitle string
	lock                sync.Mutex
	_                   *struct{} // menu
	_                   sync.RWMutex
	props               *prop.Properties
	_                   *prop.Properties // menuProps
	_                   uint32           // menuVersion
}

//go:linkname sniInstance fyne.io/systray.instance
var sniInstance *sniTray

const (
	sniPath  = "/StatusNotifierItem"
	sniIface = "org.kde.StatusNotifierItem"
)

// setTrayItem sets the tray item's title, tooltip and status ("Active",
// "NeedsAttention"). Before the tray is up (no session bus, no loop yet)
// the title and tooltip are kept for it and the status is left: Run sets
// them all again once the loop has started.
func setTrayItem(title, tooltip, status string) {
	systray.SetTitle(title)
	systray.SetTooltip(tooltip)
	t := sniInstance
	if t == nil {
		return
	}
	t.lock.Lock()
	conn, props := t.conn, t.props
	t.lock.Unlock()
	if conn == nil || props == nil {
		return
	}
	// systray sets the tooltip without telling the panel.
	if err := conn.Emit(sniPath, sniIface+".NewToolTip"); err != nil {
		return // the bus is gone: nothing to tell
	}
	if cur, err := props.Get(sniIface, "Status"); err == nil && cur.Value() == status {
		return
	}
	if err := setProp(props, "Status", status); err != nil {
		return
	}
	conn.Emit(sniPath, sniIface+".NewStatus", status)
}

// setProp sets a property the item exports read-only; SetMust panics when
// it cannot tell the bus (a closed connection).
func setProp(props *prop.Properties, name string, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("set %s: %v", name, r)
		}
	}()
	props.SetMust(sniIface, name, v)
	return nil
}
