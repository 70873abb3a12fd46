// Package config owns agate's config: config.toml (where api.Paths finds
// it), the last good copy of it in the state folder
// (config.last-good.toml), the pause (pause.json) and the per-project
// overlays (.agate.toml). The policy package parses what it reads here.
//
// Reading (ReadFile, Read, Load): a missing file reads as its last good
// copy when there is one, then by Mode: the defaults with nothing written
// (ReadOnly: commands that only look), the commented defaults written on
// a true first run (AtStart), or an error (Live: a reload never swaps in
// anything for a file that went away). An empty file is always an error
// (ErrEmpty), never "the defaults". The daemon saves each config it puts
// in force as the last good copy (SaveLastGood).
//
// Editing (EditFile, PreviewEdits, EditText): an Edit sets or removes one
// key in place, keeping every comment, the formatting and the keys it does
// not name. A file that does not parse is never edited (ErrBroken); the
// result is checked whole by the policy's parser before it is written,
// atomically, with the file's mode kept. Reset is the one deliberate way
// back to the defaults, with a backup of the file first.
//
// Pause puts every agent in plan mode through edits, remembering the
// modes it replaced in pause.json; Resume puts them back.
package config
