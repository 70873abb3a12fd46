package daemon

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

// Bounds on looking at what a call would delete or overwrite, for the
// popup: it is shown, not decided on, so it stops early rather than hold
// the call.
const (
	impactEntries = 20000                  // entries walked per call
	impactTime    = 150 * time.Millisecond // time spent per call
	impactNames   = 5                      // names shown per path
	impactGlob    = 200                    // paths a glob is expanded to
)

// impactOf looks at what a call that asks would reach: for each path it
// deletes or overwrites, what is there (files, bytes, the first names,
// whether it is outside the project, whether git could give it back);
// for the network, the hosts and whether data goes out. Links are not
// followed.
func (d *Daemon) impactOf(effects []policy.Effect, workspace string) *api.Impact {
	var im api.Impact
	deadline := time.Now().Add(impactTime)
	budget := impactEntries
	seenPath := map[string]bool{}
	hosts := map[string]int{}
	for _, e := range effects {
		switch e.Kind {
		case policy.EffDelete, policy.EffWrite:
			if e.Kind == policy.EffWrite && (e.Append || e.Create) || e.Path == "" {
				continue
			}
			paths := []string{e.Path}
			if strings.ContainsAny(e.Path, "*?[") {
				m, _ := filepath.Glob(e.Path)
				if len(m) > impactGlob {
					m = m[:impactGlob]
				}
				paths = m
			}
			for _, p := range paths {
				if seenPath[p] {
					continue
				}
				seenPath[p] = true
				pi := d.pathImpact(p, workspace, &budget, deadline)
				if e.Kind == policy.EffWrite && !pi.Exists {
					continue // a new file: nothing is lost
				}
				im.Paths = append(im.Paths, pi)
			}
		case policy.EffNetwork, policy.EffUpload:
			if e.Host == "" {
				continue
			}
			i, ok := hosts[e.Host]
			if !ok {
				i = len(im.Hosts)
				hosts[e.Host] = i
				im.Hosts = append(im.Hosts, api.HostImpact{Host: e.Host})
			}
			if e.Kind == policy.EffUpload {
				im.Hosts[i].Sends = true
			}
		}
	}
	if len(im.Paths) == 0 && len(im.Hosts) == 0 {
		return nil
	}
	return &im
}

// pathImpact counts what is at p, within the budget.
func (d *Daemon) pathImpact(p, workspace string, budget *int, deadline time.Time) api.PathImpact {
	pi := api.PathImpact{Path: p, Outside: workspace == "" || workspace == "/" || !withinDir(p, workspace)}
	st, err := os.Lstat(p)
	if err != nil {
		return pi
	}
	pi.Exists = true
	pi.Recoverable = d.facts.Files(p) == policy.FileRecoverable
	if !st.IsDir() {
		pi.Files, pi.Bytes = 1, st.Size()
		pi.Names = []string{filepath.Base(p)}
		return pi
	}
	pi.Dir = true
	var names []string
	filepath.WalkDir(p, func(q string, de fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if *budget <= 0 || time.Now().After(deadline) {
			pi.More = true
			return fs.SkipAll
		}
		*budget--
		if de.IsDir() {
			return nil
		}
		pi.Files++
		if info, err := de.Info(); err == nil && info.Mode().IsRegular() {
			pi.Bytes += info.Size()
		}
		if len(names) < impactNames {
			if rel, err := filepath.Rel(p, q); err == nil {
				names = append(names, rel)
			}
		}
		return nil
	})
	sort.Strings(names)
	pi.Names = names
	return pi
}

// withinDir reports whether p is dir or below it.
func withinDir(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
