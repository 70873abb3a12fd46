// Package codexconfig reads and edits the hooks agate installs in Codex
// CLI's config.toml, and the trust Codex needs before it runs them
// (docs/hook-protocols.md §9). It is pure: it takes a file's bytes and
// returns new bytes; the caller reads, backs up and writes the files.
//
// Codex runs a hook from a config layer only once it is trusted: the
// user's config.toml holds, per hook, [hooks.state."KEY"] trusted_hash =
// "sha256:…", where KEY is "SOURCE:EVENT_LABEL:GROUP:HANDLER" (positional:
// the group's index among the event's groups in that file) and the hash
// is of the hook's normalized definition. Key and Hook.Hash compute both
// as Codex 0.171 does; an untrusted or changed hook is skipped silently
// by `codex exec`.
//
// agate's hooks live in one block at the end of the file, between two
// marker comments (BeginMarker, EndMarker). TOML lets an array of tables
// go on later in a file, so agate's groups come after any the person
// wrote for the same event, and their indices are counted from those.
// Everything outside the block stays byte for byte. Every edit parses
// the file before (a file that is not TOML is an error naming the line,
// and nothing is changed) and after (an edit that would not parse, or
// would not put agate's hooks where the keys say, is refused).
package codexconfig
