// Package cli is agate's command line: one file per command (check, serve,
// status, approvals, grants, log, hooks, keys, run, sandbox, doctor, ...),
// registered in a table that Run looks commands up in.
//
// Commands talk to a running daemon only through api's Client, and read or
// edit agate's files only through the packages that own them (config,
// grants, audit, hooks/settings, keystore). serve (with start) is the one
// command that constructs a daemon, and serve.go the one file that imports
// package daemon.
//
// Exit codes: 0, 1 for a failure, 2 for bad usage, a bad config or a bad
// request (every agent agate supports reads 2 from a hook as "block this
// call"); `agate run` and `agate sandbox` exit with their command's
// status.
package cli
