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
	d, serve, err := Start(paths, Options{Logger: logger})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logger.Printf("serving on %s (config %s, audit log %s)", paths.Socket, paths.Config, paths.AuditLog())
	if desktop != nil {
		// Until the tray's popup is up, calls that ask wait for it.
		d.SetPrompter(&awaitPrompter{d: d}, "tray")
	}
	if paths.TokenSocket != "" {
		if tl, err := d.ListenTokens(paths.TokenSocket); err != nil {
			logger.Printf("tokens' socket: %v (scoped tokens cannot be used)", err)
		} else {
			go func() {
				if err := d.ServeTokens(ctx, tl); err != nil {
					logger.Printf("tokens' socket: %v", err)
				}
			}()
		}
	}
	go d.serveContainers(ctx)
	go d.watchConfig(ctx)
	go d.watchSecrets(ctx)
	go d.exportAudit(ctx)
	go d.SandboxDiagnostics(ctx) // the first probe, before anyone asks
	go d.kernelSandbox(ctx)      // and the one confined unasked calls need
	errc := make(chan error, 1)
	go func() { errc <- serve(ctx) }()
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

// Start listens on paths.Socket and makes the daemon that will answer
// there; serve answers until ctx ends, then closes the daemon. Nothing is
// served before serve is called, so a caller can set a prompter first.
// Run is Start with the watchers and the desktop; tests start a daemon
// with it alone (package daemontest).
func Start(paths api.Paths, o Options) (d *Daemon, serve func(ctx context.Context) error, err error) {
	l, err := Listen(paths.Socket)
	if err != nil {
		return nil, nil, err
	}
	d, err = New(paths, o)
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return d, func(ctx context.Context) error {
		defer d.Close()
		return d.Serve(ctx, l)
	}, nil
}
