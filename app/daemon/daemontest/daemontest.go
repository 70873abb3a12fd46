// Package daemontest starts a real daemon for a test, as `agate serve`
// and the tray app start one, so that the tests of each of its clients
// (the command line, the hook runner, the desktop app, the agents'
// end-to-end tests) live beside the client: paths private to the test
// (apptest.Paths), a socket the daemon listens on until the test ends,
// and a client for it. apptest.Prompter stands for the person.
package daemontest

import (
	"io"
	"log"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon"
	"github.com/agatehq/agate/app/internal/apptest"
)

// Start runs a daemon on p until the test ends and returns it with a
// client of its socket. Its log is discarded.
func Start(t testing.TB, p api.Paths) (*daemon.Daemon, *api.Client) {
	t.Helper()
	d, serve, err := daemon.Start(p, daemon.Options{Logger: log.New(io.Discard, "", 0)})
	apptest.Serve(t, serve, err)
	return d, &api.Client{Socket: p.Socket}
}
