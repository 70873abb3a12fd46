package hooks

import (
	"encoding/json"
	"strings"
)

// Decision is agate's answer for a call, as the daemon gives it.
type Decision string

// The decisions. Anything else is read as Deny.
const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
	Ask   Decision = "ask" // hand the call to the agent's own prompt
)

// Answer is the daemon's decision on a call, in the terms Render needs.
type Answer struct {
	Decision Decision
	Layer    string // the part of the policy that decided
	Rule     string // the rule that matched, if one did
	Reason   string // why, in a few words, without the "agate: " prefix
	By       string // who settled it: "policy", "person", "timeout", ...

	// UpdatedInput replaces an allowed call's tool_input (Claude Code
	// only, see SandboxBash); nil leaves the call as it is.
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

// denyAdvice tells the model what a deny means, so a refused call does
// not end the run: it should go another way, or ask.
const denyAdvice = "The user did not authorize this tool call. Do not retry it as it is: try another approach, or check in with the user."

// normalized returns a with an unknown decision read as Deny, and an ask
// turned into a deny where nobody would be asked: the agent runs
// unattended, or cannot ask about this event.
func (a Answer) normalized(ev *Event) Answer {
	switch a.Decision {
	case Allow:
	case Ask:
		switch {
		case !ev.Interactive:
			// Unattended, an ask is a deny at once.
			a.Decision = Deny
			a.Reason = first(a.Reason, "needs approval") + "; " + ev.Agent +
				" runs in a mode where nobody is asked, so agate blocked it (approve it in agate, or add a rule)"
		case !ev.AgentPrompt && ev.NoPrompt != "":
			a.Decision = Deny
			a.Reason = first(a.Reason, "needs approval") + "; " + ev.NoPrompt +
				", so agate blocked it " + howToApprove(ev)
		case !ev.AgentPrompt:
			a.Decision = Deny
			a.Reason = first(a.Reason, "needs approval") + "; " + ev.Agent + " cannot ask about " + ev.Name +
				", so agate blocked it (approve it in agate, or add a rule)"
		}
	default:
		a.Decision = Deny
	}
	if a.Decision != Allow {
		a.UpdatedInput = nil
	}
	return a
}

// howToApprove says, in a blocked ask's reason, how the person can let
// such a call through.
func howToApprove(ev *Event) string {
	if ev.Agent == Codex {
		return "(" + codexHowTo + ")"
	}
	return "(approve it in agate, or add a rule)"
}

// detail is the reason and where it came from: "reason [layer: L; rule: R]".
func (a Answer) detail() string {
	r := strings.TrimSpace(a.Reason)
	if r == "" {
		switch a.Decision {
		case Allow:
			r = "allowed by policy"
		case Ask:
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

// userText is the reason as shown to the person.
func (a Answer) userText() string { return "agate: " + a.detail() }

// modelText is the reason as told to the model: for a deny, with what to
// do next.
func (a Answer) modelText() string {
	t := a.userText()
	if a.Decision != Deny {
		return t
	}
	if !strings.HasSuffix(t, ".") {
		t += "."
	}
	return t + " " + denyAdvice
}

// Render writes the answer to a KindCall event in its agent's format. Any
// other event gets Neutral. An unknown decision is a deny; an ask is a
// deny too where the agent cannot ask about the event (Cursor's
// beforeReadFile) or runs unattended (Claude Code's bypassPermissions and
// dontAsk modes).
func Render(ev *Event, a Answer) Output {
	if ev.Kind != KindCall {
		return Neutral(ev)
	}
	a = a.normalized(ev)
	switch ev.Agent {
	case ClaudeCode:
		return renderClaude(ev, a)
	case Gemini:
		return renderGemini(ev, a)
	case Cursor:
		return renderCursor(ev, a)
	case Codex:
		return renderCodex(ev, a)
	}
	return Blocked("agate: no adapter for agent " + ev.Agent)
}

// Neutral is the answer that leaves the agent to go on as if agate were
// not there: exit 0 and no decision. It allows nothing; a tool call still
// goes through the agent's own permission flow.
func Neutral(ev *Event) Output {
	switch ev.Agent {
	case Gemini:
		return Output{Stdout: []byte("{}\n")}
	case Cursor:
		if ev.Name == "beforeSubmitPrompt" {
			return Output{Stdout: []byte(`{"continue":true}` + "\n")}
		}
		return Output{Stdout: []byte("{}\n")}
	}
	return Output{} // Claude Code: no output is no decision
}

// Blocked is the answer when agate cannot tell what to do: exit 2 with
// msg on stderr, which blocks a tool call in every supported agent.
func Blocked(msg string) Output {
	return Output{Stderr: strings.TrimRight(msg, "\n") + "\n", Code: ExitBlock}
}

// Unreachable is the answer when the daemon could not be asked; reason
// says why, without the "agate: " prefix. It never allows:
//
//   - a call is blocked (exit 2), or with ask set (on_daemon_down = "ask")
//     handed to the agent's own prompt, where the agent has one and runs
//     with a person to ask;
//   - a taint that could not be recorded is blocked too (Gemini CLI then
//     withholds the tool's result from the model; Claude Code shows the
//     model the reason);
//   - a new run that could not be started is answered neutrally: the old
//     run goes on, with its taint, which is the stricter of the two;
//   - any other event is answered neutrally.
func Unreachable(ev *Event, reason string, ask bool) Output {
	msg := "agate: " + reason
	switch ev.Kind {
	case KindCall:
		// Codex runs a call its hook does not block, and its own prompt
		// (PermissionRequest) is reached only after PreToolUse: a daemon
		// that is down blocks every Codex call, whatever on_daemon_down
		// says.
		if ask && ev.CanAsk() && ev.Agent != Codex {
			out := Render(ev, Answer{Decision: Ask, Reason: reason, By: "daemon_down"})
			out.Stderr = msg + "\n"
			return out
		}
		return Blocked(msg)
	case KindTaint:
		return Blocked(msg)
	case KindNewRun:
		out := Neutral(ev)
		out.Stderr = msg + "\n"
		return out
	}
	return Neutral(ev)
}

// jsonOutput is an exit-0 answer with v as one line of JSON.
func jsonOutput(v any) Output {
	b, err := encodeJSON(v)
	if err != nil {
		return Blocked("agate: encode the answer: " + err.Error())
	}
	return Output{Stdout: append(b, '\n')}
}
