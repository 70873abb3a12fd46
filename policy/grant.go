package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Grant is a standing approval. A person's answer to a popup records the
// narrow form: what they looked at.
//
//	bash(ssh mini10v) network=mini10v        ssh to mini10v, and what runs there
//	bash(rm) delete=/home/me/proj/build      rm, deleting under build/
//	bash(gh release view) network=api.github.com
//	bash(mytool) unknown                     a program agate does not know, named
//	write_file write=/home/me/proj/docs      writes under docs/
//	web_fetch network=docs.python.org
//
// The tool, then in parentheses the command's prefix (its program,
// subcommands and the operands that matter, as shell words), then each
// effect it may have with where: a folder for read, write and delete
// (anything under it), a host for network and upload ("*.example.com"
// for its subdomains too), nothing for project, exec, system and
// unknown. A simple command is covered when its prefix starts with the
// grant's and each of its effects is one the grant has, in its scope.
//
// Pepe's broad forms still parse and work as saved; they are never what
// a popup records by default:
//
//	"bash:none"             bash calls that carry no risk
//	"write_file:writes"     write_file calls that only write ("writes_file" is accepted)
//	"bash:deletes+network"  bash calls whose risks are all among these
//	"read_file"             read_file, whatever its parameters
//	"*"                     every tool, whatever its parameters
//
// The tool part is a glob matched, like a rule's, against the tool's name,
// its canonical name and its category. No grant covers a credential or a
// secret read (risk secret): those ask every time. No broad grant covers
// a program, option or tool agate does not know (risk unknown): only a
// grant that names the program does.
type Grant struct {
	Tool  string // tool glob
	Risks Risks  // the risks approved (the broad form); ignored when Any
	Any   bool   // any parameters: the coarse form without a risk part

	// Prefix is a shell command's prefix (the narrow form for shell
	// tools): program, subcommands, key operands.
	Prefix []string
	// Effects are what the narrow form approves, each in its scope.
	Effects []GrantEffect
	narrow  bool
}

// GrantEffect is one effect a narrow grant approves, and where.
type GrantEffect struct {
	Kind EffectKind
	// Under is a folder (read, write, delete: that folder and below) or a
	// host (network, upload; "*.example.com" for subdomains too); ""
	// means anywhere.
	Under string
}

// Narrow reports whether g is the narrow form a person's answer records.
func (g Grant) Narrow() bool { return g.narrow }

// Broad reports whether g is one of Pepe's broad forms (a risk set, any
// parameters, "*"): the Grants tab and `agate doctor` flag them.
func (g Grant) Broad() bool { return !g.narrow }

// NewNarrowGrant returns the narrow grant for tool, prefix and effects.
func NewNarrowGrant(tool string, prefix []string, effects []GrantEffect) Grant {
	return Grant{Tool: tool, Prefix: slices.Clone(prefix), Effects: slices.Clone(effects), narrow: true}
}

// ParseGrant parses one grant, narrow or broad.
func ParseGrant(s string) (Grant, error) {
	s = strings.TrimSpace(s)
	end := strings.IndexAny(s, "( \t:")
	if end >= 0 && s[end] != ':' {
		return parseNarrow(s)
	}
	tool, risks, hasRisks := strings.Cut(s, ":")
	tool = strings.TrimSpace(tool)
	if tool == "" {
		return Grant{}, fmt.Errorf("grant %q: empty tool", s)
	}
	if strings.ContainsAny(tool, " \t") {
		return Grant{}, fmt.Errorf("grant %q: tool name has a space", s)
	}
	if _, err := compileGlob(tool); err != nil {
		return Grant{}, fmt.Errorf("grant %q: %w", s, err)
	}
	if !hasRisks {
		return Grant{Tool: tool, Any: true}, nil
	}
	set, err := ParseRisks(risks)
	if err != nil {
		return Grant{}, fmt.Errorf("grant %q: %w", s, err)
	}
	if set.Has(Secret) {
		return Grant{}, fmt.Errorf("grant %q: the risk secret cannot be granted", s)
	}
	if set.Has(Unknown) {
		return Grant{}, fmt.Errorf("grant %q: the risk unknown cannot be granted broadly (a grant names the program instead)", s)
	}
	return Grant{Tool: tool, Risks: set}, nil
}

