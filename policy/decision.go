package policy

import (
	"encoding/json"
	"fmt"
)

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

// ParseVerdict returns the verdict named s.
func ParseVerdict(s string) (Verdict, error) {
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
	p, err := ParseVerdict(string(b))
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
)

// RuleRef identifies the configured entry that decided a call.
type RuleRef struct {
	Text   string `json:"text"`   // the entry as written, e.g. "deny shell rm*"
	Source string `json:"source"` // where it was written, e.g. "/home/me/.config/agate/config.toml:14"
}

// String returns the rule and its source.
func (r *RuleRef) String() string {
	if r == nil {
		return ""
	}
	if r.Source == "" {
		return fmt.Sprintf("%q", r.Text)
	}
	return fmt.Sprintf("%q (%s)", r.Text, r.Source)
}

// Decision is the answer for one call, with everything needed to explain it.
type Decision struct {
	Verdict  Verdict  // allow, ask or deny
	Layer    Layer    // the layer that decided
	Rule     *RuleRef // the configured entry that decided, if any
	Tool     string   // the tool as the request named it
	Category string   // the tool's category ("shell", "fs", ...; "unknown" for a tool agate does not know)
	Risks    Risks    // the risks seen in the call
	Reason   string   // one sentence a person can read
	Tainted  bool     // the run had taken in outside content
	// Unattended is set when the call would have asked but nobody could be
	// asked, so it was denied; Layer and Rule still say why it would have
	// asked.
	Unattended bool
	// Grant is the grant that a person's "session" or "always" answer to this
	// call would record; empty when the call asks for nothing.
	Grant Grant
}

// decisionJSON is the wire form of a Decision, the one `agate check --json`
// prints.
type decisionJSON struct {
	Decision   string   `json:"decision"`
	Layer      Layer    `json:"layer"`
	Rule       string   `json:"rule"`
	Source     string   `json:"source,omitempty"`
	Tool       string   `json:"tool,omitempty"`
	Category   string   `json:"category"`
	Risks      []string `json:"risks"`
	Reason     string   `json:"reason"`
	Tainted    bool     `json:"tainted,omitempty"`
	Unattended bool     `json:"unattended,omitempty"`
	Grant      string   `json:"grant,omitempty"`
}

// MarshalJSON encodes the decision in agate's wire form.
func (d Decision) MarshalJSON() ([]byte, error) {
	j := decisionJSON{
		Decision:   d.Verdict.String(),
		Layer:      d.Layer,
		Tool:       d.Tool,
		Category:   d.Category,
		Risks:      d.Risks.List(),
		Reason:     d.Reason,
		Tainted:    d.Tainted,
		Unattended: d.Unattended,
	}
	if d.Rule != nil {
		j.Rule, j.Source = d.Rule.Text, d.Rule.Source
	}
	if d.Grant.Tool != "" {
		j.Grant = d.Grant.String()
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes the wire form written by MarshalJSON.
func (d *Decision) UnmarshalJSON(b []byte) error {
	var j decisionJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	v, err := ParseVerdict(j.Decision)
	if err != nil {
		return err
	}
	var risks Risks
	for _, name := range j.Risks {
		r, err := ParseRisk(name)
		if err != nil {
			return err
		}
		risks = risks.With(r)
	}
	*d = Decision{Verdict: v, Layer: j.Layer, Tool: j.Tool, Category: j.Category, Risks: risks,
		Reason: j.Reason, Tainted: j.Tainted, Unattended: j.Unattended}
	if j.Rule != "" {
		d.Rule = &RuleRef{Text: j.Rule, Source: j.Source}
	}
	if j.Grant != "" {
		g, err := ParseGrant(j.Grant)
		if err != nil {
			return err
		}
		d.Grant = g
	}
	return nil
}
