package policy

import (
	"errors"
	"github.com/agatehq/agate/policy/stores"
	"maps"
	"path"
	"strings"
)

// pathPattern is a compiled protected_paths / secret_paths entry. The
// forms, matched against a call's absolute, cleaned path:
//
//	.env  *.pem  id_rsa*     no slash: the file's base name
//	.claude/  .git/hooks/    trailing slash: that folder, anywhere, and all below it
//	.git/config              a relative path: the path ends with it
//	~/.config/agate  /etc/*  absolute (or ~): the path, or anything below it
type pathPattern struct {
	text string
	kind patternKind
	g    glob
}

type patternKind uint8

const (
	patBase     patternKind = iota // match the base name
	patDir                         // a folder anywhere: match the path or any ancestor against "*/dir"
	patSuffix                      // match the path against "*/rel"
	patAbsolute                    // match the path or any ancestor
)

func compilePathPattern(p string, o Options) (pathPattern, error) {
	pp := pathPattern{text: p}
	s := strings.TrimSpace(p)
	if s == "" {
		return pp, errors.New("empty pattern")
	}
	if s == "~" || strings.HasPrefix(s, "~/") {
		if o.Home == "" {
			s = "/~" + s[1:] // checked for syntax only; compiled for real with a home
		} else {
			s = o.Home + s[1:]
		}
	}
	var g string
	switch {
	case strings.HasPrefix(s, "/"):
		pp.kind, g = patAbsolute, path.Clean(s)
	case strings.HasSuffix(s, "/"):
		pp.kind, g = patDir, "*/"+strings.TrimRight(s, "/")
	case strings.Contains(s, "/"):
		pp.kind, g = patSuffix, "*/"+strings.TrimPrefix(s, "./")
	default:
		pp.kind, g = patBase, s
	}
	var err error
	pp.g, err = compileGlob(g)
	return pp, err
}

// match reports whether the absolute, cleaned path p, whose base name is
// base, is covered.
func (pp *pathPattern) match(p, base string) bool {
	switch pp.kind {
	case patBase:
		return pp.g.match(base)
	case patSuffix:
		return pp.g.match(p)
	case patDir:
		if pp.g.kind == globSuffix {
			// "*/name" with a literal name: a component of p, or a run of them.
			dir := pp.g.lit // "/name"
			i := strings.Index(p, dir)
			for i >= 0 {
				end := i + len(dir)
				if end == len(p) || p[end] == '/' {
					return true
				}
				j := strings.Index(p[i+1:], dir)
				if j < 0 {
					break
				}
				i += 1 + j
			}
			return false
		}
	case patAbsolute:
		if pp.g.kind == globLiteral {
			return within(p, pp.g.lit)
		}
	}
	// p or any of its ancestors.
	for d := p; d != ""; {
		if pp.g.match(d) {
			return true
		}
		i := strings.LastIndexByte(d, '/')
		switch {
		case i > 0:
			d = d[:i]
		case i == 0 && d != "/":
			d = "/"
		default:
			d = ""
		}
	}
	return false
}

// ProtectedPaths returns the built-in list of paths whose writes ask (in
// the form [auto] protected_paths takes): stores.Protected. agate's
// sandbox keeps each that exists read-only, so a command confined to a
// judgment that missed the write meets the OS.
func ProtectedPaths() []string { return stores.Protected() }

// pathSet is a compiled list of path patterns. Literal base names (most
// of the built-in list) are looked up in a map; the rest are tried in turn.
type pathSet struct {
	pats    []pathPattern
	src     []RuleRef      // where each pattern came from
	litBase map[string]int // literal base names (.env): the first pattern of each
	litAbs  map[string]int // literal absolute folders and files (/etc/shadow, ~/.aws)
	litDir  map[string]int // literal one-component folders anywhere (.ssh/)
	others  []int          // the rest, tried in turn
	fold    bool           // match case-insensitively (macOS, Windows)
}

// first records index i under key in m, unless an earlier one is there.
func first(m *map[string]int, key string, i int) {
	if *m == nil {
		*m = map[string]int{}
	}
	if _, dup := (*m)[key]; !dup {
		(*m)[key] = i
	}
}

