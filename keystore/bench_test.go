package keystore

import (
	"context"
	"testing"
)

// BenchmarkGetCached is opening one secret once the master key is in
// memory: a stat of the store file and an XChaCha20-Poly1305 open.
func BenchmarkGetCached(b *testing.B) {
	ctx := context.Background()
	s, err := Open(b.TempDir()+"/keys.json", &Memory{})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Set(ctx, "openai", "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sD3gH6jE0"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Get(ctx, "openai"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnseal is the cryptography alone in BenchmarkGetCached: one
// XChaCha20-Poly1305 open of a 40-byte key, base64 included.
func BenchmarkUnseal(b *testing.B) {
	aead, err := newAEAD(newMasterKey())
	if err != nil {
		b.Fatal(err)
	}
	ad := entryAD("openai")
	sealed := seal(aead, ad, []byte("sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sD3gH6jE0"))
	for b.Loop() {
		if _, err := open(aead, ad, sealed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKeychainFirstGet is the first secret a process opens: the store
// file read and parsed, the master key fetched from the real Secret Service
// over D-Bus, then the open. Needs AGATE_TEST_SECRET_SERVICE=1.
func BenchmarkKeychainFirstGet(b *testing.B) {
	needSecretService(b)
	ctx := context.Background()
	k := &Keychain{Service: "agate-bench", User: "master-key"}
	b.Cleanup(func() { k.Delete(ctx) })
	path := b.TempDir() + "/keys.json"
	s, err := Open(path, k)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Set(ctx, "openai", "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sD3gH6jE0"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		fresh, err := Open(path, k)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := fresh.Get(ctx, "openai"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPassphraseFirstGet is the same first open with the passphrase
// fallback and the default argon2id parameters (t=3, 64 MiB, 4 lanes).
func BenchmarkPassphraseFirstGet(b *testing.B) {
	ctx := context.Background()
	p := &Passphrase{Ask: fixedPass("bench pass")}
	path := b.TempDir() + "/keys.json"
	s, err := Open(path, p)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Set(ctx, "openai", "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sD3gH6jE0"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		fresh, err := Open(path, p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := fresh.Get(ctx, "openai"); err != nil {
			b.Fatal(err)
		}
	}
}
