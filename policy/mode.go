package policy

import "fmt"

// Mode is the top-level policy a call runs under.
type Mode uint8

// The modes. Their numeric order is their strictness: a per-project overlay
// may move the mode up this list, never down.
const (
	ModeYolo        Mode = iota // every call allows (hard-deny and guardrails still hold)
	ModeAcceptEdits             // as ask, and fs/code edits allow
	ModeAsk                     // the layered policy; anything not pre-approved asks
	ModeManual                  // every call that acts asks; only read-only calls and allow rules pass
	ModePlan                    // every call that acts is denied
)

// String returns the mode's canonical config name.
func (m Mode) String() string {
	switch m {
	case ModeYolo:
		return "yolo"
	case ModeAcceptEdits:
		return "accept_edits"
	case ModeAsk:
		return "ask"
	case ModeManual:
		return "manual"
	case ModePlan:
		return "plan"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode returns the mode named s. eVi's names (ask, accept_edits, plan,
// yolo) and Anymo's (auto, manual, plan) are accepted; auto is ask.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "yolo":
		return ModeYolo, nil
	case "accept_edits":
		return ModeAcceptEdits, nil
	case "ask", "auto":
		return ModeAsk, nil
	case "manual":
		return ModeManual, nil
	case "plan":
		return ModePlan, nil
	}
	return 0, fmt.Errorf("unknown mode %q (want ask, accept_edits, plan, yolo, auto or manual)", s)
}

// Stricter returns the stricter of two modes.
func Stricter(a, b Mode) Mode {
	if b > a {
		return b
	}
	return a
}
