package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/undo"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/policy"
)

// undoPrune is how often kept copies past [undo] max_age go.
const undoPrune = 30 * time.Minute

// openUndo opens the store of kept copies in the state folder. A store
// that cannot be opened keeps nothing: the calls that would have kept a
// copy ask, as without it.
func (d *Daemon) openUndo(cfg *policy.Config) {
	s, err := undo.Open(filepath.Join(d.paths.State, undo.Dir), machine.UndoLimits(cfg))
	if err != nil {
		d.logger.Printf("%v (nothing is kept: what git cannot give back asks)", err)
		return
	}
	d.undo = s
	d.setUndo(cfg)
	s.Secret = func(rel string, dir bool) bool {
		m := d.undoSecret.Load()
		return m == nil || (*m)(rel, dir) // no matcher yet: keep nothing that could be one
	}
}

// setUndo puts a config's [undo] limits and secret paths in force.
func (d *Daemon) setUndo(cfg *policy.Config) {
	if d.undo == nil {
		return
	}
	d.undo.SetLimits(machine.UndoLimits(cfg))
	m := machine.UndoSecret(cfg)
	d.undoSecret.Store(&m)
}

// Undo returns the store of kept copies, nil when nothing is kept.
func (d *Daemon) Undo() *undo.Store { return d.undo }

// keepFor is the policy's Request.Keep for one call: a path the session
// made itself and left as it was needs no copy; any other is measured,
// and all the call's copies together must fit the limits. nil, so that
// such calls ask, where nothing is kept.
func (d *Daemon) keepFor(ctx context.Context, cfg *policy.Config, r *api.DecideRequest) (func(path, root string) policy.KeepAnswer, *undo.Budget) {
	if d.undo == nil || !cfg.Undo.Keep {
		return nil, nil
	}
	budget := d.undo.Budget(ctx)
	return func(path, root string) policy.KeepAnswer {
		if d.sessions.owns(r.Agent, r.Session, path) {
			return policy.KeepAnswer{OK: true, Owned: true}
		}
		if err := budget.Take(path, root); err != nil {
			return policy.KeepAnswer{Why: undo.Why(err)}
		}
		return policy.KeepAnswer{OK: true}
	}, budget
}

// keep keeps what the decision names before the call is answered allow,
// from what the decision's budget walked (nil: walked now). It fails only
// if nothing was kept: then the call must not run on the promise of a
// copy.
func (d *Daemon) keep(ctx context.Context, r *api.DecideRequest, budget *undo.Budget, targets []policy.KeepTarget, subject string) (*api.Kept, error) {
	if d.undo == nil {
		return nil, undo.ErrUnsupported
	}
	ts := make([]undo.Target, len(targets))
	for i, t := range targets {
		ts[i] = undo.Target{Path: t.Path, Root: t.Root, InPlace: t.InPlace}
	}
	meta := undo.Meta{Agent: r.Agent, Session: r.Session, Tool: r.Tool, Subject: subject}
	var e *undo.Entry
	var err error
	if budget != nil {
		e, err = budget.Keep(ctx, meta, ts)
	} else {
		e, err = d.undo.Keep(ctx, meta, ts)
	}
	if err != nil {
		return nil, err
	}
	return &api.Kept{ID: e.ID, Paths: e.Paths(), Files: e.Files, Bytes: e.Bytes}, nil
}

// keptNote is what a reason says of a keep.
func keptNote(k *api.Kept) string {
	return fmt.Sprintf(" (%s kept: agate undo %s)", undo.Size(k.Bytes), k.ID)
}

// pruneUndo lets kept copies past [undo] max_age go, now and then, and
// what a killed keep left half made.
func (d *Daemon) pruneUndo(ctx context.Context) {
	if d.undo == nil {
		return
	}
	t := time.NewTicker(undoPrune)
	defer t.Stop()
	for {
		if gone, err := d.undo.Prune(ctx); err != nil {
			d.logger.Printf("undo: %v", err)
		} else if len(gone) > 0 {
			d.logger.Printf("undo: %d kept copies past [undo] max_age went", len(gone))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// keptPaths are the paths a keep holds; none for nil.
func keptPaths(k *api.Kept) []string {
	if k == nil {
		return nil
	}
	return k.Paths
}
