// Package app wires agate together: the command line, the daemon and its
// local API, approvals, the audit log, the hook adapters for real agents, and
// the glue between config, policy, sandbox and keystore.
//
// It never imports a GUI toolkit. The desktop app (package ui) plugs in
// through the Desktop and Prompter interfaces, so the daemon runs and is
// tested headless.
package app

import (
	"context"
	"io"
	"os"
)

// Env is what a command needs from the process around it. Tests build one
// with buffers and a fake environment; Main builds it from the real process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Desktop starts the tray app; nil in the command-line build.
	Desktop Desktop
}

// Desktop runs the tray app around a daemon until ctx ends or the person
// quits. The ui package provides it; the command-line build has none.
type Desktop func(ctx context.Context, d *Daemon) error

// processEnv returns the Env of the running process.
func processEnv(desktop Desktop) *Env {
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Desktop: desktop}
}
