package grants

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agatehq/agate/app/internal/tomledit"
	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// Set are the "always" answers, saved per agent in grants.toml beside
// the config. agate writes this file itself and never rewrites the
// person's config.toml.
//
// The file is for a person to read: version 2 holds one table per grant,
// the grant as ParseGrant reads it and when it was saved:
//
//	version = 2
//
//	[[agents.claude-code.grant]]
//	grant = "bash(ssh mini10v) network=mini10v"
//	saved = 2026-12-01T10:00:00Z
//
// Version 1 (a list `grants = ["bash:network"]` per agent) still reads,
// and its grants keep working as saved.
type Set struct {
	agents map[string][]policy.Grant
	// confined are the grants a person gave to run the calls confined:
	// kept apart, never widened into the others, so that what they cover
	// runs confined and never unconfined.
	confined map[string][]policy.Grant
	saved    map[string]time.Time // grant (agent + "\x00" + grant) -> when saved
}

// version is the format agate writes.
const version = 2

type file struct {
	Version int `toml:"version"`
	Agents  map[string]struct {
		Grants []string     `toml:"grants"` // version 1
		Grant  []savedGrant `toml:"grant"`  // version 2
	} `toml:"agents"`
}

type savedGrant struct {
	Grant    string    `toml:"grant"`
	Saved    time.Time `toml:"saved"`
	Confined bool      `toml:"confined"`
}

// Load reads the grants file; a missing file is no grants. A file
// that does not parse is an error naming the file, line and key: a grant
// is never dropped silently.
func Load(path string) (*Set, error) {
	g := &Set{agents: map[string][]policy.Grant{}, confined: map[string][]policy.Grant{}, saved: map[string]time.Time{}}
	data, err := osutil.ReadLimited(path, policy.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return g, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read grants: %w", err)
	}
	var f file
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("%s: %s: unknown key", path, u[0])
	}
	if f.Version > version {
		return nil, fmt.Errorf("%s: version %d is newer than this agate reads (%d)", path, f.Version, version)
	}
	for agent, a := range f.Agents {
		for i, s := range a.Grants {
			gr, err := policy.ParseGrant(s)
			if err != nil {
				return nil, fmt.Errorf("%s: agents.%s.grants[%d]: %w", path, agent, i, err)
			}
			g.agents[agent] = append(g.agents[agent], gr)
		}
		for i, sg := range a.Grant {
			gr, err := policy.ParseGrant(sg.Grant)
			if err != nil {
				return nil, fmt.Errorf("%s: agents.%s.grant[%d].grant: %w", path, agent, i, err)
			}
			if sg.Confined {
				g.confined[agent] = append(g.confined[agent], gr)
			} else {
				g.agents[agent] = append(g.agents[agent], gr)
			}
			if !sg.Saved.IsZero() {
				g.saved[agent+"\x00"+gr.String()] = sg.Saved
			}
		}
	}
	return g, nil
}

// For returns an agent's saved grants.
func (g *Set) For(agent string) []policy.Grant {
	if g == nil {
		return nil
	}
	return slices.Clip(g.agents[agent]) // an append makes a copy: the set is shared
}

// ConfinedFor returns an agent's saved grants to run calls confined.
func (g *Set) ConfinedFor(agent string) []policy.Grant {
	if g == nil {
		return nil
	}
	return slices.Clip(g.confined[agent])
}

