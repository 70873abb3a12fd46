package keystore

import (
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// KeySize is the size of the master key in bytes.
const KeySize = chacha20poly1305.KeySize

// b64 is the encoding of binary fields in the store file. It is strict, so
// that every base64 string has one meaning and no flipped character goes
// unnoticed.
var b64 = base64.StdEncoding.Strict()

// newMasterKey returns a fresh random master key.
func newMasterKey() []byte {
	k := make([]byte, KeySize)
	rand.Read(k) // never fails: crypto/rand crashes the program instead
	return k
}

// keyID names a master key without revealing it: the first 16 bytes of an
// HMAC of a fixed label under the key. The store file keeps it, so a key
// from a backend that does not open the store is caught before any entry
// is tried.
func keyID(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("agate-keystore key id v1"))
	return b64.EncodeToString(m.Sum(nil)[:16])
}

// newAEAD returns the cipher for a master key.
func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("master key is %d bytes, want %d: %w", len(key), KeySize, ErrTampered)
	}
	return chacha20poly1305.NewX(key)
}

// entryAD is the associated data of an entry: the format version and the
// name, so that a sealed value moved to another name, or read as another
// version, fails to open.
func entryAD(name string) []byte {
	return []byte(fmt.Sprintf("agate-keystore\x00v%d\x00entry\x00%s", formatVersion, name))
}

// seal encrypts value for name: base64(nonce || ciphertext || tag).
func seal(aead cipher.AEAD, ad []byte, plain []byte) string {
	n := aead.NonceSize()
	buf := make([]byte, n, n+len(plain)+aead.Overhead())
	rand.Read(buf)
	return b64.EncodeToString(aead.Seal(buf, buf[:n], plain, ad))
}

// open decrypts what seal returned. Every failure, from bad base64 to a
// failed authentication, is ErrTampered.
func open(aead cipher.AEAD, ad []byte, sealed string) ([]byte, error) {
	raw, err := b64.DecodeString(sealed)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64", ErrTampered)
	}
	n := aead.NonceSize()
	if len(raw) < n+aead.Overhead() {
		return nil, fmt.Errorf("%w: %d bytes, too short", ErrTampered, len(raw))
	}
	plain, err := aead.Open(nil, raw[:n], raw[n:], ad)
	if err != nil {
		return nil, fmt.Errorf("%w: authentication failed", ErrTampered)
	}
	return plain, nil
}
