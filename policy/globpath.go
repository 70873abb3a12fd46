package policy

import (
	"strings"
	"unicode/utf8"
)

// This file answers one question exactly: may a glob in a command name a
// path that a protected or secret pattern covers? The shell's glob and
// the pattern are each a language of paths; the answer is whether the two
// languages meet, decided by walking both at once. The glob in the
// command is the shell's ('*', '?' and '[...]' stay inside one path
// component); a pattern is agate's ('*' crosses slashes). Two forms only
// agate writes stand for what a program finds rather than what the shell
// expands: "/**/" (any run of folders, none included) and a trailing "/**"
// (the folder and everything below it).

// charSet is the characters one step of a path language takes.
type charSet struct {
	kind    uint8 // csLit, csAny, csClass
	r       rune  // the literal
	body    string
	noSlash bool // the set never holds '/'
}

const (
	csLit uint8 = iota
	csAny
	csClass
)

func (c charSet) has(r rune) bool {
	switch c.kind {
	case csLit:
		return r == c.r
	case csAny:
		return !(c.noSlash && r == '/')
	default:
		return !(c.noSlash && r == '/') && classMatch(c.body, r)
	}
}

// meets reports whether some character is in both sets, other than a
// dot when noDot is set.
func (c charSet) meets(d charSet, noDot bool) bool {
	switch {
	case c.kind == csLit:
		return d.has(c.r) && !(noDot && c.r == '.')
	case d.kind == csLit:
		return c.has(d.r) && !(noDot && d.r == '.')
	case c.kind == csAny && d.kind == csAny:
		return true
	}
	// A class is in play: try the characters that can tell sets apart,
	// the printable ASCII ones, the class bodies' own, and one beyond.
	try := func(r rune) bool { return c.has(r) && d.has(r) && !(noDot && r == '.') }
	for r := rune(' '); r <= '~'; r++ {
		if try(r) {
			return true
		}
	}
	for _, body := range []string{c.body, d.body} {
		for _, r := range body {
			if try(r) {
				return true
			}
		}
	}
	return try('é')
}

// step is one piece of a path language: one character of a set, or any
// run of them.
type step struct {
	set  charSet
	star bool
	// leadDot is set for a shell wildcard at the start of a component:
	// the first character it takes is not a dot, as the shell globs.
	leadDot bool
}

// globMode is how a glob's wildcards match.
type globMode uint8

const (
	agateGlob globMode = iota // agate's patterns: wildcards cross slashes
	shellGlob                 // the shell's: inside a component, and no leading dot
	nameGlob                  // find's -name: inside a component, dots too
)

// steps compiles a glob into steps.
func steps(g string, mode globMode) []step {
	out := make([]step, 0, len(g))
	shell := mode != agateGlob
	for i := 0; i < len(g); {
		lead := mode == shellGlob && (i == 0 || g[i-1] == '/')
		switch g[i] {
		case '*':
			for i < len(g) && g[i] == '*' {
				i++
			}
			out = append(out, step{set: charSet{kind: csAny, noSlash: shell}, star: true, leadDot: lead})
			continue
		case '?':
			out = append(out, step{set: charSet{kind: csAny, noSlash: shell}, leadDot: lead})
			i++
			continue
		case '[':
			if end := classEnd(g, i); end > 0 {
				out = append(out, step{set: charSet{kind: csClass, body: g[i+1 : end], noSlash: shell}, leadDot: lead})
				i = end + 1
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(g[i:])
		out = append(out, step{set: charSet{kind: csLit, r: r}})
		i += n
	}
	return out
}

// anyRun is a run of any characters, slashes included.
var anyRun = step{set: charSet{kind: csAny}, star: true}

// lit is the steps of a literal string.
func lit(s string) []step {
	out := make([]step, 0, len(s))
	for _, r := range s {
		out = append(out, step{set: charSet{kind: csLit, r: r}})
	}
	return out
}

// globLanguages returns the path languages a read path of a command
// stands for: the shell's glob, with agate's "/**/NAME" (NAME in any
// folder below, matched as find's -name matches) and "/**" (the folder
// and all below it) expanded into their alternatives.
func globLanguages(p string) [][]step {
	if rest, ok := strings.CutSuffix(p, "/**"); ok {
		h := steps(rest, shellGlob)
		return [][]step{h, concat(h, lit("/"), []step{anyRun})}
	}
	if head, name, ok := strings.Cut(p, "/**/"); ok && !strings.Contains(name, "/") {
		h, n := steps(head, shellGlob), steps(name, nameGlob)
		return [][]step{concat(h, lit("/"), n), concat(h, lit("/"), []step{anyRun}, lit("/"), n)}
	}
	return [][]step{steps(p, shellGlob)}
}

func concat(parts ...[]step) []step {
	var n int
	for _, p := range parts {
		n += len(p)
	}
	out := make([]step, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// languages returns the paths a pattern covers, as path languages.
func (pp *pathPattern) languages() [][]step {
	g := steps(pp.g.pattern, agateGlob)
	below := concat(g, lit("/"), []step{anyRun})
	switch pp.kind {
	case patBase:
		// The base name: any folders, then a name with no slash in it.
		return [][]step{concat([]step{anyRun}, lit("/"), steps(pp.g.pattern, nameGlob))}
	case patSuffix:
		return [][]step{g}
	default: // patDir, patAbsolute: the path and all below it
		return [][]step{g, below}
	}
}

// meet reports whether some string is in both languages. The walk's
// state is a position in each language and, for each, whether the run
// there has taken a character yet (a leading wildcard's first may not be
// a dot). A witness in which both sides' runs take the same character can
// drop it and stay a witness, once neither is a leading wildcard yet to
// take its first: so both runs move at once only then.
func meet(a, b []step) bool {
	w := len(b) + 1
	memo := make([]int8, (len(a)+1)*w*4) // 0 not yet, 1 meets, 2 does not
	var walk func(i, j int, ta, tb bool) bool
	walk = func(i, j int, ta, tb bool) bool {
		k := (i*w+j)*4 + b2i(ta)*2 + b2i(tb)
		if m := memo[k]; m != 0 {
			return m == 1
		}
		var ok bool
		switch {
		case i == len(a) && j == len(b):
			ok = true
		case i < len(a) && a[i].star && walk(i+1, j, false, tb):
			ok = true
		case j < len(b) && b[j].star && walk(i, j+1, ta, false):
			ok = true
		case i < len(a) && j < len(b):
			sa, sb := a[i], b[j]
			noDot := sa.leadDot && !ta || sb.leadDot && !tb
			if !sa.set.meets(sb.set, noDot) {
				break
			}
			switch {
			case sa.star && sb.star:
				// Covered by skipping either run, unless a leading
				// wildcard has yet to take its first character: then
				// both take one together.
				if noDot {
					ok = walk(i, j, true, true)
				}
			case sa.star:
				ok = walk(i, j+1, true, false)
			case sb.star:
				ok = walk(i+1, j, false, true)
			default:
				ok = walk(i+1, j+1, false, false)
			}
		}
		memo[k] = 2
		if ok {
			memo[k] = 1
		}
		return ok
	}
	return walk(0, 0, false, false)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// litPrefix is the part of a glob before its first wildcard.
func litPrefix(g string) string {
	if i := strings.IndexAny(g, "*?["); i >= 0 {
		return g[:i]
	}
	return g
}
