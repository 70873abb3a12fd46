package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// mountKind is one step of a sandbox's filesystem layout.
type mountKind int

const (
	mountBindRW   mountKind = iota // bind path onto itself, writable
	mountBindRO                    // bind path onto itself, read-only
	mountHideDir                   // a read-only tmpfs of mode 0000 over a directory: reading it is "permission denied"
	mountHideFile                  // a read-only empty file of mode 0000 over a file: reading it is "permission denied"
	mountEmptyDir                  // an empty tmpfs over a directory that holds a bound path, which shows through it
	mountPin                       // a writable self-bind that makes a directory impossible to rename
	mountProtect                   // a read-only self-bind over a protected path
	mountView                      // a read-only file of mode 0444 over a file, with the content Options.Views gives it
)

// mount is one step of the layout. Steps apply in order, on top of a
// read-only root, a private /dev, /proc (with /proc/sys read-only) and an
// empty /tmp.
type mount struct {
	kind mountKind
	path string
}

// plan is Options resolved for one command: clean absolute paths with
// symlinks resolved, the mount layout, the scrubbed environment.
type plan struct {
	opts     Options
	work     string
	dir      string   // where the command starts: Options.Dir, or work
	writable []string // besides work
	workRO   bool     // the work dir is read-only (it is in readOnly)
	readOnly []string
	mounts   []mount
	views    map[string][]byte // mountView's content, by path
	env      []string
	net      bool
	argv     []string
	// hiddenFile is the container launchers' placeholder for a hidden
	// file (hiddenFile), set when the plan hides one.
	hiddenFile string
}

// errNoCommand is returned for an empty argv.
var errNoCommand = errors.New("no command to run")

// newPlan resolves o for argv. Paths the caller asked to bind (work dir,
// writable, read-only) must exist; protected and hidden paths that do not
// exist are skipped.
func newPlan(o Options, argv []string) (*plan, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errNoCommand
	}
	p := &plan{opts: o, net: o.Net, argv: argv}

	work := o.WorkDir
	if work == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("work dir: %w", err)
		}
		work = wd
	}
	var err error
	if p.work, err = realDir(work); err != nil {
		return nil, fmt.Errorf("work dir: %w", err)
	}
	for _, w := range o.Writable {
		r, err := realPath(w)
		if err != nil {
			return nil, fmt.Errorf("writable path: %w", err)
		}
		if r == "/" {
			return nil, errors.New("writable path: / would leave the whole filesystem writable")
		}
		p.writable = append(p.writable, r)
	}
	for _, ro := range o.ReadOnly {
		r, err := realPath(ro)
		if err != nil {
			return nil, fmt.Errorf("read-only path: %w", err)
		}
		p.readOnly = append(p.readOnly, r)
	}
	p.dir = p.work
	if o.Dir != "" {
		if p.dir, err = realDir(o.Dir); err != nil {
			return nil, fmt.Errorf("start dir: %w", err)
		}
	}
	if o.ReadOnlyWork {
		p.workRO = true
		p.readOnly = append(p.readOnly, p.work)
	}
	p.writable = uniq(p.writable)
	p.readOnly = uniq(p.readOnly)
	hidden := existing(o.Hidden) // (each is resolved through its links: once)
	p.mounts = p.layout(existing(o.Protected), hidden)
	if err := p.addViews(o.Views, hidden); err != nil {
		return nil, err
	}

	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	p.env = setEnv(keepEnv(ScrubEnv(env, o.SecretEnv), env, o.KeepEnv, o.SecretEnv), "PWD", p.start())
	// A temp folder the command could not write is its private /tmp.
	for _, kv := range p.env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok && v != "" && !within(filepath.Clean(v), "/tmp") && p.rootOf(filepath.Clean(v)) == "" {
			p.env = setEnv(p.env, "TMPDIR", "/tmp")
			break
		}
	}
	return p, nil
}

// realDir resolves path to an absolute, symlink-free directory other than /.
func realDir(path string) (string, error) {
	r, err := realPath(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(r)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", path)
	}
	if r == "/" {
		return "", errors.New("/ would leave the whole filesystem writable")
	}
	return r, nil
}

// realPath resolves path to an absolute, symlink-free path that exists.
func realPath(path string) (string, error) {
	if path == "" {
		return "", errors.New("empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	return r, nil
}

// existing resolves the paths that exist and drops the others.
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if r, err := realPath(p); err == nil {
			out = append(out, r)
		}
	}
	return uniq(out)
}

