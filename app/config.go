package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// Sentinel errors of reading the config; each keeps the last good policy
// in force in the daemon.
var (
	// errConfigMissing means config.toml is gone. The daemon never writes
	// the defaults over a file the person removed: it keeps (or, at start,
	// runs) the last good config until the file is back or reset.
	errConfigMissing = errors.New("the config file is missing")
	// errConfigEmpty means config.toml holds nothing: a file emptied by
	// mistake (`: > config.toml`) is not read as "the defaults".
	errConfigEmpty = errors.New("the config file is empty")
)

// readMode says what a missing config file reads as.
type readMode uint8

const (
	// readOnly: the last good copy when there is one, else the defaults;
	// nothing is written. Commands that only look (check, doctor, sandbox).
	readOnly readMode = iota
	// atStart: the last good copy when there is one, else this is a true
	// first run and the commented defaults are written. The daemon at
	// start, and commands that set agate up.
	atStart
	// live: an error. A live reload never swaps in anything for a file
	// that went away.
	live
)

// configText is the config's bytes and where they came from.
type configText struct {
	data   []byte
	source string // the file they were read from: the config, or its last good copy
	// missing is set (to an error wrapping errConfigMissing) when the
	// config file is gone and data is its last good copy.
	missing error
}

// lastGoodName is the file in the state folder that keeps a copy of the
// last config the daemon put in force.
const lastGoodName = "config.last-good.toml"

// lastGoodHeader starts the copy; it names the config it is a copy of.
const lastGoodHeader = "# agate: the last good copy of "

// readConfigFile reads the config file p.Config names; see readMode for
// what a missing file gives. An empty file is errConfigEmpty, whatever
// the mode.
func readConfigFile(p Paths, mode readMode) (configText, error) {
	data, err := readLimited(p.Config, policy.MaxConfigSize)
	switch {
	case err == nil:
		if len(bytes.TrimSpace(data)) == 0 {
			return configText{}, fmt.Errorf("%s: %w (restore it, or run `agate config reset` for the defaults)", p.Config, errConfigEmpty)
		}
		return configText{data: data, source: p.Config}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return configText{}, fmt.Errorf("read config: %w", err)
	case mode == live:
		return configText{}, fmt.Errorf("%s: %w: the last good policy stays in force (restore it, or run `agate config reset` for the defaults)", p.Config, errConfigMissing)
	}
	if good, saved, ok := readLastGood(p); ok {
		return configText{data: good, source: lastGoodPath(p),
			missing: fmt.Errorf("%s: %w: running its last good copy, saved %s (restore it, or run `agate config reset` for the defaults)",
				p.Config, errConfigMissing, saved)}, nil
	}
	if mode == atStart {
		if err := WriteFileAtomic(p.Config, policy.DefaultConfigText, 0o600); err != nil {
			return configText{}, fmt.Errorf("write the default config: %w", err)
		}
	}
	return configText{data: policy.DefaultConfigText, source: p.Config}, nil
}

func lastGoodPath(p Paths) string { return filepath.Join(p.State, lastGoodName) }

// saveLastGood keeps data, a config just put in force, as the last good
// copy of p.Config, unless the copy already holds it.
func saveLastGood(p Paths, data []byte, at time.Time) error {
	if old, _, ok := readLastGood(p); ok && bytes.Equal(old, data) {
		return nil
	}
	head := fmt.Sprintf("%s%s, saved %s: agate starts from it when that file is gone.\n",
		lastGoodHeader, strconv.Quote(p.Config), at.UTC().Format(time.RFC3339))
	if err := osutil.MakeDir(p.State, false); err != nil {
		return err
	}
	return WriteFileAtomic(lastGoodPath(p), append([]byte(head), data...), 0o600)
}

// readLastGood returns the last good copy of p.Config and when it was
// saved; ok is false when there is none (or it is of another config).
func readLastGood(p Paths) (data []byte, saved string, ok bool) {
	b, err := readLimited(lastGoodPath(p), policy.MaxConfigSize+4096)
	if err != nil {
		return nil, "", false
	}
	head, rest, found := bytes.Cut(b, []byte("\n"))
	h, isCopy := strings.CutPrefix(string(head), lastGoodHeader)
	if !found || !isCopy {
		return nil, "", false
	}
	name, err := strconv.QuotedPrefix(h)
	if err != nil {
		return nil, "", false
	}
	if path, _ := strconv.Unquote(name); path != p.Config {
		return nil, "", false
	}
	saved, _, _ = strings.Cut(strings.TrimPrefix(h[len(name):], ", saved "), ":")
	return rest, saved, true
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
// writing it (see readOnly). Commands that run per call (check, sandbox)
// and doctor use it.
func readConfig(p Paths) (*policy.Config, error) {
	ct, err := readConfigFile(p, readOnly)
	if err != nil {
		return nil, err
	}
	return policy.Parse(ct.source, ct.data)
}

// loadConfig reads and parses the config file named by p, writing the
// defaults on a true first run (see atStart).
func loadConfig(p Paths) (*policy.Config, error) {
	ct, err := readConfigFile(p, atStart)
	if err != nil {
		return nil, err
	}
	return policy.Parse(ct.source, ct.data)
}

// policyOptions are the machine's facts a policy is compiled with.
func policyOptions(p Paths) policy.Options {
	home, _ := homeDir()
	o := policy.Options{Home: home, StateDir: p.State, Resolve: resolvePath,
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

// globPaths expands a glob from a shell command as the shell would (a
// leading dot is matched only by a pattern that starts with one), and the
// policy's DIR/**/NAME and DIR/** forms as find would, for the policy's
// secret-read check.
func globPaths(pattern string) ([]string, bool) {
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
// keep says to, hidden ones too, as find walks them; symlinks are not
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
