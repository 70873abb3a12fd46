// Package managed finds the managed policy file an administrator installs
// for every user of the machine, and says whether it can be trusted.
//
// Its place is fixed when agate is built (Path: /etc/agate/managed.toml
// on Linux, /Library/Application Support/agate/managed.toml on macOS,
// %ProgramFiles%\agate\managed.toml on Windows), never by a flag or a
// variable: a person who could name another file could name one of their
// own. Read gives its text only when the file, and every folder above
// it, is owned by root and writable by nobody else (a folder that others
// may write only with its sticky bit, as /tmp, where they cannot replace
// what root put there), the file is a regular file and not a link, and
// it is read through the descriptor that was checked. A file that is
// there but fails a check is ErrUnsafe, with what failed: the caller
// then fails closed on what the file would have said (policy's
// FailedManaged). On Windows the file's owner is not checked yet: a file
// there is ErrUnsafe.
//
// It imports nothing of agate's policy, so that agate-hook can read the
// file's [hooks] on_daemon_down when the daemon is down.
package managed
