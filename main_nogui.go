//go:build nogui

package main

import "github.com/agatehq/agate/app/cli"

// desktop is nil in the command-line build: `agate` with no arguments runs
// the headless daemon, and hooks start without loading any GUI library.
var desktop cli.Desktop
