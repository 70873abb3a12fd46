package machine

import (
	"errors"
	"io/fs"
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

// Bounds on what one glob in a command is expanded to: past them the
// answer is not complete, and the policy judges the glob by the names it
// could match.
const (
	maxGlob     = 1000  // paths named
	maxGlobWalk = 20000 // entries a search below a folder visits
)

// Glob expands a glob from a shell command as the shell would (a leading
// dot is matched only by a pattern that starts with one), and the
// policy's DIR/**/NAME and DIR/** forms as find would, for the policy's
// secret-read check (policy.Request.Glob).
func Glob(pattern string) ([]string, bool) {
	if head, name, ok := strings.Cut(pattern, "/**/"); ok && !strings.Contains(name, "/") {
		return globBelow(head, func(p string) bool {
			m, err := filepath.Match(name, filepath.Base(p))
			return err == nil && m
		})
	}
	if head, ok := strings.CutSuffix(pattern, "/**"); ok {
		return globBelow(head, func(string) bool { return true })
	}
	return shellGlob(pattern)
}

// shellGlob expands pattern as the shell would.
func shellGlob(pattern string) ([]string, bool) {
	if !strings.ContainsAny(pattern, "*?[") {
		return []string{pattern}, true
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, false
	}
	out := make([]string, 0, min(len(matches), maxGlob))
	for _, m := range matches {
		if !dotMatched(pattern, m) {
			continue
		}
		if len(out) == maxGlob {
			return out, false
		}
		out = append(out, m)
	}
	return out, true
}

// dotMatched reports whether the shell's glob names m: a component of m
// that starts with a dot must be matched by one that does.
func dotMatched(pattern, m string) bool {
	ps, ms := strings.Split(pattern, "/"), strings.Split(m, "/")
	if len(ps) != len(ms) {
		return false
	}
	for i := range ms {
		if strings.HasPrefix(ms[i], ".") && !strings.HasPrefix(ps[i], ".") {
			return false
		}
	}
	return true
}

// globBelow returns the paths in or below the folders head names that
// keep says to, hidden ones too, as find walks them; links are not
// followed.
func globBelow(head string, keep func(string) bool) ([]string, bool) {
	roots, complete := shellGlob(head)
	var out []string
	seen := 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root && errors.Is(err, fs.ErrNotExist) {
					return nil // nothing there: nothing found
				}
				complete = false // unreadable: agate cannot say what is there
				return filepath.SkipDir
			}
			if seen++; seen > maxGlobWalk {
				complete = false
				return filepath.SkipAll
			}
			if keep(p) {
				if len(out) == maxGlob {
					complete = false
					return filepath.SkipAll
				}
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			complete = false
		}
		if !complete {
			break
		}
	}
	return out, complete
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
