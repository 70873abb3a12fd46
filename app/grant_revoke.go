package app

import (
	"fmt"

	"github.com/agatehq/agate/policy"
)

// RevokeGrant removes one of an agent's saved grants, as SavedGrants
// spells it; the agent's other grants, for the same tool too, stay. The
// Grants tab revokes a broad grant with it, and leaves the narrow ones.
func (d *Daemon) RevokeGrant(agent, grant string) error {
	want, err := policy.ParseGrant(grant)
	if err != nil {
		return err
	}
	found := false
	err = updateGrants(d.paths.Grants, func(g *Grants) error {
		found = g.revokeOne(agent, want)
		return nil
	})
	if err != nil {
		return err
	}
	d.ReloadGrants()
	if !found {
		return fmt.Errorf("%w: no saved grant %s for %s", ErrNotFound, want, agent)
	}
	return nil
}

// revokeOne removes the agent's grants equal to want.
func (g *Grants) revokeOne(agent string, want policy.Grant) bool {
	list, ok := g.agents[agent]
	if !ok {
		return false
	}
	kept := list[:0]
	removed := false
	for _, gr := range list {
		if gr.Equal(want) {
			removed = true
			continue
		}
		kept = append(kept, gr)
	}
	g.agents[agent] = kept
	return removed
}
