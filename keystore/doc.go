// Package keystore keeps agate's secrets: provider API keys and tokens
// sealed at rest, references to secrets kept elsewhere, and an index of
// known secret values so that a tool call carrying one can be caught.
//
// # The sealed store
//
// A Store is one JSON file (agate passes <state dir>/keys.json). Each secret
// in it is sealed on its own with XChaCha20-Poly1305 under a random 256-bit
// master key, with the format version and the secret's name as associated
// data: a sealed value moved to another name, a flipped byte or a truncated
// file fails to open with ErrTampered and an *EntryError naming the entry,
// never as garbage and never as a silently emptied store. The file is
// written atomically (temp file, fsync, rename; mode 0600 in a 0700
// folder), and a read-modify-write holds a lock file, so two processes
// setting keys at once both keep their write.
//
// The master key itself is kept by a Backend: the OS keychain (Keychain,
// through github.com/zalando/go-keyring), or, where no keychain answers,
// wrapped in the store file under a key derived from a passphrase with
// argon2id (Passphrase). The store records which backend holds its key
// (Store.Backend) and can move it to another one without re-sealing the
// secrets (Store.Migrate). The key is created on first use and never
// re-created while sealed secrets exist: a key that is missing or does not
// match is ErrLocked, so a store is never orphaned by a fresh key.
//
// # References
//
// Wherever the config takes a secret it takes a reference to it instead
// (see ParseRef): ${VAR} reads the environment at use time, exec:COMMAND
// runs a command that prints the secret, file:/path reads a mounted secret
// and keystore:NAME opens a sealed one. A Resolver resolves them and keeps
// values for 60 seconds; a secret that is unset, or a vault that is locked
// or failing, reads as unset with its reason, never as a wrong value.
//
// # Keeping key material out of sight
//
// No error, log line or string this package makes contains a secret value:
// at most its name and a masked tail (Mask). An Index built from the known
// values answers whether a string carries one of them, fast enough to ask
// about every argument of every tool call; RecordLeak notes, by name only,
// a secret that appeared in an agent's arguments so that `agate doctor`
// keeps asking for it to be rotated.
package keystore
