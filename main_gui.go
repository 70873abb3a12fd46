//go:build !nogui

package main

import (
	"github.com/agatehq/agate/app/cli"
	"github.com/agatehq/agate/ui"
)

// desktop starts the tray app: `agate` with no arguments runs it where
// there is a display, and the headless daemon where there is none.
var desktop cli.Desktop = ui.Run