// Agents returns the agents with saved grants, sorted.
func (g *Set) Agents() []string {
	var out []string
	for _, m := range []map[string][]policy.Grant{g.agents, g.confined} {
		for a, gs := range m {
			if len(gs) > 0 && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	sort.Strings(out)
	return out
}

// AddConfined records a grant whose calls run confined, apart from the
// agent's other grants.
func (g *Set) AddConfined(agent string, gr policy.Grant) {
	if g.confined == nil {
		g.confined = map[string][]policy.Grant{}
	}
	g.confined[agent] = Widen(g.confined[agent], gr)
	g.stamp(agent, gr)
}

// Add records a grant for an agent, widening the agent's grant for the
// same tool in place rather than adding a second one.
func (g *Set) Add(agent string, gr policy.Grant) {
	if g.agents == nil {
		g.agents = map[string][]policy.Grant{}
	}
	g.agents[agent] = Widen(g.agents[agent], gr)
	g.stamp(agent, gr)
}

// stamp records when a grant was first saved.
func (g *Set) stamp(agent string, gr policy.Grant) {
	if g.saved == nil {
		g.saved = map[string]time.Time{}
	}
	if k := agent + "\x00" + gr.String(); g.saved[k].IsZero() {
		g.saved[k] = time.Now().UTC().Truncate(time.Second)
	}
}

// Revoke removes an agent's grants: all of them when tool is "", else
// those for tool, or the one grant tool spells out whole. It reports
// whether anything was removed.
func (g *Set) Revoke(agent, tool string) bool {
	removed := false
	for _, m := range []map[string][]policy.Grant{g.agents, g.confined} {
		list, ok := m[agent]
		if !ok {
			continue
		}
		if tool == "" {
			delete(m, agent)
			removed = removed || len(list) > 0
			continue
		}
		kept := list[:0]
		for _, gr := range list {
			if gr.Tool == tool || gr.String() == tool {
				removed = true
				continue
			}
			kept = append(kept, gr)
		}
		m[agent] = kept
	}
	return removed
}

// RevokeOne removes the agent's grants equal to want.
func (g *Set) RevokeOne(agent string, want policy.Grant) bool {
	removed := false
	for _, m := range []map[string][]policy.Grant{g.agents, g.confined} {
		list, ok := m[agent]
		if !ok {
			continue
		}
		kept := list[:0]
		for _, gr := range list {
			if gr.Equal(want) {
				removed = true
				continue
			}
			kept = append(kept, gr)
		}
		m[agent] = kept
	}
	return removed
}

// Marshal returns the grants file's text, in version 2.
func (g *Set) Marshal() []byte {
	var b strings.Builder
	b.WriteString("# agate's saved grants: the \"always\" answers, per agent. Each says\n")
	b.WriteString("# what it covers: a command's prefix and what it may do, where.\n")
	b.WriteString("# agate writes this file; list and revoke with `agate grants`.\n")
	fmt.Fprintf(&b, "version = %d\n", version)
	for _, agent := range g.Agents() {
		for _, gr := range g.agents[agent] {
			fmt.Fprintf(&b, "\n[[agents.%s.grant]]\ngrant = %s\n", tomledit.Key(agent), tomledit.String(gr.String()))
			if at := g.saved[agent+"\x00"+gr.String()]; !at.IsZero() {
				fmt.Fprintf(&b, "saved = %s\n", at.UTC().Format(time.RFC3339))
			}
			if gr.Broad() {
				b.WriteString("# broad: it covers more than one command a person looked at\n")
			}
		}
		for _, gr := range g.confined[agent] {
			fmt.Fprintf(&b, "\n[[agents.%s.grant]]\ngrant = %s\nconfined = true # what it covers runs in agate's sandbox, never unconfined\n",
				tomledit.Key(agent), tomledit.String(gr.String()))
			if at := g.saved[agent+"\x00"+gr.String()]; !at.IsZero() {
				fmt.Fprintf(&b, "saved = %s\n", at.UTC().Format(time.RFC3339))
			}
		}
	}
	return []byte(b.String())
}

// Update changes the grants file under a lock, so that two writers
// (the daemon and `agate grants revoke`) never lose each other's change.
func Update(path string, change func(*Set) error) error {
	unlock, err := osutil.Lock(context.Background(), path+".lock")
	if err != nil {
		return fmt.Errorf("lock grants: %w", err)
	}
	defer unlock()
	g, err := Load(path)
	if err != nil {
		return err
	}
	if err := change(g); err != nil {
		return err
	}
	return osutil.WriteFile(path, g.Marshal(), 0o600)
}

// Widen adds g to list: a broad grant widens the broad grant for the
// same tool in place; a narrow one is added unless it is there already.
func Widen(list []policy.Grant, g policy.Grant) []policy.Grant {
	for i, old := range list {
		if g.Narrow() {
			if old.Equal(g) {
				return list
			}
			continue
		}
		if !old.Narrow() && old.Tool == g.Tool {
			list[i] = old.Widen(g)
			return list
		}
	}
	return append(list, g)
}
