// Package app is agate's application: the service, its clients and the
// files they own, one folder a concern. It holds no code; its tests
// (layout_test.go) keep the rooms apart and this map true.
//
//	daemon    the running gate: decisions, approvals and their broker, prompters, events, live reloads, the API's routes
//	api       the local API: its wire types, its Go client, where agate's files are
//	cli       every `agate` command, a file each; only serve.go constructs a daemon
//	hooks     the agents' hook protocols (one package an agent), the hook runner, agate-hook, the agents' settings files
//	mcp       the MCP proxy, the pins of the servers' tools, the MCP clients' configs
//	files     the files agate owns: the audit log, grants.toml, config.toml, leaks.json, the kept copies (undo)
//	machine   what the pure packages are given of this machine: the policy's options, paths, globs, the sandbox's options and profile
//	osutil    the OS helpers, once: atomic writes, locks, fsync, file identity, peer credentials, private folders
//	version   agate's version, set at build time
//	internal  the helpers only app uses: strictjson, jsonc and tomledit (the format-keeping editors), the test helpers
//
// What may import what is in layout_test.go. In short: the owned files
// import neither the daemon nor the command line; the command line
// imports the daemon only in serve.go; the hook binary links the hooks,
// the API, the OS helpers and the sandbox with its profile, never the
// policy engine or the daemon; only ui
// imports Fyne, and only the main package imports ui.
package app
