package keystore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"
)

// PassphraseEnv is the environment variable the passphrase is read from.
const PassphraseEnv = "AGATE_PASSPHRASE"

// Prompt asks the person for the key store's passphrase: on a terminal,
// in the tray app. isNew is true when a passphrase is being chosen (a
// prompter should then ask twice). A prompter that cannot ask returns an
// error wrapping ErrLocked.
type Prompt func(ctx context.Context, isNew bool) (string, error)

// EnvPrompt returns a Prompt that answers $AGATE_PASSPHRASE when it is set
// and not empty, and otherwise asks next. With no next, an unset variable
// is ErrLocked.
func EnvPrompt(next Prompt) Prompt {
	return func(ctx context.Context, isNew bool) (string, error) {
		if p := os.Getenv(PassphraseEnv); p != "" {
			return p, nil
		}
		if next == nil {
			return "", fmt.Errorf("%w: no passphrase (%s is not set)", ErrLocked, PassphraseEnv)
		}
		return next(ctx, isNew)
	}
}

// KDF are the argon2id parameters that turn a passphrase into the key
// wrapping the master key. They are stored beside the wrapped key, so a
// store opens with the parameters it was written with.
type KDF struct {
	Time      uint32 `json:"time"`       // passes over memory
	MemoryKiB uint32 `json:"memory_kib"` // memory in KiB
	Threads   uint8  `json:"threads"`    // lanes
}

// DefaultKDF returns the parameters for a new passphrase: RFC 9106's second
// recommendation (t=3, 64 MiB, 4 lanes), about 0.1 s on a 2-core machine.
func DefaultKDF() KDF { return KDF{Time: 3, MemoryKiB: 64 << 10, Threads: 4} }

// check bounds parameters read from a file, so that a damaged file cannot
// ask for gigabytes or hours.
func (k KDF) check() error {
	if k.Time < 1 || k.Time > 64 || k.Threads < 1 || k.Threads > 64 ||
		k.MemoryKiB < 8*uint32(k.Threads) || k.MemoryKiB > 1<<20 {
		return fmt.Errorf("argon2id parameters out of range (t=%d, m=%d KiB, p=%d)", k.Time, k.MemoryKiB, k.Threads)
	}
	return nil
}

func (k KDF) derive(pass string, salt []byte) []byte {
	return argon2.IDKey([]byte(pass), salt, k.Time, k.MemoryKiB, k.Threads, chacha20poly1305.KeySize)
}

// Passphrase is the fallback Backend for machines with no keychain: the
// master key is wrapped (XChaCha20-Poly1305) under a key derived from a
// passphrase with argon2id, and the wrapped key, salt and parameters are
// kept in the store file. Nothing is kept elsewhere.
type Passphrase struct {
	// Ask returns the passphrase; nil is ErrLocked. Use
	// EnvPrompt(terminalPrompt) for $AGATE_PASSPHRASE, then a prompt.
	Ask Prompt
	// KDF are the parameters for a new wrapping; zero means DefaultKDF.
	KDF KDF
}

var _ Backend = (*Passphrase)(nil)

// passphraseState is what the passphrase backend keeps in the store file.
type passphraseState struct {
	Alg     string `json:"kdf"` // "argon2id"
	KDF            // inlined: time, memory_kib, threads
	Salt    string `json:"salt"`
	Wrapped string `json:"wrapped"` // base64(nonce|ciphertext|tag) of the master key
}

// wrapAD binds the wrapped key to its role and the format version.
var wrapAD = []byte(fmt.Sprintf("agate-keystore\x00v%d\x00master-key", formatVersion))

// Name returns "passphrase".
func (p *Passphrase) Name() string { return "passphrase" }

// Get asks for the passphrase and unwraps the master key kept in state. A
// wrong passphrase is ErrLocked.
func (p *Passphrase) Get(ctx context.Context, state json.RawMessage) ([]byte, error) {
	if state == nil {
		return nil, fmt.Errorf("passphrase: master key: %w", ErrNotFound)
	}
	var st passphraseState
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, fmt.Errorf("passphrase: state: %w: %v", ErrTampered, jsonProblem(err))
	}
	if st.Alg != "argon2id" {
		return nil, fmt.Errorf("passphrase: unknown kdf %q: %w", st.Alg, ErrTampered)
	}
	if err := st.KDF.check(); err != nil {
		return nil, fmt.Errorf("passphrase: %w: %v", ErrTampered, err)
	}
	salt, err := b64.DecodeString(st.Salt)
	if err != nil || len(salt) < 16 || len(salt) > 64 {
		return nil, fmt.Errorf("passphrase: %w: malformed salt", ErrTampered)
	}
	pass, err := p.ask(ctx, false)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("passphrase: %w", err)
	}
	aead, err := newAEAD(st.KDF.derive(pass, salt))
	if err != nil {
		return nil, err
	}
	key, err := open(aead, wrapAD, st.Wrapped)
	if err != nil {
		return nil, fmt.Errorf("passphrase: %w: wrong passphrase (or a damaged store file)", ErrLocked)
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("passphrase: %w: wrapped key is %d bytes", ErrTampered, len(key))
	}
	return key, nil
}

// Set asks for a new passphrase and returns key wrapped under it, with a
// fresh salt.
func (p *Passphrase) Set(ctx context.Context, key []byte) (json.RawMessage, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("passphrase: master key is %d bytes, want %d", len(key), KeySize)
	}
	pass, err := p.ask(ctx, true)
	if err != nil {
		return nil, err
	}
	kdf := p.KDF
	if kdf == (KDF{}) {
		kdf = DefaultKDF()
	}
	if err := kdf.check(); err != nil {
		return nil, fmt.Errorf("passphrase: %w", err)
	}
	salt := make([]byte, 16)
	rand.Read(salt)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("passphrase: %w", err)
	}
	aead, err := newAEAD(kdf.derive(pass, salt))
	if err != nil {
		return nil, err
	}
	st := passphraseState{Alg: "argon2id", KDF: kdf, Salt: b64.EncodeToString(salt), Wrapped: seal(aead, wrapAD, key)}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("passphrase: %w", err)
	}
	return data, nil
}

// Delete does nothing: the wrapped key lives in the store file, which
// drops it when the store moves to another backend.
func (p *Passphrase) Delete(context.Context) error { return nil }

func (p *Passphrase) ask(ctx context.Context, isNew bool) (string, error) {
	if p.Ask == nil {
		return "", fmt.Errorf("passphrase: %w: no way to ask for a passphrase", ErrLocked)
	}
	pass, err := p.Ask(ctx, isNew)
	if err != nil {
		if errors.Is(err, ErrLocked) {
			return "", fmt.Errorf("passphrase: %w", err)
		}
		return "", fmt.Errorf("passphrase: %w: %w", ErrLocked, err)
	}
	if pass == "" {
		return "", fmt.Errorf("passphrase: %w: empty passphrase", ErrLocked)
	}
	return pass, nil
}
