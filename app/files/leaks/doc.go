// Package leaks owns leaks.json in agate's state folder: the secrets seen
// pasted into an agent's chat, which count as compromised until the
// person says they are rotated.
//
// The contract:
//
//   - The record names a secret by its fingerprint (the first 12 hex
//     digits of the value's SHA-256), its kind and, for a secret agate
//     keeps, its name; never by its value, a part of it, or the prompt it
//     was seen in.
//   - Add and Clear change the file under a lock (leaks.json.lock) and
//     write it atomically (a temp file, synced and renamed), so the daemon
//     recording a leak and `agate keys rotated` with no daemon never lose
//     each other's change, and a crash leaves the old file whole.
//   - A secret seen again is one leak, counted; the record keeps at most
//     1000, dropping the one seen longest ago (the audit log keeps every
//     secret.leaked event).
//   - A file that does not parse is an error naming it: a leak is never
//     dropped silently, and Add refuses to write over it.
package leaks
