// Package verdict holds the words of a decision that travel on the wire:
// allow, ask or deny, and the layer of the policy that decided. It is
// separate from package policy so that the hook binary, which only
// carries decisions, does not link the policy engine.
package verdict

import "fmt"

// Verdict is what a decision says to do with a call.
type Verdict uint8

// The verdicts. The zero value is Deny, so a Decision nobody filled in
// refuses.
const (
	Deny Verdict = iota
	Ask
	Allow
)

// String returns "deny", "ask" or "allow".
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	}
	return "deny"
}

// Parse returns the verdict named s.
func Parse(s string) (Verdict, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return Deny, fmt.Errorf("unknown decision %q (want allow, deny or ask)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *Verdict) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// Layer names the part of the policy that decided a call.
type Layer string

// The layers, in the order Decide consults them.
const (
	LayerHardDeny    Layer = "hard_deny"
	LayerManaged     Layer = "managed" // the managed policy's deny and ask rules
	LayerGuardrail   Layer = "guardrail"
	LayerTools       Layer = "tools"          // the category is switched off in [tools]
	LayerMode        Layer = "mode"           // yolo, plan, manual
	LayerRule        Layer = "rule"           // [auto] rules, first match
	LayerProtected   Layer = "protected_path" // a protected write or a secret read
	LayerAcceptEdits Layer = "accept_edits"
	LayerAutoApprove Layer = "auto_approve" // [auto] auto_approve categories
	LayerGrant       Layer = "grant"        // the agent's grants, session and run grants
	LayerTrusted     Layer = "trusted"      // trusted_dirs and trusted_domains
	LayerRisk        Layer = "risk"         // read-only tools, the shell free pass, risk levels
	LayerDefault     Layer = "default"      // nothing pre-approved the call
	LayerParse       Layer = "parse"        // the call could not be analysed
	LayerPin         Layer = "pin"          // an MCP tool's definition changed since it was pinned
	LayerToken       Layer = "token"        // a scoped token's call outside its project
	LayerMCPProxy    Layer = "mcp_proxy"    // a hook's call of a server agate's MCP proxy gates: the proxy decides
)