// parseNarrow reads "TOOL[(PREFIX)] [KIND[=SCOPE,...]]...".
func parseNarrow(s string) (Grant, error) {
	g := Grant{narrow: true}
	rest := s
	i := strings.IndexAny(rest, "( \t")
	g.Tool, rest = rest[:i], rest[i:]
	if g.Tool == "" {
		return Grant{}, fmt.Errorf("grant %q: empty tool", s)
	}
	if _, err := compileGlob(g.Tool); err != nil {
		return Grant{}, fmt.Errorf("grant %q: %w", s, err)
	}
	if strings.HasPrefix(rest, "(") {
		close := strings.LastIndexByte(rest, ')')
		if close < 0 {
			return Grant{}, fmt.Errorf("grant %q: the command prefix has no closing )", s)
		}
		words, err := splitWords(rest[1:close])
		if err != nil {
			return Grant{}, fmt.Errorf("grant %q: %w", s, err)
		}
		if len(words) == 0 {
			return Grant{}, fmt.Errorf("grant %q: an empty command prefix", s)
		}
		g.Prefix, rest = words, rest[close+1:]
	}
	for _, tok := range strings.Fields(rest) {
		name, scopes, hasScope := strings.Cut(tok, "=")
		k, ok := parseEffectKind(name)
		if !ok || k == EffNone || k == EffRead {
			return Grant{}, fmt.Errorf("grant %q: %q is not an effect a grant approves (write, delete, network, upload, project, exec, system, elevated, unknown)", s, name)
		}
		if k == EffSecret || k == EffPersist {
			return Grant{}, fmt.Errorf("grant %q: the effect %s cannot be granted: it asks every time", s, name)
		}
		if !hasScope {
			g.Effects = append(g.Effects, GrantEffect{Kind: k})
			continue
		}
		for _, sc := range strings.Split(scopes, ",") {
			if sc == "" {
				return Grant{}, fmt.Errorf("grant %q: an empty scope for %s", s, name)
			}
			if k == EffWrite || k == EffDelete {
				if !strings.HasPrefix(sc, "/") {
					return Grant{}, fmt.Errorf("grant %q: %s scope %q is not an absolute folder", s, name, sc)
				}
				if sc == "*" {
					sc = ""
				}
			}
			g.Effects = append(g.Effects, GrantEffect{Kind: k, Under: sc})
		}
	}
	return g, nil
}

