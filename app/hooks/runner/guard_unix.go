//go:build unix

package runner

import (
	"os"
	"os/signal"
	"syscall"
)

// stopSignals are the signals whose default action would end the hook
// with a signal's status, which an agent may read as "no opinion".
var stopSignals = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGVTALRM,
	syscall.SIGXCPU, syscall.SIGXFSZ,
}

// ignoreBrokenPipe makes a write to a closed stdout fail with EPIPE
// instead of killing the process: with SIGPIPE delivered to a channel, Go
// no longer exits on it.
func ignoreBrokenPipe() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}
