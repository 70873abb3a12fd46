package policy

import (
	"fmt"
	"strings"
)

// Grant is a standing approval for a tool, in Pepe's form: it remembers the
// risks the person was looking at when they said yes.
//
//	"bash:none"             bash calls that carry no risk
//	"write_file:writes"     write_file calls that only write ("writes_file" is accepted)
//	"bash:deletes+network"  bash calls whose risks are all among these
//	"read_file"             read_file, whatever its parameters
//	"*"                     every tool, whatever its parameters
//
// The tool part is a glob matched, like a rule's, against the tool's name,
// its canonical name and its category. A grant never covers the risk
// Secret: a call that carries a credential asks every time.
type Grant struct {
	Tool  string // tool glob
	Risks Risks  // the risks approved; ignored when Any
	Any   bool   // any parameters: the coarse form without a risk part
}

// ParseGrant parses one grant.
func ParseGrant(s string) (Grant, error) {
	s = strings.TrimSpace(s)
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
	return Grant{Tool: tool, Risks: set}, nil
}

// String returns the grant in the form ParseGrant reads.
func (g Grant) String() string {
	if g.Any {
		return g.Tool
	}
	return g.Tool + ":" + g.Risks.String()
}

// IsZero reports whether g is the zero Grant.
func (g Grant) IsZero() bool { return g == Grant{} }

// Widen returns g extended to also cover o's risks: approving rm for a tool
// granted "bash:none" makes it "bash:deletes". Both must name the same tool.
func (g Grant) Widen(o Grant) Grant {
	if g.Any || o.Any {
		return Grant{Tool: g.Tool, Any: true}
	}
	return Grant{Tool: g.Tool, Risks: g.Risks.Union(o.Risks).Without(Risks(Secret))}
}

// covers reports whether the grant approves a call of tool t carrying risks.
func (g Grant) covers(t *toolInfo, risks Risks) bool {
	if risks.Has(Secret) {
		return false
	}
	if !t.matches(g.Tool) {
		return false
	}
	return g.Any || risks.SubsetOf(g.Risks)
}

// Covers reports whether the grant approves a call of the named tool (in
// catalog c) carrying risks.
func (c *Catalog) Covers(g Grant, tool string, risks Risks) bool {
	t := c.Lookup(tool)
	return g.covers(&t, risks)
}
