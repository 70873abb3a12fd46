// Package assets holds agate's icons, drawn by gen.go and embedded in the
// binary: the application icon and one tray icon per state. It imports no
// GUI toolkit; package ui wraps the bytes as Fyne resources.
package assets

import (
	"embed"
	"strconv"
)

//go:generate go run gen.go

//go:embed icon.png tray-*.png
var files embed.FS

// Icon is the application icon, 256×256 PNG.
var Icon = mustRead("icon.png")

// TrayState is what the tray icon shows.
type TrayState int

// The tray icon's states.
const (
	TrayIdle    TrayState = iota // nothing waiting, mode ask/accept_edits/manual
	TrayPending                  // approvals waiting: the icon carries their count
	TrayPlan                     // plan mode (paused): every call that acts is denied
	TrayYolo                     // yolo mode: everything allows, a warning
	TrayError                    // the config file does not parse
)

// Tray returns the tray icon (64×64 PNG) for a state; count is the number
// of approvals waiting, used by TrayPending (past 9 it shows "9+").
func Tray(s TrayState, count int) (name string, png []byte) {
	switch s {
	case TrayPending:
		name = "tray-pending-many.png"
		if count >= 1 && count <= 9 {
			name = "tray-pending-" + strconv.Itoa(count) + ".png"
		}
	case TrayPlan:
		name = "tray-plan.png"
	case TrayYolo:
		name = "tray-yolo.png"
	case TrayError:
		name = "tray-error.png"
	default:
		name = "tray-idle.png"
	}
	return name, mustRead(name)
}

func mustRead(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("assets: " + err.Error()) // the files are embedded: not reachable
	}
	return b
}
