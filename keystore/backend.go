package keystore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Backend keeps a store's master key.
//
// Some backends hold the key themselves (the OS keychain, Memory); others
// keep it wrapped inside the store file (Passphrase): Set returns the state
// the store must keep for them, and Get is given it back. A backend that
// holds the key itself returns nil state and ignores the state it is given.
type Backend interface {
	// Name identifies the backend in the store file and in reports:
	// "keychain", "passphrase", "memory".
	Name() string
	// Get returns the master key. It fails with ErrNotFound when the
	// backend holds no key, ErrUnavailable when it does not answer, and
	// ErrLocked when it cannot be unlocked (no or a wrong passphrase).
	Get(ctx context.Context, state json.RawMessage) (key []byte, err error)
	// Set keeps key, replacing any key the backend held, and returns the
	// state the store keeps beside its secrets.
	Set(ctx context.Context, key []byte) (state json.RawMessage, err error)
	// Delete forgets the key; a backend that holds none returns nil.
	Delete(ctx context.Context) error
}

// Memory is a Backend that holds the master key in memory, for tests and
// for a throwaway store. Its zero value holds no key.
type Memory struct {
	mu  sync.Mutex
	key []byte // guarded by mu
	// Err, when set, is returned by every call, to play a backend that
	// fails (set it before sharing the Memory).
	Err error
}

var _ Backend = (*Memory)(nil)

// Name returns "memory".
func (m *Memory) Name() string { return "memory" }

// Get returns the key held, or ErrNotFound.
func (m *Memory) Get(ctx context.Context, _ json.RawMessage) ([]byte, error) {
	if err := m.fail(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.key == nil {
		return nil, fmt.Errorf("memory: master key: %w", ErrNotFound)
	}
	return bytes.Clone(m.key), nil
}

// Set holds key.
func (m *Memory) Set(ctx context.Context, key []byte) (json.RawMessage, error) {
	if err := m.fail(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.key = bytes.Clone(key)
	return nil, nil
}

// Delete forgets the key.
func (m *Memory) Delete(ctx context.Context) error {
	if err := m.fail(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.key = nil
	return nil
}

func (m *Memory) fail(ctx context.Context) error {
	if m.Err != nil {
		return fmt.Errorf("memory: %w", m.Err)
	}
	return ctx.Err()
}
