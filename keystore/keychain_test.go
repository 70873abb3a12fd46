package keystore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

// fakeRing plays go-keyring: a map, errors on demand, and calls that hang
// until released.
type fakeRing struct {
	mu        sync.Mutex
	items     map[string]string
	err       error         // every call fails with it
	deleteErr error         // Delete fails with it
	hang      chan struct{} // when set, calls wait until it is closed
}

func (f *fakeRing) wait() error {
	f.mu.Lock()
	h, err := f.hang, f.err
	f.mu.Unlock()
	if h != nil {
		<-h
	}
	return err
}

func (f *fakeRing) Get(service, user string) (string, error) {
	if err := f.wait(); err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.items[service+"/"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (f *fakeRing) Set(service, user, pw string) error {
	if err := f.wait(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.items == nil {
		f.items = map[string]string{}
	}
	f.items[service+"/"+user] = pw
	return nil
}

func (f *fakeRing) Delete(service, user string) error {
	if err := f.wait(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deleteErr != nil {
		return f.deleteErr
	}
	if _, ok := f.items[service+"/"+user]; !ok {
		return keyring.ErrNotFound
	}
	delete(f.items, service+"/"+user)
	return nil
}

// TestKeychainErrors maps go-keyring's answers to the package's sentinels
// (the errors seen on a machine with no Secret Service are in
// NOTES-machine.md: a dbus error, a dial error, dbus-launch missing).
func TestKeychainErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		why  string
		ring *fakeRing
		want error
	}{
		{"missing entry", &fakeRing{}, ErrNotFound},
		{"no secret service", &fakeRing{err: errors.New("The name org.freedesktop.secrets was not provided by any .service files")}, ErrUnavailable},
		{"no bus", &fakeRing{err: errors.New("dial unix /run/user/0/bus: connect: no such file or directory")}, ErrUnavailable},
		{"no dbus-launch", &fakeRing{err: errors.New(`exec: "dbus-launch": executable file not found in $PATH`)}, ErrUnavailable},
		{"not a master key", &fakeRing{items: map[string]string{"agate/master-key": "hunter2"}}, ErrTampered},
	} {
		k := &Keychain{ring: tc.ring}
		_, err := k.Get(ctx, nil)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Get = %v, want %v", tc.why, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error quotes the entry's content", tc.why)
		}
	}
	k := &Keychain{ring: &fakeRing{}}
	if err := k.Delete(ctx); err != nil {
		t.Errorf("Delete of a missing entry = %v, want nil", err)
	}
}

// TestKeychainHangs: a keychain that never answers (a locked gnome-keyring
// waiting on an unlock window) is unavailable once the timeout or the
// context ends, and the store moves on to the passphrase.
func TestKeychainHangs(t *testing.T) {
	ring := &fakeRing{hang: make(chan struct{})}
	t.Cleanup(func() { close(ring.hang) })
	k := &Keychain{ring: ring, Timeout: 20 * time.Millisecond}
	if _, err := k.Get(context.Background(), nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Get = %v, want ErrUnavailable", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&Keychain{ring: ring}).Set(ctx, newMasterKey()); !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("Set with an ended context = %v, want ErrUnavailable and context.Canceled", err)
	}
	s, _ := Open(storePath(t), k, testPassphrase("pw"))
	if err := s.Set(context.Background(), "k", "value-despite-a-hung-keychain"); err != nil {
		t.Fatal(err)
	}
	if s.Backend() != "passphrase" {
		t.Errorf("Backend() = %q, want passphrase", s.Backend())
	}
}

// TestKeychainDefaultEntry runs against the real Secret Service with the
// entry agate itself uses, service "agate", user "master-key".
func TestKeychainDefaultEntry(t *testing.T) {
	needSecretService(t)
	ctx := context.Background()
	k := &Keychain{}
	t.Cleanup(func() { k.Delete(ctx) })
	path := storePath(t)
	s, err := Open(path, k, testPassphrase("unused"))
	if err != nil {
		t.Fatal(err)
	}
	mustSet(t, s, map[string]string{"openai": "sk-real-secret-service-0123456789"})
	if s.Backend() != "keychain" {
		t.Fatalf("Backend() = %q, want keychain", s.Backend())
	}
	raw, err := keyring.Get(KeychainService, KeychainUser)
	if err != nil {
		t.Fatalf("go-keyring does not see the entry agate/master-key: %v", err)
	}
	if key, err := b64.DecodeString(raw); err != nil || len(key) != KeySize {
		t.Errorf("the entry is not a base64 256-bit key")
	}
	// Move to the passphrase and back: secrets stay sealed as they were.
	if err := s.Migrate(ctx, testPassphrase("moved")); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(KeychainService, KeychainUser); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("after moving to the passphrase, the keychain entry is still there: %v", err)
	}
	r, _ := Open(path, &Keychain{}, testPassphrase("moved"))
	if got, err := r.Get(ctx, "openai"); err != nil || got != "sk-real-secret-service-0123456789" {
		t.Fatalf("Get after the move = %q, %v", Mask(got), err)
	}
	if err := r.Migrate(ctx, &Keychain{}); err != nil {
		t.Fatal(err)
	}
	fresh, _ := Open(path, &Keychain{})
	if got, err := fresh.Get(ctx, "openai"); err != nil || got != "sk-real-secret-service-0123456789" || fresh.Backend() != "keychain" {
		t.Fatalf("Get after moving back = %q, %v (backend %q)", Mask(got), err, fresh.Backend())
	}
}
