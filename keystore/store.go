package keystore

import (
	"bytes"
	"context"
	"crypto/cipher"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agatehq/agate/app/osutil"
)

// Store is the sealed key store: one file of secrets, each sealed under a
// master key kept by a Backend. It is safe for concurrent use, by
// goroutines and by processes: reads see a whole file (writes replace it
// by rename) and writes hold a lock file around read-modify-write.
//
// The master key, once fetched from its backend, is kept in memory for
// the Store's life, so only the first secret opened asks the keychain or
// the passphrase.
type Store struct {
	path string

	mu       sync.Mutex
	backends []Backend   // by preference, for a new master key; guarded by mu
	cur      *fileData   // the file last read, never changed in place
	curStat  fs.FileInfo // its stat, to notice a newer file; nil when there was none
	key      []byte      // the cached master key, or nil
	keyID    string      // its id
	aead     cipher.AEAD // its cipher
}

// Entry is one secret as List shows it: its name and a masked tail.
type Entry struct {
	Name   string
	Masked string // Mask(value), or "" when Err is set
	Err    error  // an *EntryError when this entry does not open
}

// Open opens the store file at path, which need not exist yet: a new store
// is written on the first Set. backends are the places the master key may
// be kept, by preference: a new master key goes to the first that answers
// (agate passes the keychain, then the passphrase); an existing one is
// asked from the backend the file names.
//
// Open reads and checks the file but asks no backend anything: a store is
// unlocked when a secret is first opened or set. A damaged file is
// ErrTampered.
func Open(path string, backends ...Backend) (*Store, error) {
	seen := map[string]bool{}
	for _, b := range backends {
		if seen[b.Name()] {
			return nil, fmt.Errorf("open key store: backend %q given twice", b.Name())
		}
		seen[b.Name()] = true
	}
	// The store's folder must be this user's alone (the state folder).
	if err := osutil.MakeDir(filepath.Dir(path), false); err != nil {
		return nil, fmt.Errorf("open key store: %w", err)
	}
	s := &Store{path: path, backends: slices.Clone(backends)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.current(); err != nil {
		return nil, err
	}
	return s, nil
}

// Path returns the store file's path.
func (s *Store) Path() string { return s.path }

// Backend returns the name of the backend keeping the master key
// ("keychain", "passphrase"), or "" while the store has none (no secret was
// ever set) or when the file cannot be read (the next call says why).
func (s *Store) Backend() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.current()
	if err != nil || f.Master == nil {
		return ""
	}
	return f.Master.Backend
}

// Names returns the names of the secrets, sorted, without unlocking.
func (s *Store) Names() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.current()
	if err != nil {
		return nil, err
	}
	return sortedNames(f), nil
}

// Get opens the secret called name. It fails with ErrNotFound (no such
// secret), ErrLocked (the master key cannot be had) or ErrTampered (the
// entry does not authenticate), in an *EntryError naming it where the
// failure is the entry's.
func (s *Store) Get(ctx context.Context, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.current()
	if err != nil {
		return "", err
	}
	sealed, ok := f.Entries[name]
	if !ok {
		return "", &EntryError{Name: name, Err: ErrNotFound}
	}
	aead, err := s.unlock(ctx, f)
	if err != nil {
		return "", err
	}
	plain, err := open(aead, entryAD(name), sealed)
	if err != nil {
		return "", &EntryError{Name: name, Err: err}
	}
	return string(plain), nil
}

// Set seals value under name, replacing any secret of that name. On the
// store's first secret it creates the master key in the first backend that
// answers. value must not be empty, hold a NUL byte (it has to fit in an
// environment variable) or pass 64 KiB.
func (s *Store) Set(ctx context.Context, name, value string) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("set key %q: %w", name, err)
	}
	if err := checkValue(value); err != nil {
		return fmt.Errorf("set key %q: %w", name, err)
	}
	return s.update(ctx, func(f *fileData) error {
		aead, err := s.ensureKey(ctx, f)
		if err != nil {
			return err
		}
		f.Entries[name] = seal(aead, entryAD(name), []byte(value))
		return nil
	})
}

// Delete removes the secret called name: ErrNotFound when there is none.
func (s *Store) Delete(ctx context.Context, name string) error {
	s.mu.Lock()
	f, err := s.current()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if _, ok := f.Entries[name]; !ok {
		return &EntryError{Name: name, Err: ErrNotFound}
	}
	return s.update(ctx, func(f *fileData) error {
		if _, ok := f.Entries[name]; !ok {
			return &EntryError{Name: name, Err: ErrNotFound}
		}
		delete(f.Entries, name)
		return nil
	})
}

// List returns every secret with a masked tail, sorted by name. An entry
// that does not open carries its error and the others are still listed.
// When the store is locked, List returns the names alone and the error.
func (s *Store) List(ctx context.Context) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.current()
	if err != nil {
		return nil, err
	}
	names := sortedNames(f)
	list := make([]Entry, len(names))
	for i, n := range names {
		list[i].Name = n
	}
	if len(names) == 0 {
		return list, nil
	}
	aead, err := s.unlock(ctx, f)
	if err != nil {
		return list, err
	}
	for i, n := range names {
		plain, err := open(aead, entryAD(n), f.Entries[n])
		if err != nil {
			list[i].Err = &EntryError{Name: n, Err: err}
			continue
		}
		list[i].Masked = Mask(string(plain))
	}
	return list, nil
}

