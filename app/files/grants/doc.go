// Package grants owns grants.toml, beside config.toml: the "always"
// answers, per agent. agate writes this file itself (and never rewrites
// the person's config.toml for a grant); a person may read it, edit it or
// remove it, which revokes what it granted.
//
// The contract:
//
//   - Load reads version 2 (one table per grant, with when it was saved)
//     and version 1 (a list per agent); a missing file is no grants. A
//     file that does not parse is an error naming the file, the line and
//     the key: a grant is never dropped silently, and a file newer than
//     this agate reads is refused.
//   - Update changes the file under a lock (grants.toml.lock) and writes
//     it atomically in version 2, so two writers (the daemon saving an
//     answer, `agate grants revoke` with no daemon) never lose each other's
//     change.
//   - A grant added for a tool that already has a broad grant widens it in
//     place (Widen); a narrow one is added once.
package grants
