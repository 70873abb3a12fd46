package policy

import (
	"fmt"
	"strings"
)

// Risk is one kind of effect a call can have beyond reading. Risks are what
// grants remember: a grant covers a call when it covers every risk the call
// carries.
type Risk uint16

// The risks agate recognises. The set is closed: a grant or a catalog entry
// naming any other risk is a config error.
const (
	Deletes    Risk = 1 << iota // removes files or destroys work (rm, git clean)
	Writes                      // creates or changes files
	Network                     // reaches the network (curl, git push, npm install)
	Elevated                    // runs with more privilege (sudo, doas)
	InlineCode                  // runs code given inline or from a non-literal name
	Secret                      // carries something shaped like a credential, or reads a secret
	System                      // changes the system: services, processes, mounts, users
	Unknown                     // does what agate does not know: a program, option or tool it has no entry for
)

// allRisks lists the risks in the order they print.
var allRisks = []Risk{Deletes, Writes, Network, Elevated, InlineCode, Secret, System, Unknown}

// ungrantable are the risks no risk-set grant covers: a credential asks
// every time, and a broad grant never covers a program the person has
// never seen.
const ungrantable = Risks(Secret) | Risks(Unknown)

// String returns the risk's canonical name.
func (r Risk) String() string {
	switch r {
	case Deletes:
		return "deletes"
	case Writes:
		return "writes"
	case Network:
		return "network"
	case Elevated:
		return "elevated"
	case InlineCode:
		return "inline_code"
	case Secret:
		return "secret"
	case System:
		return "system"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("risk(%d)", uint16(r))
}

// riskNames maps every accepted spelling to its risk. The Pepe spellings
// (writes_file, sudo, code) are accepted so grants copied from Pepe work.
var riskNames = map[string]Risk{
	"deletes":     Deletes,
	"delete":      Deletes,
	"writes":      Writes,
	"write":       Writes,
	"writes_file": Writes,
	"network":     Network,
	"net":         Network,
	"elevated":    Elevated,
	"sudo":        Elevated,
	"inline_code": InlineCode,
	"code":        InlineCode,
	"secret":      Secret,
	"system":      System,
	"unknown":     Unknown,
}

// ParseRisk returns the risk named s.
func ParseRisk(s string) (Risk, error) {
	if r, ok := riskNames[strings.ToLower(strings.TrimSpace(s))]; ok {
		return r, nil
	}
	return 0, fmt.Errorf("unknown risk %q (want one of deletes, writes, network, elevated, inline_code, secret, system, unknown)", s)
}

// Risks is a set of risks. The zero value is the empty set, which grants
// spell "none".
type Risks uint16

// Has reports whether r is in the set.
func (s Risks) Has(r Risk) bool { return s&Risks(r) != 0 }

// With returns the set with r added.
func (s Risks) With(r Risk) Risks { return s | Risks(r) }

// Union returns the risks in either set.
func (s Risks) Union(o Risks) Risks { return s | o }

// Without returns the set with every risk of o removed.
func (s Risks) Without(o Risks) Risks { return s &^ o }

// SubsetOf reports whether every risk in s is also in o.
func (s Risks) SubsetOf(o Risks) bool { return s&^o == 0 }

// Empty reports whether the set has no risk.
func (s Risks) Empty() bool { return s == 0 }

// List returns the risks' names in a fixed order.
func (s Risks) List() []string {
	out := make([]string, 0, len(allRisks))
	for _, r := range allRisks {
		if s.Has(r) {
			out = append(out, r.String())
		}
	}
	return out
}

// String returns the set in grant form: "none", or names joined by "+".
func (s Risks) String() string {
	if s == 0 {
		return "none"
	}
	return strings.Join(s.List(), "+")
}

// ParseRisks parses a grant's risk part: "none", or names joined by "+".
func ParseRisks(s string) (Risks, error) {
	s = strings.TrimSpace(s)
	if s == "none" || s == "" {
		return 0, nil
	}
	var set Risks
	for _, part := range strings.Split(s, "+") {
		r, err := ParseRisk(part)
		if err != nil {
			return 0, err
		}
		set = set.With(r)
	}
	return set, nil
}
