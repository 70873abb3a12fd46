// Package tokens owns tokens.json in the state folder: the scoped tokens
// a person gives callers that are not themselves (a CI runner's user, a
// home-made agent running as a service user).
//
// A token is shown once, when it is made, and stored only as its SHA-256
// hash (it is 32 random bytes: a hash that is slow to compute would add
// nothing). Each is bound to a name, the uid that may present it, an
// optional project (its calls are decided only there), an optional mode
// (a floor: its calls are decided at least that strictly) and an
// optional expiry. Lookup takes the secret and the uid that presented it
// and says which token it is, or why it is refused (unknown, another
// uid's, expired), never which part of the secret was wrong. The file is
// written atomically under a lock, 0600, in a folder private to the
// person; a file that does not parse is an error, never "no tokens".
//
// A dev container's token (Container, `agate container add`) is bound to
// the container's own socket, in a folder of its own the container
// mounts (ContainerDir), and to one project, which the container sees at
// Inside: HostPath and HostText move the paths a container's call names
// to the host's, InsidePath and InsideText move them back for what the
// container is told.
package tokens
