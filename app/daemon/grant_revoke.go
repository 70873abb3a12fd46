package daemon

import (
	"fmt"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/policy"
)

// RevokeGrant removes one of an agent's saved grants, as SavedGrants
// spells it; the agent's other grants, for the same tool too, stay. The
// Grants tab revokes a broad grant with it, and leaves the narrow ones.
func (d *Daemon) RevokeGrant(agent, grant string) error {
	want, err := policy.ParseGrant(strings.TrimSuffix(grant, api.ConfinedGrantSuffix))
	if err != nil {
		return err
	}
	found := false
	err = grants.Update(d.paths.Grants, func(g *grants.Set) error {
		found = g.RevokeOne(agent, want)
		return nil
	})
	if err != nil {
		return err
	}
	d.ReloadGrants()
	if !found {
		return fmt.Errorf("%w: no saved grant %s for %s", api.ErrNotFound, want, agent)
	}
	return nil
}
