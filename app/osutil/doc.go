// Package osutil holds, once, the operating-system helpers that agate's
// own files and its socket rely on:
//
//   - whether a folder is private to this user (owned by the user, not
//     writable by others, not reached through a link that someone else
//     owns): MakeDir, CheckDir, CheckSocket;
//   - who is at the other end of a unix socket (peer credentials);
//   - files replaced atomically (WriteFile), backed up (Backup), read up
//     to a limit (ReadLimited) and, for agate's own, only from a private
//     folder (ReadPrivate), locked across processes (Lock), made durable
//     (SyncData, SyncDir), and told apart across renames (FileID);
//   - the process's limit on open files (FileLimit).
//
// It imports nothing of agate's and nothing heavier than x/sys, so the
// lean hook binary (agate-hook), the daemon, the command line and the key
// store all use the same code: a path that opens one of agate's files or
// dials its socket goes through here.
package osutil
