package policy

import "github.com/agatehq/agate/policy/stores"

// SecretStore is where one tool keeps its secrets: a read of one of its
// paths, or of a folder that holds one, is a secret read, and the sandbox
// hides each that exists. A path is "~/...", absolute, or a name or glob
// matched anywhere; a trailing "/" is a folder and all it holds.
type SecretStore = stores.Secret

// SecretStores returns the built-in secret stores (policy/secrets.toml,
// as stores.Secrets holds it), sorted by name. The caller must not
// change the list.
func SecretStores() []SecretStore { return stores.Secrets() }
