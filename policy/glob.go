package policy

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// glob is a compiled fnmatch-style pattern, as eVi's rules use: '*' matches
// any run of characters (slashes included), '?' one character, and
// "[abc]", "[a-z]", "[!abc]" one character of (or not of) a set. There is
// no escape character; "[*]" matches a literal star.
//
// Common shapes (a literal, "abc*", "*abc", "*abc*") are matched without
// the general algorithm, which keeps a 200-rule policy fast.
type glob struct {
	pattern string
	kind    globKind
	lit     string // the literal part for the fast kinds
}

type globKind uint8

const (
	globLiteral  globKind = iota // pattern has no metacharacter
	globPrefix                   // "lit*"
	globSuffix                   // "*lit"
	globContains                 // "*lit*"
	globAny                      // "*"
	globGeneral
)

// compileGlob checks pattern and returns its matcher.
func compileGlob(pattern string) (glob, error) {
	if pattern == "" {
		return glob{}, fmt.Errorf("empty pattern")
	}
	if !utf8.ValidString(pattern) {
		return glob{}, fmt.Errorf("pattern %q is not valid UTF-8", pattern)
	}
	// Validate brackets.
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '[' {
			end := classEnd(pattern, i)
			if end < 0 {
				return glob{}, fmt.Errorf("pattern %q: unclosed '['", pattern)
			}
			i = end
		}
	}
	g := glob{pattern: pattern, kind: globGeneral}
	meta := strings.IndexAny(pattern, "*?[")
	switch {
	case meta < 0:
		g.kind, g.lit = globLiteral, pattern
	case strings.Trim(pattern, "*") == "":
		g.kind = globAny
	default:
		inner := strings.Trim(pattern, "*")
		if !strings.ContainsAny(inner, "*?[") {
			lead := strings.HasPrefix(pattern, "*")
			trail := strings.HasSuffix(pattern, "*")
			switch {
			case lead && trail:
				g.kind, g.lit = globContains, inner
			case trail:
				g.kind, g.lit = globPrefix, inner
			case lead:
				g.kind, g.lit = globSuffix, inner
			}
		}
	}
	return g, nil
}

// String returns the pattern as written.
func (g glob) String() string { return g.pattern }

// match reports whether s matches the whole pattern.
func (g glob) match(s string) bool {
	switch g.kind {
	case globLiteral:
		return s == g.lit
	case globPrefix:
		return strings.HasPrefix(s, g.lit)
	case globSuffix:
		return strings.HasSuffix(s, g.lit)
	case globContains:
		return strings.Contains(s, g.lit)
	case globAny:
		return true
	}
	return wildMatch(g.pattern, s)
}

// wildMatch is the general matcher: iterative, with one backtrack point per
// star, so it runs in O(len(p)*len(s)) at worst and never recurses.
func wildMatch(p, s string) bool {
	px, sx := 0, 0
	starPx, starSx := -1, 0
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			switch c := p[px]; c {
			case '*':
				starPx, starSx = px, sx
				px++
				continue
			case '?':
				if sx < len(s) {
					_, n := utf8.DecodeRuneInString(s[sx:])
					px++
					sx += n
					continue
				}
			case '[':
				if sx < len(s) {
					r, n := utf8.DecodeRuneInString(s[sx:])
					end := classEnd(p, px)
					if end > 0 && classMatch(p[px+1:end], r) {
						px = end + 1
						sx += n
						continue
					}
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		// Mismatch: let the last star swallow one more character.
		if starPx >= 0 && starSx < len(s) {
			_, n := utf8.DecodeRuneInString(s[starSx:])
			starSx += n
			px, sx = starPx+1, starSx
			continue
		}
		return false
	}
	return true
}

// classEnd returns the index of the ']' closing the class that opens at i,
// or -1. As in fnmatch, a ']' right after "[" or "[!" is literal.
func classEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '!' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		if p[j] == ']' {
			return j
		}
	}
	return -1
}

// classMatch reports whether r is in the class body (between the brackets).
func classMatch(body string, r rune) bool {
	negate := false
	if strings.HasPrefix(body, "!") {
		negate, body = true, body[1:]
	}
	in := false
	for i := 0; i < len(body); {
		lo, n := utf8.DecodeRuneInString(body[i:])
		i += n
		hi := lo
		if i+1 < len(body) && body[i] == '-' {
			h, m := utf8.DecodeRuneInString(body[i+1:])
			hi = h
			i += 1 + m
		}
		if lo <= r && r <= hi {
			in = true
		}
	}
	return in != negate
}
