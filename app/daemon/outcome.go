package daemon

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
)

// When nobody agate can reach is there to ask, an ask is handed to the
// agent's own prompt (the decision is "ask, by agent"), and the person
// answers there, out of agate's sight. The agents that say what became of
// a call (Claude Code: PostToolUse and PostToolUseFailure when it ran,
// PermissionDenied when it was denied, Stop, the next prompt and the end
// of the session when it never ran) report it on POST /v1/outcome, and
// the daemon writes the person's answer into the audit log, tied to the
// decision that asked: an approval.agent_allowed or approval.agent_denied
// event with the same agent, session, run, tool and subject, the agent's
// tool_use_id, and the decision's seq (Of).

// agentOutcomes are the agents whose hooks report outcomes; an ask handed
// to any other agent's prompt is not waited for.
var agentOutcomes = map[string]bool{"claude-code": true}

// outcomeTTL is how long a handed-over ask waits for its outcome; then it
// is forgotten (the session went away without a word).
const outcomeTTL = 24 * time.Hour

// maxOutcomes bounds the asks waiting for an outcome; past it the oldest
// is forgotten.
const maxOutcomes = 4096

// outcomeBook holds the asks handed to agents' prompts, per session, in
// the order they were asked. Its zero value is ready to use.
type outcomeBook struct {
	mu      sync.Mutex
	waiting []*awaitedOutcome // oldest first
}

type awaitedOutcome struct {
	rec     audit.Record // the decision that handed the ask over, as logged
	expires time.Time
}

// expectOutcome notes a decision that handed its ask to the agent's
// prompt, once it is in the audit log (rec carries its seq).
func (d *Daemon) expectOutcome(r *api.DecideRequest, rec *audit.Record, resp *api.DecideResponse) {
	if resp.By != api.ByAgent || !agentOutcomes[r.Agent] || r.Session == "" {
		return
	}
	now := time.Now()
	b := &d.outcomes
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dropExpired(now)
	if len(b.waiting) >= maxOutcomes {
		b.waiting = b.waiting[1:]
	}
	b.waiting = append(b.waiting, &awaitedOutcome{rec: *rec, expires: now.Add(outcomeTTL)})
}

func (b *outcomeBook) dropExpired(now time.Time) {
	i := 0
	for i < len(b.waiting) && now.After(b.waiting[i].expires) {
		i++
	}
	b.waiting = b.waiting[i:]
}

// take removes and returns the waiting asks an outcome settles: for
// OutcomeEnded every one of the session; otherwise the one with the
// call's tool_use_id, or, when the agent does not name the call, the
// oldest of the session with the same tool and subject.
func (b *outcomeBook) take(o *api.OutcomeRequest, subject string, now time.Time) []audit.Record {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dropExpired(now)
	var out []audit.Record
	keep := b.waiting[:0]
	for _, w := range b.waiting {
		r := &w.rec
		match := r.Agent == o.Agent && r.Session == o.Session
		if match && o.Outcome != api.OutcomeEnded {
			switch {
			case len(out) > 0:
				match = false // one call per outcome
			case o.ToolUseID != "" && r.ToolUseID != "":
				match = r.ToolUseID == o.ToolUseID
			default:
				match = r.Tool == o.Tool && r.Subject == subject
			}
		}
		if match {
			out = append(out, w.rec)
		} else {
			keep = append(keep, w)
		}
	}
	for i := len(keep); i < len(b.waiting); i++ {
		b.waiting[i] = nil
	}
	b.waiting = keep
	return out
}

// Outcome records what became of calls whose asks were handed to the
// agent's prompt: for each call it settles, an approval.agent_allowed
// (it ran) or approval.agent_denied event in the audit log, on disk
// before it returns. An outcome for a call agate did not hand over (most
// PostToolUse events) settles nothing.
func (d *Daemon) Outcome(ctx context.Context, o *api.OutcomeRequest) (*api.OutcomeResult, error) {
	switch o.Outcome {
	case api.OutcomeRan, api.OutcomeFailed, api.OutcomeDenied, api.OutcomeEnded:
	default:
		return nil, fmt.Errorf("unknown outcome %q (want %s, %s, %s or %s)", o.Outcome, api.OutcomeRan, api.OutcomeFailed, api.OutcomeDenied, api.OutcomeEnded)
	}
	if o.Agent == "" || o.Session == "" {
		return nil, fmt.Errorf("an outcome names its agent and session")
	}
	var note, how string
	if o.Outcome == api.OutcomeRan || o.Outcome == api.OutcomeFailed {
		d.sessions.fixMade(o.Agent, o.Session, time.Now()) // what it wrote is the session's as it stands now
		key := o.ToolUseID
		if key == "" {
			// An agent that gives calls no id reports the command it ran:
			// for a confined call, the line the hook rewrote it to.
			if cmd, ok := confinedCommand(commandOf(o.Args)); ok {
				key = confinedKey("", cmd)
			}
		}
		how = d.sessions.confinedOutcome(o.Agent, o.Session, key, o.Outcome == api.OutcomeFailed, time.Now())
		if how != "" && o.Outcome == api.OutcomeFailed {
			note = "agate ran this command " + how + ". If it failed for want of the network, a secret or a write outside the project, " +
				"running it again asks the person, who can let it run unconfined."
		}
	}
	subject := ""
	if o.ToolUseID == "" && o.Outcome != api.OutcomeEnded {
		subject = truncate(callSubject(o.Tool, o.Args, d.knownSecrets()), audit.MaxSubject)
	}
	settled := d.outcomes.take(o, subject, time.Now())
	for _, dec := range settled {
		ev := dec
		ev.Seq, ev.Time, ev.Prev, ev.Of = 0, time.Time{}, "", dec.Seq
		ev.By, ev.Via = api.ByPerson, o.Agent
		switch o.Outcome {
		case api.OutcomeRan, api.OutcomeFailed:
			ev.Event, ev.Decision = "approval.agent_allowed", "allow"
			ev.Note = "the call ran (" + o.Event + ")"
		case api.OutcomeDenied:
			ev.Event, ev.Decision = "approval.agent_denied", "deny"
			ev.Note = "the agent denied it (" + o.Event + ")"
			if o.Reason != "" {
				ev.Note += ": " + o.Reason
			}
		default:
			ev.Event, ev.Decision = "approval.agent_denied", "deny"
			ev.Note = "it did not run before " + o.Event + ": the person declined or interrupted it"
		}
		if err := d.audit.Append(context.WithoutCancel(ctx), &ev); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		d.hub.publish(api.Event{Type: ev.Event, Time: time.Now(), Agent: ev.Agent, Tool: ev.Tool, Subject: ev.Subject, Pending: d.broker.count()})
	}
	return &api.OutcomeResult{Settled: len(settled), Note: note, Confined: how}, nil
}

func (d *Daemon) handleOutcome(r *http.Request, req *api.OutcomeRequest) (any, error) {
	if t := tokenOf(r.Context()); t != nil {
		req.Agent, req.Args = tokenAgent(t), hostArgs(t, req.Args)
	}
	return d.Outcome(r.Context(), req)
}
