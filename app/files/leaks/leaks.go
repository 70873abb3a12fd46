package leaks

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/osutil"
)

// File is the record's name in the state folder.
const File = "leaks.json"

// maxLeaks bounds how many leaks the record keeps.
const maxLeaks = 1000

// maxFile bounds how much of the file is read.
const maxFile = 4 << 20

// version is the file format this agate writes and reads.
const version = 1

// Record is the leak record in one state folder. Its methods may be called
// from several goroutines and processes at once.
type Record struct {
	path string
}

// Open returns the record in stateDir; the file is made on the first Add.
func Open(stateDir string) *Record {
	return &Record{path: filepath.Join(stateDir, File)}
}

// Path is the record's file.
func (r *Record) Path() string { return r.path }

// file is the record on disk.
type file struct {
	Version int        `json:"version"`
	Leaks   []api.Leak `json:"leaks"`
}

// List returns the leaks on record, the one seen last first. No file is
// no leak.
func (r *Record) List() ([]api.Leak, error) {
	f, err := r.load()
	if err != nil {
		return nil, err
	}
	return f.Leaks, nil
}

// load reads the file; a missing one is empty.
func (r *Record) load() (*file, error) {
	data, err := osutil.ReadPrivate(r.path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &file{Version: version}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read leaks: %w", err)
	}
	return parse(r.path, data)
}

// parse decodes the file's bytes.
func parse(path string, data []byte) (*file, error) {
	if len(data) > maxFile {
		return nil, fmt.Errorf("read leaks: %s: larger than %d bytes", path, maxFile)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &file{Version: version}, nil
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("read leaks: %s: %w", path, err)
	}
	if f.Version != version {
		return nil, fmt.Errorf("read leaks: %s: format version %d, this agate reads %d", path, f.Version, version)
	}
	for i, l := range f.Leaks {
		if l.Fingerprint == "" {
			return nil, fmt.Errorf("read leaks: %s: leak %d has no fingerprint", path, i+1)
		}
	}
	sortLeaks(f.Leaks)
	return &f, nil
}

// sortLeaks orders leaks by when they were last seen, latest first.
func sortLeaks(ls []api.Leak) {
	sort.SliceStable(ls, func(i, j int) bool {
		if !ls[i].Last.Equal(ls[j].Last) {
			return ls[i].Last.After(ls[j].Last)
		}
		return ls[i].Fingerprint < ls[j].Fingerprint
	})
}

// update changes the file under its lock and writes it atomically.
func (r *Record) update(ctx context.Context, change func(*file) bool) error {
	if err := osutil.MakeDir(filepath.Dir(r.path), false); err != nil {
		return fmt.Errorf("write leaks: %w", err)
	}
	unlock, err := osutil.Lock(ctx, r.path+".lock")
	if err != nil {
		return fmt.Errorf("lock leaks: %w", err)
	}
	defer unlock()
	f, err := r.load()
	if err != nil {
		return err
	}
	if !change(f) {
		return nil
	}
	sortLeaks(f.Leaks)
	if len(f.Leaks) > maxLeaks {
		f.Leaks = f.Leaks[:maxLeaks]
	}
	if f.Leaks == nil {
		f.Leaks = []api.Leak{}
	}
	f.Version = version
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("write leaks: %w", err)
	}
	if err := osutil.WriteFile(r.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write leaks: %w", err)
	}
	return nil
}

// Add records leaks seen, merging each with the leak of the same
// fingerprint already on record (its count, when it was last seen and
// where; a name or a kind it lacked). It returns the leaks that were not
// on record before.
func (r *Record) Add(ctx context.Context, seen []api.Leak) ([]api.Leak, error) {
	var added []api.Leak
	err := r.update(ctx, func(f *file) bool {
		added = added[:0]
		for _, s := range seen {
			if s.Fingerprint == "" {
				continue
			}
			i := indexOf(f.Leaks, s.Fingerprint)
			if i < 0 {
				if s.Count == 0 {
					s.Count = 1
				}
				if s.First.IsZero() {
					s.First = s.Last
				}
				f.Leaks = append(f.Leaks, s)
				added = append(added, s)
				continue
			}
			l := &f.Leaks[i]
			l.Count += max(s.Count, 1)
			if s.Last.After(l.Last) {
				l.Last, l.Where, l.Agent, l.Session = s.Last, s.Where, s.Agent, s.Session
			}
			if l.Name == "" {
				l.Name = s.Name
			}
			if l.Kind == "" || l.Kind == KindKnown && s.Kind != "" {
				l.Kind = s.Kind
			}
		}
		return len(seen) > 0
	})
	return added, err
}

// KindKnown is the kind of a secret agate keeps whose value has no
// telling shape.
const KindKnown = "known secret"

func indexOf(ls []api.Leak, fp string) int {
	for i := range ls {
		if ls[i].Fingerprint == fp {
			return i
		}
	}
	return -1
}

// matches reports whether which names l: its fingerprint (or the first 6
// or more digits of it), its name, or, for a key store secret, the key's
// name alone ("openai" for "keystore:openai").
func matches(l *api.Leak, which string) bool {
	which = strings.TrimSpace(which)
	if which == "" {
		return false
	}
	if len(which) >= 6 && strings.HasPrefix(l.Fingerprint, strings.ToLower(which)) {
		return true
	}
	return l.Name != "" && (l.Name == which || l.Name == "keystore:"+which)
}

// Clear removes the leaks which names (see matches): the secret was
// rotated. It returns what it removed; nothing removed is no error.
func (r *Record) Clear(ctx context.Context, which string) ([]api.Leak, error) {
	var cleared []api.Leak
	err := r.update(ctx, func(f *file) bool {
		cleared = cleared[:0]
		kept := f.Leaks[:0]
		for _, l := range f.Leaks {
			if matches(&l, which) {
				cleared = append(cleared, l)
				continue
			}
			kept = append(kept, l)
		}
		f.Leaks = kept
		return len(cleared) > 0
	})
	return cleared, err
}

// Seen builds the leak of one sighting: a secret of kind (and name, when
// agate keeps it) seen at at in a prompt of agent's session.
func Seen(fingerprint, kind, name, agent, session string, at time.Time) api.Leak {
	where := "pasted into " + cmp.Or(agent, "an agent") + "'s chat"
	if session != "" {
		where += ", session " + session
	}
	return api.Leak{Fingerprint: fingerprint, Kind: kind, Name: name, Where: where, Agent: agent, Session: session,
		First: at.UTC(), Last: at.UTC(), Count: 1}
}
