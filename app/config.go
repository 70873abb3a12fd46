package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agatehq/agate/policy"
)

// readConfigFile reads the config file at path. A missing file is created
// with the commented defaults when create is set (the first run), and read
// as the defaults otherwise; any other problem is an error, never a silent
// fall back to defaults.
func readConfigFile(path string, create bool) ([]byte, error) {
	data, err := readLimited(path, policy.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return policy.DefaultConfigText, nil
		}
		if err := WriteFileAtomic(path, policy.DefaultConfigText, 0o600); err != nil {
			return nil, fmt.Errorf("write the default config: %w", err)
		}
		return policy.DefaultConfigText, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return data, nil
}

// readLimited reads at most limit bytes of a file, and one more to notice a
// file that is too big (the parser then refuses it whole).
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// readConfig reads and parses the config file named by p without ever
// writing it: a missing file reads as the defaults. Commands that run per
// call (check, sandbox) and doctor use it.
func readConfig(p Paths) (*policy.Config, error) {
	data, err := readConfigFile(p.Config, false)
	if err != nil {
		return nil, err
	}
	return policy.Parse(p.Config, data)
}

// loadConfig reads and parses the config file named by p, writing the
// defaults on first run.
func loadConfig(p Paths) (*policy.Config, error) {
	data, err := readConfigFile(p.Config, true)
	if err != nil {
		return nil, err
	}
	return policy.Parse(p.Config, data)
}

// policyOptions are the machine's facts a policy is compiled with.
func policyOptions(p Paths) policy.Options {
	home, _ := homeDir()
	o := policy.Options{Home: home, ConfigDir: p.ConfigDir(), StateDir: p.State, Resolve: resolvePath,
		FoldCase: runtime.GOOS == "darwin" || runtime.GOOS == "windows"}
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

// globPaths expands a glob from a shell command as the shell would, for
// the policy's secret-read check: a leading dot is matched only by a
// pattern that starts with one.
func globPaths(pattern string) []string {
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

// resolvePath returns the real path of an absolute path, following
// symlinks in the longest part of it that exists (the rest may not exist
// yet: a file about to be written).
func resolvePath(p string) string {
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

// findOverlay returns the nearest .agate.toml at or above dir.
func findOverlay(dir string) (string, bool) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		f := filepath.Join(d, policy.OverlayName)
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return f, true
		}
		if d == filepath.Dir(d) {
			return "", false
		}
	}
}

// withOverlay merges the project overlay found from cwd, if any. An
// overlay that cannot be read makes the project strict (see
// policy.FailedOverlay).
func withOverlay(pol *policy.Policy, cwd string) *policy.Policy {
	f, ok := findOverlay(cwd)
	if !ok {
		return pol
	}
	data, err := readLimited(f, policy.MaxConfigSize)
	if err != nil {
		return pol.FailedOverlay(f, err)
	}
	ov, err := policy.ParseOverlay(f, data)
	if err != nil {
		return pol.FailedOverlay(f, err)
	}
	return pol.WithOverlay(ov)
}
