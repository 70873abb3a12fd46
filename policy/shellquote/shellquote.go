// Package shellquote writes words as bash and zsh read them back, with
// mvdan.cc/sh's quoting: a word of plain characters as it is, anything
// else in single quotes, and a word with a control character or bytes
// that are not UTF-8 in $'...'. It is agate's one shell quoter: the
// commands a confined call is rewritten to, the hook command written
// into an agent's settings, the words the policy puts back together.
//
// It refuses what no quoting can carry (a NUL byte: no argument can hold
// one) rather than write a word the shell would read otherwise, and it
// always quotes a leading '=' (zsh's command-path expansion: =ls is
// /bin/ls) and '~'. Like the rest of the policy it is pure.
package shellquote

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// ErrNUL is the error for a word with a NUL byte, which no shell word
// and no program argument can hold.
var ErrNUL = errors.New("a NUL byte cannot be in a shell word")

// ErrNotPOSIX is QuotePOSIX's error for a word that only bash and zsh
// can write ($'...'): a control character, or bytes that are not UTF-8.
var ErrNotPOSIX = errors.New("a control character or bytes that are not UTF-8 cannot be written for every POSIX shell")

// Quote returns s as one word that bash and zsh read back as s.
func Quote(s string) (string, error) { return quote(s, syntax.LangBash) }

// QuotePOSIX returns s as one word that every POSIX shell (sh, dash,
// bash, zsh) reads back as s, for a command another program runs with
// sh -c. A word only bash and zsh could read is ErrNotPOSIX.
func QuotePOSIX(s string) (string, error) { return quote(s, syntax.LangPOSIX) }

func quote(s string, lang syntax.LangVariant) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", ErrNUL
	}
	q, err := syntax.Quote(s, lang)
	if err != nil {
		if lang == syntax.LangPOSIX {
			return "", fmt.Errorf("%w: %v", ErrNotPOSIX, err)
		}
		return "", err
	}
	// syntax.Quote quotes '=' and '~' wherever they are; this holds
	// whatever a later version decides, since zsh reads a bare leading
	// '=' as a command's path and '~' as a home folder.
	if q != "" && (q[0] == '=' || q[0] == '~') {
		q = "'" + q + "'"
	}
	return q, nil
}

// Join quotes each word with Quote and joins them with spaces: one
// command line that bash and zsh split back into words.
func Join(words []string) (string, error) { return join(words, Quote) }

// JoinPOSIX is Join with QuotePOSIX.
func JoinPOSIX(words []string) (string, error) { return join(words, QuotePOSIX) }

func join(words []string, quote func(string) (string, error)) (string, error) {
	var b strings.Builder
	for i, w := range words {
		q, err := quote(w)
		if err != nil {
			return "", fmt.Errorf("quote word %d (%q): %w", i+1, w, err)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(q)
	}
	return b.String(), nil
}

// Split reads line as bash would read a command of plain words, the
// inverse of Join: each word unquoted. It reports false for a line that
// is not one such command: an expansion, a redirection, an assignment,
// more than one command, or a line that does not parse.
func Split(line string) ([]string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(st.Redirs) > 0 || st.Background || st.Negated || st.Coprocess {
		return nil, false
	}
	words := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		var b strings.Builder
		for _, part := range w.Parts {
			switch p := part.(type) {
			case *syntax.Lit:
				// Outside quotes a backslash escapes the character after it,
				// and a backslash-newline is nothing.
				for i := 0; i < len(p.Value); i++ {
					c := p.Value[i]
					if c == '\\' && i+1 < len(p.Value) {
						i++
						if c = p.Value[i]; c == '\n' {
							continue
						}
					}
					b.WriteByte(c)
				}
			case *syntax.SglQuoted:
				if !p.Dollar {
					b.WriteString(p.Value)
					continue
				}
				s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}})
				if err != nil {
					return nil, false
				}
				b.WriteString(s)
			case *syntax.DblQuoted:
				// Only text: inside double quotes a backslash escapes $, `,
				// ", \ and a newline, and is itself elsewhere.
				if p.Dollar {
					return nil, false
				}
				for _, dp := range p.Parts {
					lit, ok := dp.(*syntax.Lit)
					if !ok {
						return nil, false
					}
					v := lit.Value
					for i := 0; i < len(v); i++ {
						c := v[i]
						if c == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
							i++
							if c = v[i]; c == '\n' {
								continue
							}
						}
						b.WriteByte(c)
					}
				}
			default:
				return nil, false // $x, $(...), "$x": not a plain word
			}
		}
		words = append(words, b.String())
	}
	return words, true
}
