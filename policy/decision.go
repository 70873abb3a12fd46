package policy

import (
	"encoding/json"
	"fmt"

	"github.com/agatehq/agate/policy/verdict"
)

// Verdict is what a decision says to do with a call: allow, ask or deny.
// The zero value is Deny, so a Decision nobody filled in refuses.
type Verdict = verdict.Verdict

// The verdicts.
const (
	Deny  = verdict.Deny
	Ask   = verdict.Ask
	Allow = verdict.Allow
)

// ParseVerdict returns the verdict named s.
func ParseVerdict(s string) (Verdict, error) { return verdict.Parse(s) }

// Layer names the part of the policy that decided a call.
type Layer = verdict.Layer

// The layers, in the order Decide consults them.
const (
	LayerHardDeny    = verdict.LayerHardDeny
	LayerManaged     = verdict.LayerManaged
	LayerToken       = verdict.LayerToken
	LayerGuardrail   = verdict.LayerGuardrail
	LayerTools       = verdict.LayerTools
	LayerMode        = verdict.LayerMode
	LayerRule        = verdict.LayerRule
	LayerProtected   = verdict.LayerProtected
	LayerAcceptEdits = verdict.LayerAcceptEdits
	LayerAutoApprove = verdict.LayerAutoApprove
	LayerGrant       = verdict.LayerGrant
	LayerTrusted     = verdict.LayerTrusted
	LayerRisk        = verdict.LayerRisk
	LayerDefault     = verdict.LayerDefault
	LayerParse       = verdict.LayerParse
	LayerPin         = verdict.LayerPin
	LayerMCPProxy    = verdict.LayerMCPProxy
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
	// Grant is Pepe's broad grant for this call (its tool and risk set):
	// offered as the widest answer, never what a popup records by
	// default. Empty when the call asks for nothing.
	Grant Grant
	// Proposals are the narrow grants a person's "session" or "always"
	// answer records by default: what they are looking at (for a shell
	// call, one per simple command that asks). Empty when the call asks
	// for nothing, or for what no grant may cover (a secret).
	Proposals []Grant
	// Effects are what the call does.
	Effects []Effect
	// Commands are a shell call's simple commands, each with what it does
	// and how it was decided.
	Commands []Command
	// Sandbox is set on an allow that holds only with the command run
	// confined (Request.Sandbox).
	Sandbox bool
	// Confine is how an allowed shell call may run confined to what was
	// judged of it (see Confinement); the zero value when it may not.
	Confine Confinement
	// Keep are what the caller keeps a copy of before it answers allow:
	// what the call deletes or overwrites that git cannot give back, and
	// that Request.Keep agreed to keep. An allow with Keep holds only if
	// the copies are kept; on an ask, they are what to keep once a person
	// allows it (what could not be kept is why it asks). Empty when
	// nothing is to be kept.
	Keep []KeepTarget
	// Approved, for a shell call that asks, is how it may run confined
	// once a person allows it (see Confinement.Net); the zero value when
	// it may not.
	Approved Confinement
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
