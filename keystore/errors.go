package keystore

import (
	"errors"
	"fmt"
)

// Errors callers branch on, checked with errors.Is.
var (
	// ErrNotFound is a secret that is not in the store, or a master key
	// that a backend does not hold.
	ErrNotFound = errors.New("not found")
	// ErrLocked is a store whose master key cannot be had: no keychain and
	// no passphrase, a wrong passphrase, a keychain that does not answer or
	// holds another key.
	ErrLocked = errors.New("key store locked")
	// ErrTampered is a store file or entry that fails authentication: a
	// flipped byte, an entry moved to another name, a truncated or
	// malformed file.
	ErrTampered = errors.New("tampered or corrupt")
	// ErrUnavailable is a backend that does not answer, such as a machine
	// with no Secret Service. The store tries the next backend for a new
	// master key; for an existing one it reports ErrLocked.
	ErrUnavailable = errors.New("unavailable")
	// ErrNoSessionBus is a keychain that cannot be reached because there
	// is no D-Bus session bus (Linux and the BSDs, where the Secret Service
	// lives on it): a server, an SSH login, a cron job. It always comes
	// with ErrUnavailable. agate never starts a bus to ask.
	ErrNoSessionBus = errors.New("no D-Bus session bus")
	// ErrUnset is a reference whose secret is not configured: an unset
	// environment variable, a missing file or key store entry.
	ErrUnset = errors.New("not configured")
	// ErrBadReference is a reference that does not parse.
	ErrBadReference = errors.New("bad reference")
)

// EntryError is a failure about one named secret. Its message carries the
// name, never the value.
type EntryError struct {
	Name string // the secret's name in the store
	Err  error  // wraps ErrNotFound, ErrTampered or ErrLocked
}

// Error names the entry and the failure.
func (e *EntryError) Error() string { return fmt.Sprintf("key %q: %v", e.Name, e.Err) }

// Unwrap returns the underlying error.
func (e *EntryError) Unwrap() error { return e.Err }

// RefError is a reference that could not be resolved. It describes the
// reference by its kind and a safe part of it (a variable name, a path, an
// entry name, the program of a command), never by the whole text or value.
type RefError struct {
	Ref string // safe description, e.g. "${OPENAI_API_KEY}" or "exec:op"
	Err error  // wraps ErrUnset, ErrLocked, ErrBadReference or the command's failure
}

// Error describes the reference and the failure.
func (e *RefError) Error() string { return fmt.Sprintf("%s: %v", e.Ref, e.Err) }

// Unwrap returns the underlying error.
func (e *RefError) Unwrap() error { return e.Err }
