//go:build !(linux || freebsd || netbsd || openbsd) && !nogui

package ui

import "fyne.io/systray"

// setTrayItem sets the tray icon's title and tooltip; where the tray is not
// a StatusNotifierItem there is no status to set.
func setTrayItem(title, tooltip, _ string) {
	systray.SetTitle(title)
	systray.SetTooltip(tooltip)
}
