package pins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"sync"

	"github.com/agatehq/agate/app/internal/strictjson"
	"github.com/agatehq/agate/app/mcp"
	"github.com/agatehq/agate/app/osutil"
)

// ErrBadDefinition means a tool definition's Hash is not that of its
// fields, or its name is empty.
var ErrBadDefinition = errors.New("mcp pins: a tool definition whose hash does not match it")

// maxFile bounds one server's pin file.
const maxFile = 16 << 20

// maxTools bounds the tools pinned for one server.
const maxTools = 4096

// Store is the pins of every server, on disk under one folder. It is
// safe for concurrent use within one process.
type Store struct {
	dir string

	mu    sync.Mutex // guards cache and the files
	cache map[string]map[string]mcp.ToolDef
}

// Open returns the store kept in dir (STATE/mcp-pins). Nothing is read
// or created until a server's pins are first needed.
func Open(dir string) *Store {
	return &Store{dir: dir, cache: map[string]map[string]mcp.ToolDef{}}
}

// file is the shape of one server's pin file.
type file struct {
	Server string                 `json:"server"`
	Tools  map[string]mcp.ToolDef `json:"tools"`
}

// verify checks that d's Hash is that of its fields, and returns d as
// ParseToolDef reads it (canonical members).
func verify(d mcp.ToolDef) (mcp.ToolDef, error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return mcp.ToolDef{}, fmt.Errorf("%w: %v", ErrBadDefinition, err)
	}
	got, err := mcp.ParseToolDef(raw)
	if err != nil {
		return mcp.ToolDef{}, fmt.Errorf("%w: %v", ErrBadDefinition, err)
	}
	if got.Hash != d.Hash {
		return mcp.ToolDef{}, fmt.Errorf("%w: tool %q", ErrBadDefinition, d.Name)
	}
	return got, nil
}

// load returns server's pins, read from disk on first use. s.mu is held.
func (s *Store) load(server string) (map[string]mcp.ToolDef, error) {
	if pins, ok := s.cache[server]; ok {
		return pins, nil
	}
	if err := mcp.ValidName(server); err != nil {
		return nil, fmt.Errorf("mcp pins: %w", err)
	}
	path := s.path(server)
	data, err := osutil.ReadPrivate(path, maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		pins := map[string]mcp.ToolDef{}
		s.cache[server] = pins
		return pins, nil
	case err != nil:
		return nil, fmt.Errorf("mcp pins: read %s: %w", path, err)
	case len(data) > maxFile:
		return nil, fmt.Errorf("mcp pins: %s is larger than %d bytes", path, maxFile)
	}
	var f file
	if err := strictjson.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("mcp pins: %s: %w", path, err)
	}
	if f.Server != server {
		return nil, fmt.Errorf("mcp pins: %s holds the pins of %q, not %q", path, f.Server, server)
	}
	pins := map[string]mcp.ToolDef{}
	for name, d := range f.Tools {
		v, err := verify(d)
		if err != nil || v.Name != name {
			return nil, fmt.Errorf("mcp pins: %s: tool %q: a pin that is not what it hashes", path, name)
		}
		pins[name] = v
	}
	s.cache[server] = pins
	return pins, nil
}

func (s *Store) path(server string) string { return filepath.Join(s.dir, server+".json") }

// save writes server's pins whole. s.mu is held.
func (s *Store) save(server string, pins map[string]mcp.ToolDef) error {
	if err := osutil.MakeDir(s.dir, false); err != nil {
		return fmt.Errorf("mcp pins: %w", err)
	}
	data, err := json.MarshalIndent(file{Server: server, Tools: pins}, "", "  ")
	if err != nil {
		return fmt.Errorf("mcp pins: %w", err)
	}
	if err := osutil.WriteFile(s.path(server), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("mcp pins: %w", err)
	}
	return nil
}

// Pin pins the tools of one tools/list page that are not pinned yet,
// and returns, sorted by tool, those whose definition is not the one
// pinned. A definition that is not what it hashes fails the whole page.
func (s *Store) Pin(server string, tools []mcp.ToolDef) ([]mcp.ToolChange, error) {
	checked := make([]mcp.ToolDef, 0, len(tools))
	for _, t := range tools {
		v, err := verify(t)
		if err != nil {
			return nil, err
		}
		checked = append(checked, v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pins, err := s.load(server)
	if err != nil {
		return nil, err
	}
	var changes []mcp.ToolChange
	added := map[string]mcp.ToolDef{}
	for _, t := range checked {
		old, ok := pins[t.Name]
		if !ok {
			if _, dup := added[t.Name]; !dup {
				added[t.Name] = t
			}
			continue
		}
		if old.Hash != t.Hash {
			changes = append(changes, change(old, t))
		}
	}
	if len(added) > 0 {
		if len(pins)+len(added) > maxTools {
			return nil, fmt.Errorf("mcp pins: server %q would have more than %d tools pinned", server, maxTools)
		}
		next := make(map[string]mcp.ToolDef, len(pins)+len(added))
		for k, v := range pins {
			next[k] = v
		}
		for k, v := range added {
			next[k] = v
		}
		if err := s.save(server, next); err != nil {
			return nil, err
		}
		s.cache[server] = next
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Tool < changes[j].Tool })
	return changes, nil
}

// Check compares one tool's definition with its pin: nil when it is the
// pinned one, the change when not. A tool not pinned yet is pinned now.
func (s *Store) Check(server string, d mcp.ToolDef) (*mcp.ToolChange, error) {
	// The common case, the pinned definition itself, byte for byte:
	// the pin was checked when it was made.
	s.mu.Lock()
	pins, err := s.load(server)
	same := err == nil && equalDefs(pins[d.Name], d)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if same {
		return nil, nil
	}
	changes, err := s.Pin(server, []mcp.ToolDef{d})
	if err != nil || len(changes) == 0 {
		return nil, err
	}
	return &changes[0], nil
}

// Approve pins d for server in place of what was pinned: a person
// allowed a call of it, told what changed.
func (s *Store) Approve(server string, d mcp.ToolDef) error {
	v, err := verify(d)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pins, err := s.load(server)
	if err != nil {
		return err
	}
	if old, ok := pins[v.Name]; ok && old.Hash == v.Hash {
		return nil
	}
	next := make(map[string]mcp.ToolDef, len(pins)+1)
	for k, t := range pins {
		next[k] = t
	}
	next[v.Name] = v
	if err := s.save(server, next); err != nil {
		return err
	}
	s.cache[server] = next
	return nil
}

// Pinned returns the pin of one tool.
func (s *Store) Pinned(server, tool string) (mcp.ToolDef, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pins, err := s.load(server)
	if err != nil {
		return mcp.ToolDef{}, false, err
	}
	d, ok := pins[tool]
	return d, ok, nil
}

func change(old, new mcp.ToolDef) mcp.ToolChange {
	return mcp.ToolChange{Tool: new.Name, OldHash: old.Hash, NewHash: new.Hash, Fields: mcp.ChangedFields(old, new)}
}

// equalDefs reports whether two definitions are the same, field by
// field, their hash included.
func equalDefs(a, b mcp.ToolDef) bool {
	return a.Hash != "" && a.Hash == b.Hash && a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		bytes.Equal(a.InputSchema, b.InputSchema) && bytes.Equal(a.OutputSchema, b.OutputSchema) &&
		bytes.Equal(a.Annotations, b.Annotations) && bytes.Equal(a.Execution, b.Execution)
}