func (s *pathSet) add(p string, ref RuleRef, o Options) error {
	s.fold = o.FoldCase
	if o.FoldCase {
		p = strings.ToLower(p)
	}
	pp, err := compilePathPattern(p, o)
	if err != nil {
		return err
	}
	i := len(s.pats)
	s.pats = append(s.pats, pp)
	s.src = append(s.src, ref)
	switch {
	case pp.kind == patBase && pp.g.kind == globLiteral:
		first(&s.litBase, pp.g.lit, i)
	case pp.kind == patAbsolute && pp.g.kind == globLiteral:
		first(&s.litAbs, pp.g.lit, i)
	case pp.kind == patDir && pp.g.kind == globSuffix && strings.LastIndexByte(pp.g.lit, '/') == 0:
		first(&s.litDir, pp.g.lit[1:], i)
	default:
		s.others = append(s.others, i)
	}
	return nil
}

// clone returns a copy that can be added to without changing s.
func (s *pathSet) clone() pathSet {
	return pathSet{
		pats:    append([]pathPattern(nil), s.pats...),
		src:     append([]RuleRef(nil), s.src...),
		litBase: maps.Clone(s.litBase),
		litAbs:  maps.Clone(s.litAbs),
		litDir:  maps.Clone(s.litDir),
		others:  append([]int(nil), s.others...),
		fold:    s.fold,
	}
}

// match returns the first pattern covering the absolute path p.
func (s *pathSet) match(p string) (*RuleRef, bool) {
	if s.fold {
		p = strings.ToLower(p)
	}
	best := len(s.pats)
	base := p[strings.LastIndexByte(p, '/')+1:]
	if i, ok := s.litBase[base]; ok {
		best = i
	}
	if len(s.litAbs) > 0 || len(s.litDir) > 0 {
		// p and each folder above it; each component of p.
		for d := p; d != ""; {
			if i, ok := s.litAbs[d]; ok && i < best {
				best = i
			}
			j := strings.LastIndexByte(d, '/')
			if j < 0 {
				break
			}
			if i, ok := s.litDir[d[j+1:]]; ok && i < best {
				best = i
			}
			switch {
			case j > 0:
				d = d[:j]
			case d != "/":
				d = "/"
			default:
				d = ""
			}
		}
	}
	for _, i := range s.others {
		if i >= best {
			break
		}
		if s.pats[i].match(p, base) {
			best = i
			break
		}
	}
	if best == len(s.pats) {
		return nil, false
	}
	return &s.src[best], true
}

// matchGlob returns a pattern covering some path the glob p could name,
// exactly: the languages of the glob and of each pattern meet (see
// globpath.go).
func (s *pathSet) matchGlob(p string) (*RuleRef, bool) {
	if !strings.ContainsAny(p, "*?[") {
		return nil, false
	}
	if s.fold {
		p = strings.ToLower(p)
	}
	qs := globLanguages(p)
	qp := litPrefix(p)
	for i := range s.pats {
		pp := &s.pats[i]
		if pp.kind == patAbsolute {
			// Anchored both: one literal start must lead to the other.
			if lp := litPrefix(pp.g.pattern); !strings.HasPrefix(lp, qp) && !strings.HasPrefix(qp, lp) {
				continue
			}
		}
		for _, l := range pp.languages() {
			for _, q := range qs {
				if meet(q, l) {
					return &s.src[i], true
				}
			}
		}
	}
	return nil, false
}

// under returns a pattern covering a path below the folder d, for a
// program that reads d's content: a folder that holds the person's home
// holds every secret in it; one above an anchored secret, that secret.
func (s *pathSet) under(d, home string) (*RuleRef, string, bool) {
	if s.fold {
		d, home = strings.ToLower(d), strings.ToLower(home)
	}
	if home != "" && home != "/" && within(home, d) {
		first := -1
		for i := range s.pats {
			if k := s.pats[i].kind; k == patDir && first < 0 || k == patDir && s.pats[i].text == ".ssh/" {
				first = i
			}
		}
		if first >= 0 {
			return &s.src[first], s.pats[first].text, true
		}
	}
	for i := range s.pats {
		pp := &s.pats[i]
		if pp.kind != patAbsolute {
			continue
		}
		if lp := litPrefix(pp.g.pattern); strings.HasPrefix(lp, strings.TrimSuffix(d, "/")+"/") {
			return &s.src[i], pp.text, true
		}
	}
	return nil, "", false
}

// absPath makes p absolute: "~" expands to home, a relative path joins cwd,
// and the result is cleaned. Symlinks are the resolver's business.
func absPath(p, cwd, home string) string {
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = home + p[1:]
	}
	if !strings.HasPrefix(p, "/") {
		if cwd == "" {
			cwd = "/"
		}
		p = cwd + "/" + p
	}
	return path.Clean(p)
}

// within reports whether the absolute path p is dir or below it.
func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}
