// Package agents answers every agent agate has an adapter for in its own
// hook protocol: Parse reads an event as the agent wrote it, Render writes
// the daemon's answer as the agent reads it, Neutral leaves the agent to
// go on, and Unreachable fails closed when the daemon could not be asked.
// It is the one table of adapters (packages claude, gemini, cursor and
// codex, qwen, copilot, opencode); like them it is pure: bytes in, bytes
// out.
//
// An agent runs `agate hook AGENT` for each hook event, with one JSON
// object on stdin. Parse turns it into a hooks.Event of one of these
// kinds:
//
//   - KindCall: a tool call to decide (Claude Code PreToolUse, Gemini
//     BeforeTool, Cursor beforeShellExecution, beforeMCPExecution,
//     beforeReadFile and preToolUse, Codex PreToolUse and
//     PermissionRequest). The caller asks the daemon and Render writes
//     the daemon's answer in the agent's own format.
//   - KindTaint: a tool has brought outside content into the run (web
//     fetches and searches, MCP tools); the caller marks the run tainted.
//   - KindNewRun: the person sent a new prompt, so a new run begins.
//   - KindOutcome: what became of a call (Claude Code's PostToolUse and
//     PermissionDenied, Stop).
//   - KindOther: anything else, answered by Neutral: the agent goes on as
//     if agate had no opinion. Neutral never allows a call.
//
// When the daemon cannot answer, Unreachable fails closed: exit status 2,
// which every supported agent treats as "block this call", with the
// reason on stderr; or, when the person chose on_daemon_down = "ask", the
// call is handed to the agent's own prompt where the agent has one.
//
// docs/hook-protocols.md records the protocols and where each fact comes
// from; testdata/hooks holds payloads recorded from the real agents.
package agents

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/claude"
	"github.com/agatehq/agate/app/hooks/codex"
	"github.com/agatehq/agate/app/hooks/copilot"
	"github.com/agatehq/agate/app/hooks/cursor"
	"github.com/agatehq/agate/app/hooks/gemini"
	"github.com/agatehq/agate/app/hooks/opencode"
	"github.com/agatehq/agate/app/hooks/qwen"
	"github.com/agatehq/agate/policy/verdict"
)

// adapter is one agent's hook protocol.
type adapter struct {
	parse   func(data []byte, getenv func(string) string) (*hooks.Event, error)
	render  func(ev *hooks.Event, a hooks.Answer) hooks.Output // a is normalized
	neutral func(ev *hooks.Event) hooks.Output
	// post answers a KindOutcome event with text for the model; nil for
	// an agent that has no way to tell it after a call.
	post func(ev *hooks.Event, text string) hooks.Output
	// howTo says how a person lets through a call that asked where nobody
	// could be asked.
	howTo string
	// downAsks is whether a call may be handed to the agent's own prompt
	// when the daemon is down and on_daemon_down = "ask".
	downAsks bool
	// block blocks a call agate could not decide, msg saying why; nil is
	// hooks.Blocked (exit 2, the reason on stderr).
	block func(ev *hooks.Event, msg string) hooks.Output
}

// howToApprove is what most agents' blocked asks say.
const howToApprove = "approve it in agate, or add a rule"

// adapters are the agents of hooks.Agents, by name.
var adapters = map[string]adapter{
	hooks.ClaudeCode: {parse: claude.Parse, render: claude.Render, neutral: claude.Neutral, post: claude.PostContext, howTo: howToApprove, downAsks: true},
	hooks.Gemini:     {parse: gemini.Parse, render: gemini.Render, neutral: gemini.Neutral, post: gemini.PostContext, howTo: howToApprove, downAsks: true},
	hooks.Cursor:     {parse: cursor.Parse, render: cursor.Render, neutral: cursor.Neutral, howTo: howToApprove, downAsks: true},
	// Codex runs a call its hook does not block, and its own prompt
	// (PermissionRequest) is reached only after PreToolUse: a daemon that
	// is down blocks every Codex call, whatever on_daemon_down says.
	hooks.Codex: {parse: codex.Parse, render: codex.Render, neutral: codex.Neutral, howTo: codex.HowTo, downAsks: false},
	// Qwen Code runs a call whose hook fails in any way but exit 2.
	hooks.QwenCode: {parse: qwen.Parse, render: qwen.Render, neutral: qwen.Neutral, post: qwen.PostContext, howTo: howToApprove, downAsks: true},
	// Copilot CLI runs a call whose hook prints nothing or garbage, and
	// drops the reason of exit 2: every answer is JSON.
	hooks.Copilot: {parse: copilot.Parse, render: copilot.Render, neutral: copilot.Neutral, block: copilot.Block, howTo: howToApprove, downAsks: true},
	// agate's OpenCode plugin throws unless the hook answers allow.
	hooks.OpenCode: {parse: opencode.Parse, render: opencode.Render, neutral: opencode.Neutral, post: opencode.PostContext, block: opencode.Block, howTo: howToApprove, downAsks: false},
	// Another agent in Claude Code's protocol: Claude Code's words, never
	// a rewritten input (api.Rewritable does not name it).
	hooks.ClaudeCompatible: {parse: claude.Parse, render: func(ev *hooks.Event, a hooks.Answer) hooks.Output {
		a.UpdatedInput = nil
		return claude.Render(ev, a)
	}, neutral: claude.Neutral, post: claude.PostContext, howTo: howToApprove, downAsks: true},
}

