package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/agatehq/agate/keystore"
	"github.com/agatehq/agate/policy"
)

// secretsRefresh is how often the leak index is rebuilt: the values of
// references may change (a rotated key in a vault), and are cached no
// longer than this.
const secretsRefresh = 60 * time.Second

// secretState is what the daemon knows of the secrets it watches for.
type secretState struct {
	mu      sync.Mutex // guards the fields below
	index   *keystore.Index
	err     error // what could not be resolved, for doctor
	updated time.Time
}

// watchSecrets keeps the leak index fresh until ctx ends: the key store's
// values and the config's [secrets] env references. A store that cannot be
// opened (no keychain, no passphrase) leaves the index with what could be
// had; the provider-key shapes are detected regardless.
func (d *Daemon) watchSecrets(ctx context.Context) {
	t := time.NewTicker(secretsRefresh)
	defer t.Stop()
	for {
		d.refreshSecrets(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// refreshSecrets rebuilds the leak index once.
func (d *Daemon) refreshSecrets(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	cfg, _ := d.Config()
	store, err := keystore.Open(d.paths.KeyStore(), &keystore.Keychain{}, &keystore.Passphrase{Ask: keystore.EnvPrompt(nil)})
	if err != nil {
		store = nil
	}
	resolver := keystore.NewResolver(store, cfg.Secrets.VaultEnv)
	vals, kerr := keystore.Known(ctx, store, resolver, cfg.Secrets.Env)
	if err != nil && kerr == nil {
		kerr = err
	}
	ix := keystore.NewIndex(vals)
	d.secretsState.mu.Lock()
	d.secretsState.index, d.secretsState.err, d.secretsState.updated = ix, kerr, time.Now()
	d.secretsState.mu.Unlock()
	if ix.Len() > 0 {
		d.SetSecrets(ix)
	} else {
		d.SetSecrets(nil)
	}
}

// noteLeaks records which known secrets appeared in a call's arguments, so
// `agate doctor` can say which keys to rotate. Only names are recorded.
func (d *Daemon) noteLeaks(args map[string]any) {
	d.secretsState.mu.Lock()
	ix := d.secretsState.index
	d.secretsState.mu.Unlock()
	if ix == nil || ix.Len() == 0 {
		return
	}
	now := time.Now()
	for _, s := range policy.StringArgs(args) {
		if label, ok := ix.Find(s); ok {
			if err := keystore.RecordLeak(d.paths.State, label, now); err != nil {
				d.logger.Printf("record that %s leaked: %v", label, err)
			}
		}
	}
}

var _ policy.KnownSecrets = (*keystore.Index)(nil)
