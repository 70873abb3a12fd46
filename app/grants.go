package app

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agatehq/agate/policy"
)

// Grants are the "always" answers, saved per agent in grants.toml beside
// the config. agate writes this file itself and never rewrites the
// person's config.toml.
type Grants struct {
	agents map[string][]policy.Grant
}

type grantsFile struct {
	Agents map[string]struct {
		Grants []string `toml:"grants"`
	} `toml:"agents"`
}

// loadGrants reads the grants file; a missing file is no grants. A file
// that does not parse is an error naming the file, line and key: a grant
// is never dropped silently.
func loadGrants(path string) (*Grants, error) {
	g := &Grants{agents: map[string][]policy.Grant{}}
	data, err := readLimited(path, policy.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return g, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read grants: %w", err)
	}
	var f grantsFile
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
	for agent, a := range f.Agents {
		for i, s := range a.Grants {
			gr, err := policy.ParseGrant(s)
			if err != nil {
				return nil, fmt.Errorf("%s: agents.%s.grants[%d]: %w", path, agent, i, err)
			}
			g.agents[agent] = append(g.agents[agent], gr)
		}
	}
	return g, nil
}

// For returns an agent's saved grants.
func (g *Grants) For(agent string) []policy.Grant {
	if g == nil {
		return nil
	}
	return g.agents[agent]
}

// Agents returns the agents with saved grants, sorted.
func (g *Grants) Agents() []string {
	var out []string
	for a, gs := range g.agents {
		if len(gs) > 0 {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// Add records a grant for an agent, widening the agent's grant for the
// same tool in place rather than adding a second one.
func (g *Grants) Add(agent string, gr policy.Grant) {
	g.agents[agent] = widen(g.agents[agent], gr)
}

// Revoke removes an agent's grants: all of them when tool is "", else the
// one for tool. It reports whether anything was removed.
func (g *Grants) Revoke(agent, tool string) bool {
	list, ok := g.agents[agent]
	if !ok {
		return false
	}
	if tool == "" {
		delete(g.agents, agent)
		return len(list) > 0
	}
	kept := list[:0]
	removed := false
	for _, gr := range list {
		if gr.Tool == tool {
			removed = true
			continue
		}
		kept = append(kept, gr)
	}
	g.agents[agent] = kept
	return removed
}

// Marshal returns the grants file's text.
func (g *Grants) Marshal() []byte {
	var b strings.Builder
	b.WriteString("# agate's saved grants: the \"always\" answers, per agent.\n")
	b.WriteString("# agate writes this file; list and revoke with `agate grants`.\n")
	for _, agent := range g.Agents() {
		fmt.Fprintf(&b, "\n[agents.%s]\ngrants = [", tomlKey(agent))
		for i, gr := range g.agents[agent] {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q", gr.String())
		}
		b.WriteString("]\n")
	}
	return []byte(b.String())
}

// tomlKey quotes a key when it is not a bare TOML key.
func tomlKey(k string) string {
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return fmt.Sprintf("%q", k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// updateGrants changes the grants file under a lock, so that two writers
// (the daemon and `agate grants revoke`) never lose each other's change.
func updateGrants(path string, change func(*Grants) error) error {
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return fmt.Errorf("lock grants: %w", err)
	}
	defer unlock()
	g, err := loadGrants(path)
	if err != nil {
		return err
	}
	if err := change(g); err != nil {
		return err
	}
	return WriteFileAtomic(path, g.Marshal(), 0o600)
}