// Parse reads one hook event of agent from data, the JSON the agent wrote
// on the hook's stdin. getenv looks up the hook's environment (the agents
// name the project folder there); nil means an empty environment.
//
// An event agate does not act on is KindOther, not an error. An error
// means the input could not be understood (bad JSON, a tool call with no
// tool): the caller must block the call, never let it through.
func Parse(agent string, data []byte, getenv func(string) string) (*hooks.Event, error) {
	ad, ok := adapters[agent]
	if !ok {
		return nil, fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(hooks.Agents(), ", "))
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	ev, err := ad.parse(data, getenv)
	if err != nil {
		return nil, fmt.Errorf("read the %s hook input: %w", agent, err)
	}
	ev.Agent = agent
	return ev, nil
}

// Render writes the answer to a KindCall event in its agent's format. Any
// other event gets Neutral. An ask is a deny where nobody would be asked:
// the agent cannot ask about the event (Cursor's beforeReadFile) or runs
// unattended (Claude Code's bypassPermissions and dontAsk modes).
func Render(ev *hooks.Event, a hooks.Answer) hooks.Output {
	if ev.Kind != hooks.KindCall {
		return Neutral(ev)
	}
	ad, ok := adapters[ev.Agent]
	if !ok {
		return hooks.Blocked("agate: no adapter for agent " + ev.Agent)
	}
	return ad.render(ev, normalized(ev, a, ad.howTo))
}

// PostContext answers a KindOutcome event with text for the model (what
// became of the call, that it should know), where the agent takes such
// text after a call; elsewhere it is Neutral.
func PostContext(ev *hooks.Event, text string) hooks.Output {
	ad, ok := adapters[ev.Agent]
	if !ok || ad.post == nil || ev.Kind != hooks.KindOutcome || text == "" {
		return Neutral(ev)
	}
	return ad.post(ev, text)
}

// normalized returns a with an ask turned into a deny where nobody would
// be asked: the agent runs unattended, or cannot ask about this event.
// Only an allow keeps an UpdatedInput.
func normalized(ev *hooks.Event, a hooks.Answer, howTo string) hooks.Answer {
	if a.Decision != verdict.Allow && a.Decision != verdict.Ask {
		a.Decision = verdict.Deny // a value no verdict has refuses
	}
	if a.Decision == verdict.Ask {
		switch {
		case !ev.Interactive:
			// Unattended, an ask is a deny at once.
			a.Decision = verdict.Deny
			a.Reason = cmp.Or(a.Reason, "needs approval") + "; " + ev.Agent +
				" runs in a mode where nobody is asked, so agate blocked it (approve it in agate, or add a rule)"
		case !ev.AgentPrompt && ev.NoPrompt != "":
			a.Decision = verdict.Deny
			a.Reason = cmp.Or(a.Reason, "needs approval") + "; " + ev.NoPrompt +
				", so agate blocked it (" + howTo + ")"
		case !ev.AgentPrompt:
			a.Decision = verdict.Deny
			a.Reason = cmp.Or(a.Reason, "needs approval") + "; " + ev.Agent + " cannot ask about " + ev.Name +
				", so agate blocked it (approve it in agate, or add a rule)"
		}
	}
	if a.Decision != verdict.Allow {
		a.UpdatedInput, a.Context = nil, ""
	}
	return a
}

// Neutral is the answer that leaves the agent to go on as if agate were
// not there: exit 0 and no decision. It allows nothing; a tool call still
// goes through the agent's own permission flow.
func Neutral(ev *hooks.Event) hooks.Output {
	if ad, ok := adapters[ev.Agent]; ok {
		return ad.neutral(ev)
	}
	return hooks.Output{}
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
func Unreachable(ev *hooks.Event, reason string, ask bool) hooks.Output {
	msg := "agate: " + reason
	switch ev.Kind {
	case hooks.KindCall:
		if ask && ev.CanAsk() && adapters[ev.Agent].downAsks {
			out := Render(ev, hooks.Answer{Decision: verdict.Ask, Reason: reason, By: "daemon_down"})
			out.Stderr = msg + "\n"
			return out
		}
		return blocked(ev, msg)
	case hooks.KindTaint:
		return blocked(ev, msg)
	case hooks.KindNewRun:
		out := Neutral(ev)
		out.Stderr = msg + "\n"
		return out
	}
	return Neutral(ev)
}

// blocked blocks ev in its agent's way (adapter.block), else with exit 2.
func blocked(ev *hooks.Event, msg string) hooks.Output {
	if ad, ok := adapters[ev.Agent]; ok && ad.block != nil {
		return ad.block(ev, msg)
	}
	return hooks.Blocked(msg)
}
