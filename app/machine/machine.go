package machine

import (
	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/keystore"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

// The same sandbox options and key store for the daemon, the command line
// and the desktop app: the settings panel shows and changes what the
// commands see.

// SandboxOptions are the sandbox options the config gives a command run in
// the folder work: the settings panel's Sandbox tab probes with them, as
// `agate sandbox` confines with them.
func SandboxOptions(cfg *policy.Config, p api.Paths, work string) sandbox.Options {
	home, _ := api.HomeDir()
	return sandboxOptions(cfg, p, home, work)
}

// OpenKeyStore opens the key store with agate's backends: the OS keychain
// first, then the passphrase, which ask supplies ($AGATE_PASSPHRASE is
// tried before it; a nil ask leaves a passphrase store locked).
func OpenKeyStore(p api.Paths, ask keystore.Prompt) (*keystore.Store, error) {
	return keystore.Open(p.KeyStore(), &keystore.Keychain{}, &keystore.Passphrase{Ask: keystore.EnvPrompt(ask)})
}
