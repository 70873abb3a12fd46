package cli

import (
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

// processEnv returns the Env of the running process.
func processEnv(desktop Desktop) *Env {
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Desktop: desktop}
}
