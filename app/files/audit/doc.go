// Package audit owns agate's audit log: audit.jsonl in the state folder,
// one JSON Record per line, and its rotated files audit.1.jsonl (newest)
// to audit.N.jsonl.
//
// The contract:
//
//   - Append returns only once its line is on disk (fsync'd); appends that
//     arrive together are written together and synced once (group commit).
//   - Each line carries the SHA-256 of the line before it (Prev) and the
//     next sequence number (Seq), across rotations, so that Verify notices
//     a line removed or edited. The oldest line kept anchors the chain.
//   - A torn last line (a crash mid-write; never acknowledged) is cut off
//     when the log is opened. A write that fails (a full disk) is cut back
//     too, and its sequence numbers reused: no torn line, no gap.
//   - The log rotates past its size between lines, keeping its newest
//     files.
//   - The state folder must be private to this user: Open checks it
//     (osutil.MakeDir) before anything is written.
//
// Only the daemon writes the log. `agate log` and the tray's Activity tab
// read it with Read, Follow and Verify.
package audit
