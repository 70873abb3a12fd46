//go:build (linux || freebsd || netbsd || openbsd) && !nogui

package ui

import (
	"testing"

	"fyne.io/systray"
)

// TestSNITrayLayout checks sniTray against fyne.io/systray's own tray: what
// systray stores through its API, the mirror reads at the same place.
func TestSNITrayLayout(t *testing.T) {
	if sniInstance == nil {
		t.Fatal("fyne.io/systray.instance is not linked")
	}
	systray.SetTitle("probe title")
	systray.SetTooltip("probe tooltip")
	defer systray.SetTitle("")
	defer systray.SetTooltip("")
	sniInstance.lock.Lock()
	title, tip := sniInstance.title, sniInstance.tooltipTitle
	sniInstance.lock.Unlock()
	if title != "probe title" || tip != "probe tooltip" {
		t.Fatalf("the mirror of systray's tray is off: title %q, tooltip %q", title, tip)
	}
}