// Values opens every secret and returns them by name, to build an Index.
// Entries that do not open are left out and reported in the error (joined
// *EntryErrors), so the map is usable even when the error is not nil,
// except for a locked store, which returns no map.
func (s *Store) Values(ctx context.Context) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.current()
	if err != nil {
		return nil, err
	}
	vals := make(map[string]string, len(f.Entries))
	if len(f.Entries) == 0 {
		return vals, nil
	}
	aead, err := s.unlock(ctx, f)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, n := range sortedNames(f) {
		plain, err := open(aead, entryAD(n), f.Entries[n])
		if err != nil {
			errs = append(errs, &EntryError{Name: n, Err: err})
			continue
		}
		vals[n] = string(plain)
	}
	return vals, errors.Join(errs...)
}

// CleanupError is a Migrate that moved the master key but could not remove
// the old copy from the backend it left: the store works, and the old
// backend still holds a key that opens it.
type CleanupError struct {
	Backend string // the backend left, e.g. "keychain"
	Err     error
}

// Error says the move stands and what is left behind.
func (e *CleanupError) Error() string {
	return fmt.Sprintf("the master key moved, but its old copy in %s was not removed: %v", e.Backend, e.Err)
}

// Unwrap returns the underlying error.
func (e *CleanupError) Unwrap() error { return e.Err }

// Migrate moves the master key to backend to, without re-sealing a
// secret: it unlocks the key from the backend holding it, has to keep it,
// records to in the file, then asks the old backend to forget it (a
// failure there is a *CleanupError; the move stands). Migrating to the
// backend in use rewraps the key, which for the passphrase changes the
// passphrase. A backend that already holds a different key (the keychain
// entry of another store) is not overwritten: that is an error. A store
// with no master key yet gets a new one in to.
func (s *Store) Migrate(ctx context.Context, to Backend) error {
	var from string
	err := s.update(ctx, func(f *fileData) error {
		s.useBackend(to)
		if f.Master == nil {
			_, err := s.createIn(ctx, f, []Backend{to})
			return err
		}
		from = f.Master.Backend
		if _, err := s.unlock(ctx, f); err != nil {
			return err
		}
		held, err := to.Get(ctx, nil)
		switch {
		case err == nil && !bytes.Equal(held, s.key):
			return fmt.Errorf("migrate to %s: it already holds another master key (another agate store's?); not replacing it", to.Name())
		case err != nil && !errors.Is(err, ErrNotFound):
			return fmt.Errorf("migrate to %s: %w", to.Name(), err)
		}
		state, err := to.Set(ctx, s.key)
		if err != nil {
			return fmt.Errorf("migrate to %s: %w", to.Name(), err)
		}
		f.Master = &masterRecord{Backend: to.Name(), KeyID: s.keyID, State: state}
		return nil
	})
	if err != nil || from == "" || from == to.Name() {
		return err
	}
	s.mu.Lock()
	old := s.backend(from)
	s.mu.Unlock()
	if old == nil {
		return nil
	}
	if err := old.Delete(ctx); err != nil {
		return &CleanupError{Backend: from, Err: err}
	}
	return nil
}

// update runs change on a fresh copy of the file under the lock file and
// writes the result.
func (s *Store) update(ctx context.Context, change func(*fileData) error) error {
	unlock, err := lockFile(ctx, s.path)
	if err != nil {
		return err
	}
	defer unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.reload()
	if err != nil {
		return err
	}
	nf := f.clone()
	if err := change(nf); err != nil {
		return err
	}
	if err := osutil.WriteFile(s.path, nf.marshal(), 0o600); err != nil {
		return err
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("key store: %w", err)
	}
	s.cur, s.curStat = nf, fi
	return nil
}

// current returns the file as it is now, reading it again only when it
// changed since the last read. s.mu must be held.
func (s *Store) current() (*fileData, error) {
	fi, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.cur, s.curStat = emptyFile(), nil
		return s.cur, nil
	case err != nil:
		return nil, fmt.Errorf("key store: %w", err)
	case s.cur != nil && s.curStat != nil && os.SameFile(fi, s.curStat) &&
		fi.ModTime().Equal(s.curStat.ModTime()) && fi.Size() == s.curStat.Size():
		return s.cur, nil
	}
	return s.reload()
}

