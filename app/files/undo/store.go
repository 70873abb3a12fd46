package undo

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/osutil"
)

// Dir is the store's folder name in the state folder.
const Dir = "undo"

// entryFile is the name of an entry's record in its folder.
const entryFile = "entry.json"

// maxEntryFile bounds the entry.json a store reads.
var maxEntryFile int64 = 64 << 20 // (a variable for tests)

// The errors callers branch on.
var (
	// ErrNotFound is an id the store holds no entry for.
	ErrNotFound = errors.New("no kept copy has that id")
	// ErrSecret is a path that is, or holds, a file named like a secret:
	// agate keeps no copy of it.
	ErrSecret = errors.New("it holds a secret, of which agate keeps no copy")
	// ErrLimit is a keep that the limits refuse.
	ErrLimit = errors.New("over agate's limits for kept copies")
	// ErrSpecial is a path that is, or holds, something that is not a
	// file, a folder or a link (a device, a socket, a FIFO).
	ErrSpecial = errors.New("it holds something that is not a file, a folder or a link")
	// ErrUnsupported is a platform where agate keeps nothing.
	ErrUnsupported = errors.New("agate keeps no copies on this platform")
)

// Limits bound what the store keeps. A zero field keeps nothing of that
// kind: MaxCall 0 refuses every keep.
type Limits struct {
	MaxCall  int64         // bytes one keep may hold
	MaxTotal int64         // bytes all entries may hold together
	MaxFiles int           // files one keep may hold
	MaxAge   time.Duration // entries older than this go (Prune); 0 keeps them
	MinFree  int64         // bytes the disk must keep free after a keep
}

// Store is the kept copies in one folder. Its methods are safe for
// concurrent use; two processes may share a store (the daemon keeps,
// `agate undo` restores and drops).
type Store struct {
	dir string
	lim Limits
	// Secret reports whether a path, relative to its root with slashes,
	// names a secret (a folder when dir is set); nil names none.
	Secret func(rel string, dir bool) bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	mu   sync.Mutex
	used int64 // bytes held, as of the last scan or keep; -1 unknown
	seal sync.WaitGroup
}

// Open returns the store in dir, creating it private (0700).
func Open(dir string, lim Limits) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("undo store: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("undo store: %w", err)
	}
	return &Store{dir: dir, lim: lim, used: -1}, nil
}

// Dir returns the store's folder.
func (s *Store) Dir() string { return s.dir }

// SetLimits changes the limits (a config reload).
func (s *Store) SetLimits(l Limits) {
	s.mu.Lock()
	s.lim = l
	s.mu.Unlock()
}

