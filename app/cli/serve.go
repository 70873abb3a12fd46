package cli

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon"
)

// Desktop runs the tray app around a daemon until ctx ends or the person
// quits (see daemon.Desktop). The ui package provides it; the
// command-line build has none.
type Desktop = daemon.Desktop

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
func daemonPaths(e *Env, name string, args []string) (api.Paths, error) {
	fs := newFlags(e, name)
	var cf configFlags
	cf.add(fs)
	if _, err := parseFlags(fs, args); err != nil {
		return api.Paths{}, err
	}
	paths, err := cf.paths()
	if err != nil {
		return api.Paths{}, usageErr(err)
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
// until the person quits the tray app), logging to e's standard error.
func runDaemon(ctx context.Context, e *Env, paths api.Paths, desktop Desktop) error {
	err := daemon.Run(ctx, paths, log.New(e.Stderr, "agate: ", log.LstdFlags), desktop)
	if errors.Is(err, daemon.ErrAlreadyRunning) {
		return fmt.Errorf("%w: use `agate status` to see it, or stop it first", err)
	}
	return err
}
