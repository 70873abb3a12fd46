// Package api is agate's local API as its clients see it: the wire types
// of the daemon's routes (HTTP/JSON under /v1 on a unix socket), the Go
// Client that the command line, the hook adapters and the desktop app
// share, and where the daemon's files are (Paths).
//
// It is small on purpose: the hook binary, which runs once per tool call,
// links this package and not the daemon.
package api