func uniq(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// roots returns the writable roots: the work dir (unless it is read-only)
// and the writable paths.
func (p *plan) roots() []string {
	if p.workRO {
		return slices.Clone(p.writable)
	}
	return append([]string{p.work}, p.writable...)
}

// bound returns every path bound from the host: the writable roots and the
// read-only paths.
func (p *plan) bound() []string { return append(p.roots(), p.readOnly...) }

// rootOf returns the writable root that path lies under, "" if none.
func (p *plan) rootOf(path string) string {
	best := ""
	for _, r := range p.roots() {
		if within(path, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// layout orders the mounts:
//
//  1. hidden paths that contain a bound path, as empty folders, so the
//     bound path shows through them;
//  2. the binds: work dir and writable paths read-write, read-only paths;
//  3. the other hidden paths, so a hidden dir under the work dir stays
//     hidden: each reads as "permission denied" (mode 0000, read-only, so
//     it cannot be chmod-ed open), never as an empty folder;
//  4. pins: every directory between a writable root and a protected path
//     below it is bound onto itself, so it cannot be renamed away with the
//     protected path inside it and replaced;
//  5. the protected paths under a writable root, read-only. Protected paths
//     elsewhere are read-only already.
//
// Hidden paths under /tmp are dropped when nothing bound is around them:
// /tmp is private already.
func (p *plan) layout(protected, hidden []string) []mount {
	bound := p.bound()
	hidden = expandAround(hidden, bound)
	var early, late []mount
	var lateHidden []string
	for _, h := range hidden {
		kind := mountHideDir
		if fi, err := os.Stat(h); err != nil || !fi.IsDir() {
			kind = mountHideFile
		}
		containsBound, insideBound := false, false
		for _, b := range bound {
			containsBound = containsBound || within(b, h)
			insideBound = insideBound || within(h, b)
		}
		switch {
		case containsBound && kind == mountHideDir:
			// A bound path must be reachable through it: an empty folder,
			// not one that refuses to be entered.
			early = append(early, mount{mountEmptyDir, h})
		case containsBound:
			// A file cannot hold a bound path: nothing to hide here.
		case !insideBound && (within(h, "/tmp") || coveredBy(h, hidden)):
			// Not visible anyway: under the private /tmp, or under another
			// hidden path with no bind between.
		default:
			late = append(late, mount{kind, h})
			lateHidden = append(lateHidden, h)
		}
	}
	// A hidden path inside another that refuses to be entered is hidden
	// already (and no mount point could be made for it there).
	kept := late[:0]
	for _, m := range late {
		if !coveredBy(m.path, lateHidden) {
			kept = append(kept, m)
		}
	}
	late = kept
	var out []mount
	out = append(out, early...)
	// The binds shallow first, so a path bound inside another keeps its
	// own kind: a writable folder inside a read-only work dir stays
	// writable, a read-only one inside a writable root stays read-only.
	var binds []mount
	for _, r := range p.roots() {
		binds = append(binds, mount{mountBindRW, r})
	}
	for _, r := range p.readOnly {
		if !slices.Contains(p.roots(), r) {
			binds = append(binds, mount{mountBindRO, r})
		}
	}
	slices.SortStableFunc(binds, func(a, b mount) int {
		return strings.Count(a.path, "/") - strings.Count(b.path, "/")
	})
	out = append(out, binds...)
	out = append(out, late...)

	var pins, prot []string
	for _, pp := range uniq(protected) {
		root := p.rootOf(pp)
		if root == "" || under(pp, lateHidden) {
			continue
		}
		prot = append(prot, pp)
		for d := filepath.Dir(pp); d != root && within(d, root); d = filepath.Dir(d) {
			pins = append(pins, d)
		}
	}
	pins = uniq(pins)
	// Shallow first, so a deeper pin is not covered by a shallower one.
	slices.SortStableFunc(pins, func(a, b string) int {
		return strings.Count(a, "/") - strings.Count(b, "/")
	})
	for _, d := range pins {
		if !under(d, prot) {
			out = append(out, mount{mountPin, d})
		}
	}
	for _, pp := range prot {
		out = append(out, mount{mountProtect, pp})
	}
	return out
}

// coveredBy reports whether path lies strictly below another of hidden.
func coveredBy(path string, hidden []string) bool {
	for _, h := range hidden {
		if h != path && within(path, h) {
			return true
		}
	}
	return false
}

// under reports whether path is one of dirs or lies below one.
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if within(path, d) {
			return true
		}
	}
	return false
}

// start is where the command starts: the start dir, or the work dir.
func (p *plan) start() string {
	if p.dir != "" {
		return p.dir
	}
	return p.work
}

// maxAround bounds the entries a hidden folder holding a bound path is
// taken apart into; past it, the folder shows as an empty one.
const maxAround = 256

// expandAround replaces each hidden folder that holds a bound path by its
// entries, but for those on the way to a bound path, taken apart in turn:
// what is beside the bound path reads as "permission denied" rather than
// as missing, and the bound path shows. A folder of more than maxAround
// entries stays whole (then it shows empty around the bound path).
func expandAround(hidden, bound []string) []string {
	var out []string
	var walk func(h string, depth int)
	walk = func(h string, depth int) {
		holds := false
		for _, b := range bound {
			if b == h {
				return // bound itself: nothing to hide
			}
			holds = holds || within(b, h)
		}
		if !holds {
			out = append(out, h)
			return
		}
		entries, err := os.ReadDir(h)
		if err != nil || len(entries) > maxAround || depth > 16 {
			out = append(out, h)
			return
		}
		for _, e := range entries {
			walk(filepath.Join(h, e.Name()), depth+1)
		}
	}
	for _, h := range hidden {
		walk(h, 0)
	}
	return out
}
