// Package machine is this machine as agate's pure packages are given it:
// the facts a policy is compiled with (the home folder, agate's own
// folders and binary), paths resolved through their links, globs expanded
// as the shell would, the sandbox's options as the config sets them for a
// folder, and the key store opened with agate's backends. The daemon, the
// command line and the desktop app take them from here, so each sees what
// the others see.
package machine
