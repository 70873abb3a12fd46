// Package sandbox confines the commands that agents run: the filesystem
// read-only except a work dir and a private /tmp, no network unless asked,
// no capabilities, its own process and session, an environment without
// credentials, and the gate's own socket and key store out of reach.
//
// # Launchers
//
// A launcher is the OS mechanism that does the confining. They are tried in
// this order when [Options.Launcher] is "auto", and one can be pinned by
// name:
//
//   - "bwrap" (Linux): bubblewrap with every namespace unshared, all
//     capabilities dropped, / bound read-only, /proc/sys read-only, a private
//     /tmp and /dev, dying with its parent, in a new session.
//   - "landlock" (Linux): agate re-executes itself (see [MaybeReexec]) into
//     new user, pid, mount, net, ipc and uts namespaces, hides and pins
//     paths with mounts, drops every capability and applies Landlock, which
//     denies writes outside the work dir even to root.
//   - "sandbox-exec" (macOS): a generated SBPL profile.
//   - "podman", "docker": a container with only the work dir mounted, a
//     read-only root, no capabilities and no network.
//   - "wrapper": a custom executable that runs its arguments isolated
//     (Pepe's contract), given the work dir in AGATE_SANDBOX_CWD and
//     PEPE_SANDBOX_CWD.
//   - "none": no confinement.
//
// # Failing closed
//
// When no launcher works the command does not run: [Command] returns an
// error wrapping [ErrUnavailable] that names what to install. Only a caller
// that names a launcher and sets [Options.FailClosed] to false gets the
// command run unconfined, with [UnconfinedNote] printed by [Run].
//
// # Honest diagnostics
//
// [Probe] reports whether a launcher works by running a tiny confined
// command that must fail to write outside its work dir and fail to reach a
// listener on the host's loopback, never by looking a binary up on PATH.
// [Prober] caches the answer until the options change.
package sandbox