// reload reads and parses the file. s.mu must be held.
func (s *Store) reload() (*fileData, error) {
	file, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.cur, s.curStat = emptyFile(), nil
		return s.cur, nil
	}
	if err != nil {
		return nil, fmt.Errorf("key store: %w", err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("key store: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("key store %s: not a regular file", s.path)
	}
	data, err := io.ReadAll(io.LimitReader(file, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("key store: %w", err)
	}
	f, err := parseFile(data)
	if err != nil {
		return nil, fmt.Errorf("key store %s: %w", s.path, err)
	}
	s.cur, s.curStat = f, fi
	return f, nil
}

// errKeyMissing is a backend that holds no master key for a store that
// names it. It travels with ErrLocked, never alone, and is not ErrNotFound
// (which callers read as "no such secret").
var errKeyMissing = errors.New("master key missing")

// unlock returns the cipher of f's master key, fetching the key from its
// backend unless it is cached. f must have a master record; s.mu must be
// held.
func (s *Store) unlock(ctx context.Context, f *fileData) (cipher.AEAD, error) {
	m := f.Master
	if m == nil {
		return nil, fmt.Errorf("%w: the store has no master key", ErrLocked)
	}
	if s.aead != nil && s.keyID == m.KeyID {
		return s.aead, nil
	}
	b := s.backend(m.Backend)
	if b == nil {
		return nil, fmt.Errorf("%w: the master key is kept by %q, which is not available here", ErrLocked, m.Backend)
	}
	key, err := b.Get(ctx, m.State)
	switch {
	case err == nil:
	case errors.Is(err, ErrNotFound):
		return nil, fmt.Errorf("%w: %w: %s holds no master key for this store, so the store's secrets (%d) cannot be opened (a new key would orphan them)",
			ErrLocked, errKeyMissing, m.Backend, len(f.Entries))
	case errors.Is(err, ErrLocked), errors.Is(err, ErrTampered):
		return nil, fmt.Errorf("unlock key store: %w", err)
	default:
		return nil, fmt.Errorf("%w: %w", ErrLocked, err)
	}
	if keyID(key) != m.KeyID {
		return nil, fmt.Errorf("%w: the master key in %s does not open this store", ErrLocked, m.Backend)
	}
	return s.cache(key)
}

// ensureKey is unlock for a write: a store with no master key, or whose
// backend lost the key while no secret needed it, gets a new one. s.mu must
// be held; f is the copy being changed.
func (s *Store) ensureKey(ctx context.Context, f *fileData) (cipher.AEAD, error) {
	if f.Master != nil {
		aead, err := s.unlock(ctx, f)
		if err == nil || len(f.Entries) > 0 || !errors.Is(err, errKeyMissing) {
			return aead, err
		}
	}
	return s.createIn(ctx, f, s.backends)
}

// createIn gives f a master key kept by the first of backends that
// answers: the key it already holds (the keychain entry serves every store
// of the account), or a new one. s.mu must be held.
func (s *Store) createIn(ctx context.Context, f *fileData, backends []Backend) (cipher.AEAD, error) {
	var skipped []string
	for _, b := range backends {
		key, err := b.Get(ctx, nil)
		var state []byte
		switch {
		case err == nil:
		case errors.Is(err, ErrNotFound):
			key = newMasterKey()
			state, err = b.Set(ctx, key)
		}
		if errors.Is(err, ErrUnavailable) {
			skipped = append(skipped, err.Error())
			continue
		}
		if err != nil {
			if len(skipped) > 0 {
				return nil, fmt.Errorf("create the master key: %w (and %s)", err, strings.Join(skipped, "; "))
			}
			return nil, fmt.Errorf("create the master key: %w", err)
		}
		aead, err := s.cache(key)
		if err != nil {
			return nil, err
		}
		f.Master = &masterRecord{Backend: b.Name(), KeyID: s.keyID, State: state}
		return aead, nil
	}
	if len(skipped) == 0 {
		return nil, fmt.Errorf("%w: no backend to keep the master key", ErrLocked)
	}
	return nil, fmt.Errorf("%w: no backend answers: %s", ErrLocked, strings.Join(skipped, "; "))
}

// cache keeps key as the unlocked master key. s.mu must be held.
func (s *Store) cache(key []byte) (cipher.AEAD, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	s.key, s.keyID, s.aead = key, keyID(key), aead
	return aead, nil
}

// backend returns the backend called name, or nil. s.mu must be held.
func (s *Store) backend(name string) Backend {
	for _, b := range s.backends {
		if b.Name() == name {
			return b
		}
	}
	return nil
}

// useBackend puts b in place of the backend of its name, or adds it. s.mu
// must be held.
func (s *Store) useBackend(b Backend) {
	for i, old := range s.backends {
		if old.Name() == b.Name() {
			s.backends[i] = b
			return
		}
	}
	s.backends = append(s.backends, b)
}

// checkValue accepts a secret's value.
func checkValue(v string) error {
	switch {
	case v == "":
		return errors.New("empty value")
	case len(v) > maxValueSize:
		return fmt.Errorf("value is %d bytes, more than the %d allowed", len(v), maxValueSize)
	case strings.IndexByte(v, 0) >= 0:
		return errors.New("value holds a NUL byte")
	}
	return nil
}

func sortedNames(f *fileData) []string {
	names := make([]string, 0, len(f.Entries))
	for n := range f.Entries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
