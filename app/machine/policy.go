package machine

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

// PolicyOptions are the machine's facts a policy is compiled with.
func PolicyOptions(p api.Paths) policy.Options {
	home, _ := api.HomeDir()
	o := policy.Options{Home: home, StateDir: p.State, Resolve: ResolvePath,
		FoldCase: runtime.GOOS == "darwin" || runtime.GOOS == "windows", SelfPID: os.Getpid()}
	// agate's own folders are protected whole; a config kept elsewhere
	// (--config ~/agate.toml) protects that file and its grants, not the
	// folder it happens to be in.
	if def, err := os.UserConfigDir(); err == nil {
		def = filepath.Join(def, "agate")
		if filepath.Clean(p.ConfigDir()) == def {
			o.ConfigDir = def
		} else {
			o.ConfigDir = def
			o.ConfigFiles = []string{p.Config, p.Grants}
		}
	} else {
		o.ConfigFiles = []string{p.Config, p.Grants}
	}
	if rd := filepath.Dir(p.Socket); rd != "" {
		o.ConfigFiles = append(o.ConfigFiles, rd)
	}
	if exe, err := os.Executable(); err == nil {
		o.Self = append(o.Self, exe)
		if r, err := filepath.EvalSymlinks(exe); err == nil && r != exe {
			o.Self = append(o.Self, r)
		}
	}
	return o
}

// maxGlob bounds how many paths one glob in a command is expanded to.
const maxGlob = 1000

// Glob expands a glob from a shell command as the shell would, for
// the policy's secret-read check: a leading dot is matched only by a
// pattern that starts with one.
func Glob(pattern string) []string {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil
	}
	dotted := strings.HasPrefix(filepath.Base(pattern), ".")
	out := make([]string, 0, min(len(matches), maxGlob))
	for _, m := range matches {
		if !dotted && strings.HasPrefix(filepath.Base(m), ".") {
			continue
		}
		out = append(out, m)
		if len(out) == maxGlob {
			break
		}
	}
	return out
}

// ResolvePath returns the real path of an absolute path, following
// symlinks in the longest part of it that exists (the rest may not exist
// yet: a file about to be written).
func ResolvePath(p string) string {
	return resolveDepth(p, 0)
}

func resolveDepth(p string, depth int) string {
	// A link that points nowhere yet still says where a write through it
	// would land.
	if depth < 8 {
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
			if _, err := os.Stat(p); err != nil {
				if target, err := os.Readlink(p); err == nil {
					if !filepath.IsAbs(target) {
						target = filepath.Join(filepath.Dir(p), target)
					}
					return resolveDepth(filepath.Clean(target), depth+1)
				}
			}
		}
	}
	dir, rest := p, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			if rest == "" {
				return r
			}
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		if rest == "" {
			rest = filepath.Base(dir)
		} else {
			rest = filepath.Join(filepath.Base(dir), rest)
		}
		dir = parent
	}
}
