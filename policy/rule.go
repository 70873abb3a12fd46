package policy

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// rule is one compiled "<allow|deny|ask> <tool-glob> [arg-glob]" entry.
type rule struct {
	verdict Verdict
	tool    glob
	arg     *glob // nil: any arguments
	ref     RuleRef
}

// cutField splits off the first space-separated field of s.
func cutField(s string) (field, rest string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeftFunc(s[i:], unicode.IsSpace)
}

// parseRule parses a rule. In hard_deny the verb is optional and can only
// be deny. The argument glob is the rest of the text after the tool glob,
// inner spaces kept: "allow bash git status*".
func parseRule(s string, hardDeny bool) (rule, error) {
	r := rule{ref: RuleRef{Text: s}, verdict: Deny}
	word, rest := cutField(s)
	if word == "" {
		return rule{}, errors.New("empty rule")
	}
	switch word {
	case "allow", "deny", "ask":
		r.verdict, _ = ParseVerdict(word)
		if hardDeny && r.verdict != Deny {
			return rule{}, fmt.Errorf("rule %q: hard_deny entries can only deny", s)
		}
		word, rest = cutField(rest)
	default:
		if !hardDeny {
			return rule{}, fmt.Errorf("rule %q: want \"allow\", \"deny\" or \"ask\" first, then a tool or category glob", s)
		}
	}
	if word == "" {
		return rule{}, fmt.Errorf("rule %q: no tool or category glob", s)
	}
	var err error
	if r.tool, err = compileGlob(word); err != nil {
		return rule{}, fmt.Errorf("rule %q: tool glob: %w", s, err)
	}
	if rest = strings.TrimRightFunc(rest, unicode.IsSpace); rest != "" {
		g, err := compileGlob(rest)
		if err != nil {
			return rule{}, fmt.Errorf("rule %q: argument glob: %w", s, err)
		}
		r.arg = &g
	}
	return r, nil
}
