package app

import (
	"context"
	"errors"
	"fmt"
	"log"
)

func init() {
	register(&command{
		name:    "serve",
		args:    "[--config FILE] [--socket PATH]",
		summary: "run the daemon headless: the local API, approvals, the audit log",
		run:     cmdServe,
	})
	register(&command{
		name:    "start",
		summary: "start the tray app, or the headless daemon where there is no display (the default command)",
		run:     cmdStart,
	})
}

// daemonPaths reads the flags serve and start share.
func daemonPaths(e *Env, name string, args []string) (Paths, error) {
	fs := newFlags(e, name)
	var cf configFlags
	cf.add(fs)
	if _, err := parseFlags(fs, args); err != nil {
		return Paths{}, err
	}
	paths, err := cf.paths()
	if err != nil {
		return Paths{}, usageErr(err)
	}
	return paths, nil
}

func cmdServe(ctx context.Context, e *Env, args []string) error {
	paths, err := daemonPaths(e, "serve", args)
	if err != nil {
		return err
	}
	return runDaemon(ctx, e, paths, nil)
}

func cmdStart(ctx context.Context, e *Env, args []string) error {
	paths, err := daemonPaths(e, "start", args)
	if err != nil {
		return err
	}
	if e.Desktop == nil {
		fmt.Fprintln(e.Stderr, "agate: this build has no desktop app: running the headless daemon")
		return runDaemon(ctx, e, paths, nil)
	}
	if why := noDisplay(); why != "" {
		fmt.Fprintf(e.Stderr, "agate: %s: running the headless daemon\n", why)
		return runDaemon(ctx, e, paths, nil)
	}
	return runDaemon(ctx, e, paths, e.Desktop)
}

// runDaemon runs a daemon on paths until ctx ends (or, with a desktop,
// until the person quits the tray app).
func runDaemon(ctx context.Context, e *Env, paths Paths, desktop Desktop) error {
	logger := log.New(e.Stderr, "agate: ", log.LstdFlags)
	l, err := Listen(paths.Socket)
	if err != nil {
		if errors.Is(err, ErrAlreadyRunning) {
			return fmt.Errorf("%w: use `agate status` to see it, or stop it first", err)
		}
		return err
	}
	d, err := NewDaemon(paths, DaemonOptions{Logger: logger})
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
