package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"

	"github.com/agatehq/agate/app/hooks"
)

// Main answers one hook call as a whole process and returns its exit
// status, which is only ever 0 (the answer is on stdout) or 2 (the call
// is blocked, the reason on stderr).
//
// Agents read any other ending as "no opinion": Gemini CLI runs a call
// whose hook exited 1, or died by a signal, or exited 2 with nothing on
// stderr; Claude Code runs one whose hook exited 1. So whatever happens
// here ends in 0 or 2: a signal (SIGTERM, SIGINT, SIGHUP, SIGQUIT, ...)
// before the answer is out blocks the call with a message naming it; a
// closed stdout (SIGPIPE) makes the write fail, which blocks it; a panic
// blocks it. A signal that comes after the answer was written ends the
// process with the answer's status.
func Main(ctx context.Context, o Options) (code int) {
	out := &guardedWriter{w: o.Stdout}
	o.Stdout = out
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	// The handlers stay until the process ends: a signal that comes after
	// the answer must not kill it with a signal's status either.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	ignoreBrokenPipe()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case sig := <-sigs:
			cancel()
			out.stop(func(answered bool) {
				if answered {
					os.Exit(0)
				}
				fmt.Fprintf(stderr, "agate: the hook was stopped (%v) before agate answered; the call was blocked\n", sig)
				os.Exit(hooks.ExitBlock)
			})
		case <-ctx.Done():
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			out.stop(func(answered bool) {
				if answered {
					code = 0
					return
				}
				fmt.Fprintf(stderr, "agate: the hook failed (%v); the call was blocked\n", p)
				code = hooks.ExitBlock
			})
		}
	}()
	code = Run(ctx, o)
	if code != 0 && code != hooks.ExitBlock {
		fmt.Fprintf(stderr, "agate: the hook ended with status %d; the call was blocked\n", code)
		code = hooks.ExitBlock
	}
	return code
}

// guardedWriter is stdout for Main: one answer, written whole, or not at
// all once the process is stopping.
type guardedWriter struct {
	mu       sync.Mutex
	w        io.Writer
	answered bool // an answer was written in full
	stopped  bool // the process is ending: nothing more goes out
}

func (g *guardedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return 0, errStopped
	}
	if g.w == nil {
		return 0, errStopped
	}
	n, err := g.w.Write(p)
	if err == nil && n == len(p) {
		g.answered = true
	}
	return n, err
}

// stop runs fn with whether an answer was written, after any write under
// way, and keeps any later write from going out. fn may end the process.
func (g *guardedWriter) stop(fn func(answered bool)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	fn(g.answered)
}

type stoppedError struct{}

func (stoppedError) Error() string { return "the hook is stopping" }

var errStopped error = stoppedError{}
