// Package osutil holds the operating-system helpers that agate's own
// files and its socket rely on: who is at the other end of a unix socket
// (peer credentials), and whether a folder is private to this user (owned
// by the user, not writable by others, not reached through a link that
// someone else owns).
//
// It imports nothing of agate's and nothing heavier than x/sys, so the
// lean hook binary (agate-hook), the daemon and the key store all use the
// same checks: a path that opens one of agate's files or dials its socket
// goes through here.
package osutil
