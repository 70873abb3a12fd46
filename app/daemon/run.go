package daemon

import (
	"context"
	"log"

	"github.com/agatehq/agate/app/api"
)

// Desktop runs the tray app around a daemon until ctx ends or the person
// quits. The ui package provides it; the command-line build has none.
type Desktop func(ctx context.Context, d *Daemon) error

// Run listens on paths.Socket and runs a daemon there until ctx
// ends (or, with a desktop, until the person quits the tray app): config
// and grants edits apply live, the leak index is kept fresh, and the
// sandbox is probed once before anyone asks. It returns ErrAlreadyRunning
// when another daemon answers on the socket.
func Run(ctx context.Context, paths api.Paths, logger *log.Logger, desktop Desktop) error {
	l, err := Listen(paths.Socket)
	if err != nil {
		return err
	}
	d, err := New(paths, Options{Logger: logger})
	if err != nil {
		l.Close()
		return err
	}
	defer d.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logger.Printf("serving on %s (config %s, audit log %s)", paths.Socket, paths.Config, paths.AuditLog())
	if desktop != nil {
		// Until the tray's popup is up, calls that ask wait for it.
		d.SetPrompter(&awaitPrompter{d: d}, "tray")
	}
	go d.watchConfig(ctx)
	go d.watchSecrets(ctx)
	go d.SandboxDiagnostics(ctx) // the first probe, before anyone asks
	errc := make(chan error, 1)
	go func() { errc <- d.Serve(ctx, l) }()
	if desktop != nil {
		derr := desktop(ctx, d)
		cancel()
		serr := <-errc
		if derr != nil {
			return derr
		}
		return serr
	}
	return <-errc
}
