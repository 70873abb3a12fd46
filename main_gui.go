//go:build !nogui

package main

import "github.com/agatehq/agate/app"

// desktop starts the tray app. Until the desktop build links the UI it is
// nil, and `agate` with no arguments runs the headless daemon.
var desktop app.Desktop
