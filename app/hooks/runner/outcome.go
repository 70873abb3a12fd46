package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/hooks"
)

// sendOutcome tells the daemon what the event says became of a call or a
// turn, when it says (ev.Outcome). It never blocks anything: the call has
// run or not already; a failure is only noted on stderr (not when the
// daemon is simply not running, or is older and has no /v1/outcome:
// every PostToolUse would say so).
//
// It returns what the daemon has for the model about the call (a confined
// call that failed: what the sandbox cut), "" for nothing. An agent that
// could not be told before the run that the call would run confined
// (every one but Claude Code, whose additionalContext said so) is told
// after it.
func (r *hookRun) sendOutcome(ctx context.Context) string {
	ev := r.ev
	if ev.Outcome == "" || ev.Session == "" {
		return ""
	}
	req := &api.OutcomeRequest{
		Agent: ev.Agent, Session: ev.Session, ToolUseID: ev.ToolUseID, Tool: ev.Tool, Args: ev.Args,
		Outcome: ev.Outcome, Event: ev.Name, Reason: ev.OutcomeReason,
	}
	res, err := r.client.Outcome(ctx, req)
	if err != nil && !errors.Is(err, api.ErrDaemonDown) && !errors.Is(err, api.ErrNotFound) {
		fmt.Fprintf(r.stderr, "agate: could not record what became of the call (%s): %v\n", ev.Name, err)
	}
	if err != nil || res == nil {
		return ""
	}
	if res.Note == "" && res.Confined != "" && ev.Agent != hooks.ClaudeCode {
		return "agate ran this command " + res.Confined + "; a read of a credential there fails with \"permission denied\"."
	}
	return res.Note
}
