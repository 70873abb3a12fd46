package daemon

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/policy"
)

// subjectKeys are the arguments that say what a call acts on, in the
// order they are looked for.
var subjectKeys = []string{"command", "file_path", "path", "absolute_path", "notebook_path", "url", "script", "code", "query", "pattern", "paths", "input"}

// callSubject is the one line a person needs to judge a call: the
// command, the path or the URL, in full, with credentials redacted.
func callSubject(tool string, args map[string]any, known policy.KnownSecrets) string {
	for _, k := range subjectKeys {
		switch v := args[k].(type) {
		case string:
			return policy.Redact(v, known)
		case []any:
			parts := make([]string, 0, len(v))
			for _, e := range v {
				parts = append(parts, fmt.Sprint(e))
			}
			return policy.Redact(strings.Join(parts, " "), known)
		}
	}
	if len(args) == 0 {
		return tool
	}
	b, err := json.Marshal(redactArgs(args, known))
	if err != nil {
		return tool
	}
	return string(b)
}

// truncate cuts s to n bytes, saying how much was cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}

// maxArgString bounds one string argument shown to a person.
const maxArgString = 256 << 10

// redactArgs returns a copy of args safe to show and log: values of
// secret-named arguments hidden, credential-shaped strings redacted, very
// long strings cut with a note of how much.
func redactArgs(args map[string]any, known policy.KnownSecrets) map[string]any {
	if args == nil {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		if policy.IsSecretKey(k) {
			out[k] = "[REDACTED]"
			continue
		}
		out[k] = redactValue(v, known, 0)
	}
	return out
}

func redactValue(v any, known policy.KnownSecrets, depth int) any {
	switch v := v.(type) {
	case string:
		return truncate(policy.Redact(v, known), maxArgString)
	case map[string]any:
		if depth > 8 {
			return "…"
		}
		m := make(map[string]any, len(v))
		for k, e := range v {
			if policy.IsSecretKey(k) {
				m[k] = "[REDACTED]"
				continue
			}
			m[k] = redactValue(e, known, depth+1)
		}
		return m
	case []any:
		if depth > 8 {
			return "…"
		}
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = redactValue(e, known, depth+1)
		}
		return l
	}
	return v
}

// overlayCache finds and parses per-project .agate.toml overlays, and
// keeps the merged policies, so a decision pays a few stat calls at most.
type overlayCache struct {
	mu     sync.Mutex              // guards the maps
	dirs   map[string]dirEntry     // cwd -> the overlay found above it
	merged map[string]*mergedEntry // overlay path -> its merge with a base policy
}

type dirEntry struct {
	path    string // "" when none
	checked time.Time
}

type mergedEntry struct {
	mod    time.Time
	size   int64
	base   *policy.Policy
	result *policy.Policy
}

// overlayRecheck is how long a cwd's overlay lookup is trusted.
const overlayRecheck = 2 * time.Second

// maxOverlayDirs bounds the cwd cache.
const maxOverlayDirs = 4096

func newOverlayCache() *overlayCache {
	return &overlayCache{dirs: map[string]dirEntry{}, merged: map[string]*mergedEntry{}}
}

// find returns the overlay that governs dir, "" when none.
func (c *overlayCache) find(dir string) string {
	now := time.Now()
	c.mu.Lock()
	de, ok := c.dirs[dir]
	c.mu.Unlock()
	if !ok || now.Sub(de.checked) > overlayRecheck {
		de = dirEntry{checked: now}
		if f, found := config.FindOverlay(dir); found {
			de.path = f
		}
		c.mu.Lock()
		if len(c.dirs) >= maxOverlayDirs {
			c.dirs = map[string]dirEntry{}
		}
		c.dirs[dir] = de
		c.mu.Unlock()
	}
	return de.path
}

// forCall returns base merged with the overlays that govern a call: the
// one above its folder and, when the agent's project root has another,
// that one too (a call made from outside the project is still the
// project's).
func (c *overlayCache) forCall(base *policy.Policy, cwd, workspace string) *policy.Policy {
	pol := c.apply(base, cwd)
	if workspace != "" && workspace != cwd {
		if f := c.find(workspace); f != "" && f != c.find(cwd) {
			pol = c.apply(pol, workspace)
		}
	}
	return pol
}

// apply returns base merged with the overlay that governs dir.
func (c *overlayCache) apply(base *policy.Policy, dir string) *policy.Policy {
	path := c.find(dir)
	if path == "" {
		return base
	}
	de := dirEntry{path: path}
	st, err := os.Stat(de.path)
	if err != nil {
		return base.FailedOverlay(de.path, err)
	}
	c.mu.Lock()
	m := c.merged[de.path]
	c.mu.Unlock()
	if m != nil && m.base == base && m.mod.Equal(st.ModTime()) && m.size == st.Size() {
		return m.result
	}
	merged := config.WithOverlay(base, filepath.Dir(de.path))
	c.mu.Lock()
	c.merged[de.path] = &mergedEntry{mod: st.ModTime(), size: st.Size(), base: base, result: merged}
	c.mu.Unlock()
	return merged
}