// grantWord is w as a word of a grant's command prefix, as splitWords
// reads it back: bare, or "quoted" as Go quotes it. It is the grant's
// own syntax, not a shell's: the prefix is never run.
func grantWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`|&;<>()*?[]{}~#!") {
		return w
	}
	return strconv.Quote(w)
}

// splitWords splits a prefix written as shell words: bare, or "quoted"
// as Go quotes them.
func splitWords(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("a bad quoted word in %q", s)
			}
			w, _ := strconv.Unquote(q)
			out, s = append(out, w), s[len(q):]
			continue
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		out, s = append(out, s[:i]), s[i:]
	}
	return out, nil
}

// String returns the grant in the form ParseGrant reads.
func (g Grant) String() string {
	if !g.narrow {
		if g.Any {
			return g.Tool
		}
		return g.Tool + ":" + g.Risks.String()
	}
	var b strings.Builder
	b.WriteString(g.Tool)
	if g.Prefix != nil {
		b.WriteByte('(')
		for i, w := range g.Prefix {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(grantWord(w))
		}
		b.WriteByte(')')
	}
	// One token per kind, its scopes joined.
	for i := 0; i < len(g.Effects); {
		k := g.Effects[i].Kind
		var scopes []string
		j := i
		for ; j < len(g.Effects) && g.Effects[j].Kind == k; j++ {
			if g.Effects[j].Under != "" {
				scopes = append(scopes, g.Effects[j].Under)
			}
		}
		b.WriteByte(' ')
		b.WriteString(k.String())
		if len(scopes) > 0 && len(scopes) == j-i {
			b.WriteByte('=')
			b.WriteString(strings.Join(scopes, ","))
		}
		i = j
	}
	return b.String()
}

// IsZero reports whether g is the zero Grant.
func (g Grant) IsZero() bool { return g.Tool == "" }

// Widen returns g extended to also cover o's risks: approving rm for a tool
// granted "bash:none" makes it "bash:deletes". Both must name the same tool.
// Narrow grants are not widened: each records what a person looked at.
func (g Grant) Widen(o Grant) Grant {
	if g.narrow || o.narrow {
		return g
	}
	if g.Any || o.Any {
		return Grant{Tool: g.Tool, Any: true}
	}
	return Grant{Tool: g.Tool, Risks: g.Risks.Union(o.Risks).Without(ungrantable)}
}

// Equal reports whether two grants approve the same.
func (g Grant) Equal(o Grant) bool { return g.String() == o.String() }

// covers reports whether a broad grant approves a call of tool t
// carrying risks.
func (g Grant) covers(t *toolInfo, risks Risks) bool {
	if g.narrow || risks&ungrantable != 0 {
		return false
	}
	if !t.matches(g.Tool) {
		return false
	}
	return g.Any || risks.SubsetOf(g.Risks)
}

// Covers reports whether the grant approves a call of the named tool (in
// catalog c) carrying risks. Narrow grants cover commands, not risk sets:
// see Decide.
func (c *Catalog) Covers(g Grant, tool string, risks Risks) bool {
	t := c.Lookup(tool)
	return g.covers(&t, risks)
}

// coversEffects reports whether the narrow grant approves a simple
// command with prefix and effects: the prefix starts with the grant's,
// and each effect that is not free is one the grant has, in its scope.
func (g *Grant) coversEffects(prefix []string, effects []Effect, free func(Effect) bool) bool {
	if !g.narrow {
		return false
	}
	if g.Prefix != nil {
		if len(prefix) < len(g.Prefix) || !slices.Equal(prefix[:len(g.Prefix)], g.Prefix) {
			return false
		}
	}
	for _, e := range effects {
		if free(e) {
			continue
		}
		if e.Kind == EffSecret || e.Kind == EffPersist {
			return false
		}
		if !g.hasEffect(e) {
			return false
		}
	}
	return true
}

// hasEffect reports whether the grant approves e where it happens.
func (g *Grant) hasEffect(e Effect) bool {
	for _, ge := range g.Effects {
		if ge.Kind != e.Kind {
			continue
		}
		switch e.Kind {
		case EffWrite, EffDelete, EffRead:
			if ge.Under == "" || e.Path != "" && within(e.Path, ge.Under) {
				return true
			}
		case EffNetwork, EffUpload:
			if ge.Under == "" || e.Host != "" && hostUnder(e.Host, ge.Under) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// hostUnder reports whether host is scope, or under it when scope is
// "*.domain".
func hostUnder(host, scope string) bool {
	if d, ok := strings.CutPrefix(scope, "*."); ok {
		return host == d || strings.HasSuffix(host, "."+d)
	}
	return host == scope
}

// Describe says in plain words what the grant covers; project is the
// project's root, for scopes inside it.
func (g Grant) Describe(project string) string {
	if !g.narrow {
		switch {
		case g.Tool == "*":
			return "every tool, whatever it does (broad)"
		case g.Any:
			return g.Tool + ", whatever its parameters (broad)"
		case g.Risks.Empty():
			return g.Tool + " calls that carry no risk (broad)"
		}
		return g.Tool + " calls whose risks are among " + strings.ReplaceAll(g.Risks.String(), "+", ", ") + " (broad)"
	}
	var b strings.Builder
	if g.Prefix != nil {
		b.WriteString("`" + strings.Join(g.Prefix, " ") + "`")
		b.WriteString(" with any further words")
	} else {
		b.WriteString(g.Tool)
	}
	var parts []string
	for _, e := range g.Effects {
		parts = append(parts, describeGrantEffect(e, project))
	}
	if len(parts) == 0 {
		b.WriteString(", when it only reads")
	} else {
		b.WriteString(", when it ")
		b.WriteString(strings.Join(parts, " and "))
	}
	return b.String()
}

func describeGrantEffect(e GrantEffect, project string) string {
	where := func(verb string) string {
		switch {
		case e.Under == "":
			return verb + " anywhere"
		case project != "" && e.Under == project:
			return verb + " in this project"
		case project != "" && within(e.Under, project):
			rel := strings.TrimPrefix(strings.TrimPrefix(e.Under, project), "/")
			return verb + " under " + rel + "/ in this project"
		}
		return verb + " under " + e.Under
	}
	switch e.Kind {
	case EffWrite:
		return where("writes")
	case EffDelete:
		return where("deletes")
	case EffNetwork:
		if e.Under == "" {
			return "reaches any host"
		}
		return "reaches " + e.Under
	case EffUpload:
		if e.Under == "" {
			return "sends data to any host"
		}
		return "sends data to " + e.Under
	case EffProject:
		return "runs the project's own code"
	case EffExec:
		return "runs code agate cannot read"
	case EffSystem:
		return "changes the system"
	case EffElevated:
		return "runs with elevated privileges"
	case EffUnknown:
		return "does what agate does not know"
	}
	return e.Kind.String()
}

// Wider returns grants that cover more than g, narrowest first, for a
// person to choose from: the prefix shortened word by word to its
// program, then the scopes widened (a folder of the project to the
// project, a host to its domain), then anywhere. A broad grant has none.
func (g Grant) Wider(project string) []Grant {
	if !g.narrow {
		return nil
	}
	var out []Grant
	seen := map[string]bool{g.String(): true}
	add := func(w Grant) {
		if s := w.String(); !seen[s] {
			seen[s] = true
			out = append(out, w)
		}
	}
	for n := len(g.Prefix) - 1; n >= 1; n-- {
		add(NewNarrowGrant(g.Tool, g.Prefix[:n], g.Effects))
	}
	short := g.Prefix
	if len(short) > 1 {
		short = short[:1]
	}
	// Scopes widened one step: in the project, a domain.
	step := make([]GrantEffect, 0, len(g.Effects))
	for _, e := range g.Effects {
		switch e.Kind {
		case EffWrite, EffDelete:
			if project != "" && project != "/" && e.Under != "" && within(e.Under, project) {
				e.Under = project
			}
		case EffNetwork, EffUpload:
			if d := parentDomain(e.Under); d != "" {
				e.Under = "*." + d
			}
		}
		step = append(step, e)
	}
	add(NewNarrowGrant(g.Tool, short, dedupeEffects(step)))
	// Anywhere.
	any := make([]GrantEffect, 0, len(g.Effects))
	for _, e := range g.Effects {
		e.Under = ""
		any = append(any, e)
	}
	add(NewNarrowGrant(g.Tool, short, dedupeEffects(any)))
	return out
}

func dedupeEffects(es []GrantEffect) []GrantEffect {
	var out []GrantEffect
	for _, e := range es {
		dup := false
		for _, o := range out {
			dup = dup || o == e
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out
}

// parentDomain is the domain a host belongs to (api.github.com ->
// github.com), or "" for a bare name or an IP address.
func parentDomain(host string) string {
	h := strings.TrimPrefix(host, "*.")
	parts := strings.Split(h, ".")
	if len(parts) < 2 || allDigits(strings.Join(parts, "")) {
		return ""
	}
	if strings.HasPrefix(host, "*.") {
		if len(parts) < 3 {
			return ""
		}
		return strings.Join(parts[1:], ".")
	}
	if len(parts) == 2 {
		return h
	}
	return strings.Join(parts[len(parts)-2:], ".")
}
