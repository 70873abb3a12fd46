package daemon

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/app/files/managed"
	"github.com/agatehq/agate/watcher"
)

// watchConfig applies edits of config.toml and grants.toml until ctx
// ends: a good edit replaces what is in force, a broken one is reported
// and the last good one stays.
func (d *Daemon) watchConfig(ctx context.Context) {
	dir := d.paths.ConfigDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		d.logger.Printf("config folder: %v (edits will not apply live)", err)
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := watcher.Watch(ctx, watcher.Config[*grants.Set]{
			Dir:   dir,
			Files: []string{filepath.Base(d.paths.Grants)},
			Load:  func(context.Context) (*grants.Set, error) { return grants.Load(d.paths.Grants) },
			Apply: func(g *grants.Set) { d.grants.Store(g) },
			Fail: func(err error) {
				d.logger.Printf("grants: %v (keeping the last good grants)", err)
			},
		})
		if err != nil {
			d.logger.Printf("watch grants: %v", err)
		}
	}()
	// The managed policy's file applies live as the person's does, where
	// its folder is there to watch.
	mdone := make(chan struct{})
	if mdir := filepath.Dir(managed.Path); dirExists(mdir) {
		go func() {
			defer close(mdone)
			err := watcher.Watch(ctx, watcher.Config[*policyState]{
				Dir:   mdir,
				Files: []string{filepath.Base(managed.Path)},
				Load: func(context.Context) (*policyState, error) {
					st := d.load(config.Live)
					if st.pol == nil {
						// The person's file is broken: the managed policy
						// still applies, over their last good config.
						if re, ok := d.reapplyManaged(st.err); ok {
							return re, nil
						}
					}
					return st, st.err
				},
				Apply: d.apply,
				Fail:  d.configFailed,
			})
			if err != nil {
				d.logger.Printf("watch the managed policy: %v (its edits apply at the next start)", err)
			}
		}()
	} else {
		close(mdone)
	}
	err := watcher.Watch(ctx, watcher.Config[*policyState]{
		Dir:   dir,
		Files: []string{filepath.Base(d.paths.Config)},
		Load: func(context.Context) (*policyState, error) {
			st := d.load(config.Live)
			return st, st.err
		},
		Apply: d.apply,
		Fail:  d.configFailed,
	})
	if err != nil {
		d.logger.Printf("watch config: %v (edits will not apply live)", err)
	}
	<-done
	<-mdone
}

// dirExists reports whether dir is a folder.
func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// apply puts a good config in force.
func (d *Daemon) apply(st *policyState) {
	old := d.state.Load()
	d.state.Store(st)
	d.broker.setMax(st.cfg.Approvals.MaxPending)
	d.setUndo(st.cfg)
	d.syncCodexRules(st.cfg)
	if old.err != nil {
		d.logger.Printf("config fixed: %s is in force again", d.paths.Config)
	}
	d.hub.publish(api.Event{Type: "config", Time: time.Now(), Pending: d.broker.count()})
}

// configFailed keeps the policy in force and reports the error.
func (d *Daemon) configFailed(err error) {
	old := d.state.Load()
	keep := *old
	keep.err = err
	d.state.Store(&keep)
	d.logger.Printf("config error, keeping the last good policy: %v", err)
	d.hub.publish(api.Event{Type: "config", Time: time.Now(), Error: err.Error(), Pending: d.broker.count()})
}
