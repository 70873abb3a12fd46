// Package app is agate's application: the service, its clients and the
// files they own, one package (a room) per concern. It holds no code; its
// test (layout_test.go) is the import rule that keeps the rooms apart.
//
// The service and its clients:
//
//	daemon        the running gate: decisions, approvals and their broker, prompters,
//	              events, live reloads, the local API's routes; `agate serve` and the
//	              tray app each run one
//	cli           every `agate` command, a file each; they reach a running daemon only
//	              through api's Client, and serve is the one that constructs a daemon
//	api           the local API's wire types, its Go client, where agate's files are
//	hook          the agents' hook protocols (payloads, answers, settings entries)
//	hookcmd       the hook runner; hookcmd/agate-hook is the lean per-call binary
//
// The files agate owns, each package stating its contract:
//
//	audit         the audit log: append (fsync'd, hash-chained), rotate, read, verify, follow
//	grants        grants.toml, the saved "always" answers (formats 1 and 2)
//	config        config.toml: find and read (the last good copy, the first run's
//	              defaults), edit in place keeping comments, reset, pause; project overlays
//
// Around them:
//
//	hooksettings  agate's hooks in the agents' own settings files: install, remove, check
//	machine       what the pure packages are given of this machine: the policy's
//	              options, paths through links, globs, the sandbox's options, the key store
//	osutil        the OS helpers, once: atomic writes, locks, fsync, file identity, peer
//	              credentials, the private-folder checks
//	version       agate's version, set at build time
//	strictjson    JSON decoding that refuses a member named twice
//	apptest       for tests: private paths, the real binaries, recorded hook payloads
//	agenttest     for end-to-end tests: a fake model server, the real agents
//
// What may import what is in layout_test.go. In short: the owned-file
// packages import neither the daemon nor the command line; the command
// line imports the daemon only in serve.go; only ui imports Fyne, and only
// the main package imports ui.
package app
