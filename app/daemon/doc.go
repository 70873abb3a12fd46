// Package daemon is the running gate: the policy in force (swapped whole on
// a good reload of the config), the sessions' grants and taint, the
// approvals waiting for a person and their broker, the prompters that ask
// (the tray in-process, terminals on the event stream), the events pushed
// to subscribers, the audit log it writes, and the local API's routes on a
// unix socket private to this user.
//
// Every call is decided by the policy, or by a person when the policy says
// ask and someone can be asked; it is answered only once it is in the
// audit log, and nothing failing ever allows it. No prompter, a nil one, a
// closed window, a timeout: each is a deny, and the log says which.
//
// Run is how a daemon runs (`agate serve`, the tray app): it listens on
// the socket, watches config.toml and grants.toml, and serves until its
// context ends. The desktop app plugs in through Desktop and Prompter, so
// the daemon runs and is tested headless. The daemon reads and writes
// agate's files only through the packages that own them (config, grants,
// audit); its sessions live in its memory and end with it.
package daemon
