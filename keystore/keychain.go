package keystore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/zalando/go-keyring"
)

// The keychain entry that holds agate's master key.
const (
	KeychainService = "agate"
	KeychainUser    = "master-key"
)

// DefaultKeychainTimeout bounds one keychain call. A locked keychain may
// show an unlock window and wait for the person; one that never answers
// (gnome-keyring with DISPLAY set and nobody to type) fails after it.
const DefaultKeychainTimeout = 30 * time.Second

// Keychain is the Backend that keeps the master key in the OS keychain:
// the Secret Service on Linux (gnome-keyring, KWallet), the Keychain on
// macOS, the Credential Manager on Windows. Its zero value uses the entry
// service "agate", user "master-key": one key for every store of the
// person's account.
//
// A new store adopts the key the entry already holds, so every store of
// the account shares it (a second agate with its own AGATE_STATE_DIR, say);
// moving one of them off the keychain with Store.Migrate removes the entry
// the others use.
//
// Any error from the keychain other than a missing entry means it is
// unavailable (no Secret Service, no session bus, a timeout): ErrUnavailable.
//
// On Linux and the BSDs the keychain is the Secret Service on the D-Bus
// session bus. Where there is none, Keychain does not ask: left alone,
// go-keyring would have dbus-launch start a session bus (and the bus a
// gnome-keyring-daemon) that outlives the process. The error then wraps
// ErrNoSessionBus as well as ErrUnavailable.
type Keychain struct {
	Service string        // "agate" when empty
	User    string        // "master-key" when empty
	Timeout time.Duration // per call; DefaultKeychainTimeout when zero

	ring keyringAPI // nil: github.com/zalando/go-keyring
}

var _ Backend = (*Keychain)(nil)

// keyringAPI is the part of go-keyring Keychain uses; tests replace it.
type keyringAPI interface {
	Get(service, user string) (string, error)
	Set(service, user, password string) error
	Delete(service, user string) error
}

// osKeyring is go-keyring's package-level provider.
type osKeyring struct{}

// The go-keyring calls, through the provider it picked for the OS.
func (osKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }
func (osKeyring) Set(service, user, pw string) error       { return keyring.Set(service, user, pw) }
func (osKeyring) Delete(service, user string) error        { return keyring.Delete(service, user) }

// Name returns "keychain".
func (k *Keychain) Name() string { return "keychain" }

// Get reads the master key from the keychain entry.
func (k *Keychain) Get(ctx context.Context, _ json.RawMessage) ([]byte, error) {
	var s string
	err := k.call(ctx, "read", func(r keyringAPI) (err error) {
		s, err = r.Get(k.service(), k.user())
		return err
	})
	if err != nil {
		return nil, err
	}
	key, err := b64.DecodeString(s)
	if err != nil || len(key) != KeySize {
		return nil, fmt.Errorf("keychain entry %s/%s is not an agate master key: %w", k.service(), k.user(), ErrTampered)
	}
	return key, nil
}

// Set writes the master key to the keychain entry, replacing it.
func (k *Keychain) Set(ctx context.Context, key []byte) (json.RawMessage, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("keychain: master key is %d bytes, want %d", len(key), KeySize)
	}
	s := b64.EncodeToString(key)
	return nil, k.call(ctx, "write", func(r keyringAPI) error { return r.Set(k.service(), k.user(), s) })
}

// Delete removes the keychain entry; a missing one is not an error.
func (k *Keychain) Delete(ctx context.Context) error {
	err := k.call(ctx, "delete", func(r keyringAPI) error { return r.Delete(k.service(), k.user()) })
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// call runs one keychain call in a goroutine, because go-keyring takes no
// context and a keychain can wait forever for a person. When ctx ends or
// the timeout passes first, call returns ErrUnavailable and the goroutine
// is left to finish (or not) on its own.
func (k *Keychain) call(ctx context.Context, what string, f func(keyringAPI) error) error {
	r := k.ring
	if r == nil {
		if err := sessionBus(); err != nil {
			return fmt.Errorf("keychain %s: %w: %w", what, ErrUnavailable, err)
		}
		r = osKeyring{}
	}
	timeout := k.Timeout
	if timeout <= 0 {
		timeout = DefaultKeychainTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("keychain %s: %w: %w", what, ErrUnavailable, err)
	}
	done := make(chan error, 1)
	go func() { done <- f(r) }()
	select {
	case err := <-done:
		switch {
		case err == nil:
			return nil
		case errors.Is(err, keyring.ErrNotFound):
			return fmt.Errorf("keychain %s %s/%s: %w", what, k.service(), k.user(), ErrNotFound)
		default:
			return fmt.Errorf("keychain %s: %w: %v", what, ErrUnavailable, err)
		}
	case <-ctx.Done():
		return fmt.Errorf("keychain %s: %w: no answer (%w); a locked keychain may be waiting for its password", what, ErrUnavailable, ctx.Err())
	}
}

func (k *Keychain) service() string {
	if k.Service == "" {
		return KeychainService
	}
	return k.Service
}

func (k *Keychain) user() string {
	if k.User == "" {
		return KeychainUser
	}
	return k.User
}