// Limits returns the limits in force.
func (s *Store) Limits() Limits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lim
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Entry is one keep: what a call would have destroyed, kept before it ran.
type Entry struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Agent   string    `json:"agent,omitempty"`
	Session string    `json:"session,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	// Subject is the command or the tool's path, as the audit log writes
	// it (redacted).
	Subject string `json:"subject,omitempty"`
	Items   []Item `json:"items"`
	Files   int    `json:"files"`
	Bytes   int64  `json:"bytes"`
	// Sealed says every kept file's hash is taken.
	Sealed bool `json:"sealed,omitempty"`
}

// Paths returns the kept paths, as the call named them.
func (e *Entry) Paths() []string {
	var out []string
	for _, it := range e.Items {
		out = append(out, it.Path)
	}
	return out
}

// Item is one path kept: a file, a link, or a folder and all it held.
type Item struct {
	Path  string `json:"path"` // absolute
	Root  string `json:"root"` // the folder a restore stays beneath
	Nodes []Node `json:"nodes"`
}

// The kinds of node.
const (
	TypeFile = "file"
	TypeDir  = "dir"
	TypeLink = "link"
)

// Node is one file, folder or link of an item, parents before children.
type Node struct {
	Rel    string      `json:"rel,omitempty"` // below the item's path, with slashes; "" is the item itself
	Type   string      `json:"type"`
	Mode   fs.FileMode `json:"mode"` // permission bits, setuid, setgid, sticky
	MTime  time.Time   `json:"mtime"`
	Size   int64       `json:"size,omitempty"`
	Target string      `json:"target,omitempty"` // a link's target, as written
	Blob   string      `json:"blob,omitempty"`   // the kept file, in the entry's folder
	How    string      `json:"how,omitempty"`    // "link", "clone" or "copy"
	SHA256 string      `json:"sha256,omitempty"`
	// Changed says the kept file changed after it was kept (a hard link
	// whose file was written in place): it is not put back.
	Changed bool `json:"changed,omitempty"`
}

// newID returns a fresh entry id: 8 hex digits.
func newID() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail
	}
	return hex.EncodeToString(b[:])
}

// validID reports whether id is one newID could have made: an id is a
// folder name, and must never be a path.
func validID(id string) bool {
	if len(id) != 8 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

// List returns the store's entries, newest first. An entry whose record
// cannot be read is left out and named in the error, which joins every
// such problem; the entries returned are good.
func (s *Store) List() ([]*Entry, error) {
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("undo store: %w", err)
	}
	var out []*Entry
	var errs []error
	var used int64
	for _, de := range des {
		if !de.IsDir() || !validID(de.Name()) {
			continue
		}
		e, err := s.read(de.Name())
		if err != nil {
			errs = append(errs, err)
			used += folderSize(filepath.Join(s.dir, de.Name())) // (its copies still take room)
			continue
		}
		used += e.Bytes
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *Entry) int { return b.Time.Compare(a.Time) })
	s.mu.Lock()
	s.used = used
	s.mu.Unlock()
	return out, errors.Join(errs...)
}

// Get returns the entry id.
func (s *Store) Get(id string) (*Entry, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	return s.read(id)
}

func (s *Store) read(id string) (*Entry, error) {
	p := filepath.Join(s.dir, id, entryFile)
	data, err := osutil.ReadLimited(p, maxEntryFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("kept copy %s: %w", id, err)
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("kept copy %s: %s: %w", id, p, err)
	}
	if e.ID != id {
		return nil, fmt.Errorf("kept copy %s: %s names id %q", id, p, e.ID)
	}
	if err := e.check(); err != nil {
		return nil, fmt.Errorf("kept copy %s: %s: %w", id, p, err)
	}
	return &e, nil
}

// check refuses an entry that names a path a restore must not touch: a
// root or a path not absolute and clean, a path not below its root, a
// node's path that climbs out of its item, a kept file named other than
// the store names them.
func (e *Entry) check() error {
	for i, it := range e.Items {
		if !filepath.IsAbs(it.Root) || filepath.Clean(it.Root) != it.Root || !filepath.IsAbs(it.Path) || filepath.Clean(it.Path) != it.Path {
			return fmt.Errorf("item %d: root %q and path %q must be absolute and clean", i, it.Root, it.Path)
		}
		if rel, err := filepath.Rel(it.Root, it.Path); err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("item %d: %s is not below %s", i, it.Path, it.Root)
		}
		for j, n := range it.Nodes {
			if n.Rel != "" && (path.Clean(n.Rel) != n.Rel || !filepath.IsLocal(filepath.FromSlash(n.Rel)) || strings.Contains(n.Rel, "\\")) {
				return fmt.Errorf("item %d, node %d: %q is not a path below the item", i, j, n.Rel)
			}
			if n.Type == TypeFile && (len(n.Blob) != 6 || strings.Trim(n.Blob, "0123456789") != "") {
				return fmt.Errorf("item %d, node %d: kept file %q is not one the store names", i, j, n.Blob)
			}
			if (j == 0) != (n.Rel == "") {
				return fmt.Errorf("item %d, node %d: only the first node is the item itself", i, j)
			}
		}
	}
	return nil
}

// Used returns the bytes the store holds.
func (s *Store) Used() int64 {
	s.mu.Lock()
	u := s.used
	s.mu.Unlock()
	if u >= 0 {
		return u
	}
	s.List() // sets used, leaving out what it cannot read
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.used, 0)
}

// Drop removes the entry id and its copies. The entry stops being offered
// at once (its folder is renamed away) and its files go after.
func (s *Store) Drop(id string) error {
	if !validID(id) {
		return fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	e, err := s.read(id)
	if err != nil {
		return err
	}
	gone := filepath.Join(s.dir, ".drop-"+id)
	if err := os.Rename(filepath.Join(s.dir, id), gone); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", id, ErrNotFound)
		}
		return fmt.Errorf("drop %s: %w", id, err)
	}
	osutil.SyncDir(s.dir)
	s.mu.Lock()
	if s.used >= 0 {
		s.used = max(s.used-e.Bytes, 0)
	}
	s.mu.Unlock()
	if err := removeAll(gone); err != nil {
		return fmt.Errorf("drop %s: %w", id, err)
	}
	return nil
}

// Prune removes the entries older than MaxAge, and what a keep or a drop
// that did not finish left behind. It returns the ids it dropped.
func (s *Store) Prune(ctx context.Context) ([]string, error) {
	lim := s.Limits()
	now := s.now()
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("undo store: %w", err)
	}
	var dropped []string
	var errs []error
	for _, de := range des {
		if ctx.Err() != nil {
			return dropped, ctx.Err()
		}
		name := de.Name()
		switch {
		case strings.HasPrefix(name, ".drop-"):
			errs = append(errs, removeAll(filepath.Join(s.dir, name)))
		case strings.HasPrefix(name, ".keep-"):
			// A keep in progress is minutes old at most.
			if info, err := de.Info(); err == nil && now.Sub(info.ModTime()) > time.Hour {
				errs = append(errs, removeAll(filepath.Join(s.dir, name)))
			}
		case validID(name) && lim.MaxAge > 0:
			e, err := s.read(name)
			if err != nil && !errors.Is(err, ErrNotFound) {
				// A record that cannot be read is never restored: it goes
				// by its folder's age.
				if info, ierr := de.Info(); ierr == nil && now.Sub(info.ModTime()) > lim.MaxAge {
					gone := filepath.Join(s.dir, ".drop-"+name)
					if rerr := os.Rename(filepath.Join(s.dir, name), gone); rerr != nil {
						errs = append(errs, rerr)
						continue
					}
					s.mu.Lock()
					s.used = -1 // (what it held was never counted exactly)
					s.mu.Unlock()
					errs = append(errs, removeAll(gone))
					dropped = append(dropped, name)
				}
				continue
			}
			if err != nil || now.Sub(e.Time) <= lim.MaxAge {
				continue
			}
			if err := s.Drop(name); err != nil {
				errs = append(errs, err)
				continue
			}
			dropped = append(dropped, name)
		}
	}
	return dropped, errors.Join(errs...)
}

// removeAll removes a folder of the store, making its folders writable
// first (a kept folder keeps its mode, which may be read-only).
func removeAll(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// Wait waits until the hashes of every keep so far are taken (tests, and a
// daemon closing).
func (s *Store) Wait() { s.seal.Wait() }

// writeEntry writes e as dir/entry.json, synced. A record the store
// could not read back (past maxEntryFile) is refused with ErrLimit: an
// entry offered must be one a restore, a list and a prune can read.
func writeEntry(dir string, e *Entry) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(e); err != nil {
		return err
	}
	if int64(buf.Len()) > maxEntryFile {
		return fmt.Errorf("its record would take %s, more than a kept copy's record may (%s): %w", Size(int64(buf.Len())), Size(maxEntryFile), ErrLimit)
	}
	return osutil.WriteFile(filepath.Join(dir, entryFile), buf.Bytes(), 0o600)
}

// folderSize is the bytes the files and links below dir take, for an
// entry whose record cannot be read: still counted, so the store's
// total never leaves it out.
func folderSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
