package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/grants"
)

func init() {
	register(&command{
		name:    "grants",
		args:    "[revoke AGENT [TOOL]]",
		summary: "list the saved grants (\"always\" answers) and the live sessions' grants, or revoke them",
		run:     cmdGrants,
	})
}

func cmdGrants(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "grants")
	var cf configFlags
	cf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	c := &api.Client{Socket: paths.Socket}
	if len(pos) > 0 {
		if pos[0] != "revoke" || len(pos) < 2 || len(pos) > 3 {
			return usagef("usage: agate grants revoke AGENT [TOOL]")
		}
		tool := ""
		if len(pos) == 3 {
			tool = pos[2]
		}
		err := c.RevokeGrants(ctx, pos[1], tool)
		if errors.Is(err, api.ErrDaemonDown) {
			// No daemon: change the file directly, under its lock.
			found := false
			err = grants.Update(paths.Grants, func(g *grants.Set) error {
				found = g.Revoke(pos[1], tool)
				return nil
			})
			if err == nil && !found {
				err = fmt.Errorf("%w: no saved grant for %s %s", api.ErrNotFound, pos[1], tool)
			}
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "revoked %s %s\n", pos[1], tool)
		return nil
	}
	saved, err := c.Grants(ctx)
	var sessions []api.SessionInfo
	if errors.Is(err, api.ErrDaemonDown) {
		g, lerr := grants.Load(paths.Grants)
		if lerr != nil {
			return lerr
		}
		saved = map[string][]string{}
		for _, a := range g.Agents() {
			for _, gr := range g.For(a) {
				saved[a] = append(saved[a], gr.String())
			}
			for _, gr := range g.ConfinedFor(a) {
				saved[a] = append(saved[a], gr.String()+api.ConfinedGrantSuffix)
			}
		}
	} else if err != nil {
		return err
	} else if sessions, err = c.SessionGrants(ctx); err != nil {
		return err
	}
	agents := make([]string, 0, len(saved))
	for a := range saved {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	fmt.Fprintf(e.Stdout, "saved grants (%s):\n", paths.Grants)
	if len(agents) == 0 {
		fmt.Fprintln(e.Stdout, "  none")
	}
	for _, a := range agents {
		fmt.Fprintf(e.Stdout, "  %-14s %s\n", a, strings.Join(saved[a], ", "))
	}
	if len(sessions) > 0 {
		fmt.Fprintln(e.Stdout, "live sessions:")
		for _, s := range sessions {
			taint := ""
			if s.Tainted {
				taint = " (tainted)"
			}
			fmt.Fprintf(e.Stdout, "  %-14s %s%s: %s", s.Agent, s.Session, taint, strings.Join(orNone(s.Grants), ", "))
			if len(s.RunGrants) > 0 {
				fmt.Fprintf(e.Stdout, "; this run: %s", strings.Join(s.RunGrants, ", "))
			}
			fmt.Fprintln(e.Stdout)
		}
	}
	return nil
}
