package hooks

import (
	"encoding/json"
	"strings"

	"github.com/agatehq/agate/policy/verdict"
)

// Answer is the daemon's decision on a call, in the terms an adapter
// renders. The zero Decision is verdict.Deny: an answer nobody filled in
// refuses.
type Answer struct {
	Decision verdict.Verdict
	Layer    string // the part of the policy that decided
	Rule     string // the rule that matched, if one did
	Reason   string // why, in a few words, without the "agate: " prefix
	By       string // who settled it: "policy", "person", "timeout", ...

	// Context is told to the model with an allow, where the agent takes
	// it (Claude Code's additionalContext): how the call runs confined.
	Context string

	// UpdatedInput replaces an allowed call's tool_input (Claude Code
	// only: claude.Shell makes it); nil leaves the call as it is.
	UpdatedInput json.RawMessage
}

// Output is what the hook process prints and how it exits.
type Output struct {
	Stdout []byte // exactly what goes on stdout: the agent parses it
	Stderr string // a message for stderr, "" for none
	Code   int    // the exit status: 0, or 2 to block
}

// ExitBlock is the exit status every supported agent reads as "block this
// call", with stderr as the reason.
const ExitBlock = 2

// DenyAdvice tells the model what a deny means, so a refused call does
// not end the run: it should go another way, or ask.
const DenyAdvice = "The user did not authorize this tool call. Do not retry it as it is: try another approach, or check in with the user."

// Detail is the reason and where it came from: "reason [layer: L; rule: R]".
func (a Answer) Detail() string {
	r := strings.TrimSpace(a.Reason)
	if r == "" {
		switch a.Decision {
		case verdict.Allow:
			r = "allowed by policy"
		case verdict.Ask:
			r = "this call needs your approval"
		default:
			r = "blocked by policy"
		}
	}
	var tags []string
	if a.Layer != "" {
		tags = append(tags, "layer: "+a.Layer)
	}
	if a.Rule != "" {
		tags = append(tags, "rule: "+a.Rule)
	}
	if len(tags) > 0 {
		r += " [" + strings.Join(tags, "; ") + "]"
	}
	return r
}

// UserText is the reason as shown to the person.
func (a Answer) UserText() string { return "agate: " + a.Detail() }

// ModelText is the reason as told to the model: for a deny, with what to
// do next.
func (a Answer) ModelText() string {
	t := a.UserText()
	if a.Decision != verdict.Deny {
		return t
	}
	if !strings.HasSuffix(t, ".") {
		t += "."
	}
	return t + " " + DenyAdvice
}

// Blocked is the answer when agate cannot tell what to do: exit 2 with
// msg on stderr, which blocks a tool call in every supported agent.
func Blocked(msg string) Output {
	return Output{Stderr: strings.TrimRight(msg, "\n") + "\n", Code: ExitBlock}
}
