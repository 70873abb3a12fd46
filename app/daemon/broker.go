package daemon

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

// Prompter asks a person about a call. The desktop app implements it with
// a popup; the daemon runs and is tested with none. Ask must honour ctx:
// it ends when the approval expires or is answered elsewhere (a terminal,
// the API), and the daemon then ignores what Ask returns. An error is a
// deny, recorded as such.
type Prompter interface {
	Ask(ctx context.Context, a api.Approval) (api.Answer, error)
}

// errOverflow means too many approvals are waiting.
var errOverflow = errors.New("too many calls are waiting for a person")

// broker holds the approvals waiting for a person: bounded, fair between
// agents, each with its own expiry.
type broker struct {
	mu      sync.Mutex // guards the fields below
	pending map[string]*pendingApproval
	byAgent map[string][]*pendingApproval // oldest first
	nextID  uint64

	max int
	hub *hub
}

type pendingApproval struct {
	api.Approval
	result chan outcome // receives exactly one outcome
	timer  *time.Timer
	ctx    context.Context // ends when the approval is settled
	cancel context.CancelFunc
}

// outcome is how an approval was settled.
type outcome struct {
	api.Answer
	by api.Answerer
}

func newBroker(max int, h *hub) *broker {
	return &broker{pending: map[string]*pendingApproval{}, byAgent: map[string][]*pendingApproval{}, max: max, hub: h}
}

// setMax changes the bound (a config reload); waiting approvals stay.
func (b *broker) setMax(n int) {
	b.mu.Lock()
	b.max = n
	b.mu.Unlock()
}

// submit registers an approval that expires after timeout. When the
// broker is full, the agent with the most waiting approvals gives up its
// newest one, unless that is the submitting agent itself, whose call is
// then refused: a flood from one agent never starves another's.
func (b *broker) submit(a api.Approval, timeout time.Duration) (*pendingApproval, error) {
	b.mu.Lock()
	var evicted *pendingApproval
	if (strings.HasPrefix(a.Agent, tokenPrefix) || strings.HasPrefix(a.Agent, containerPrefix)) && len(b.byAgent[a.Agent]) >= tokenMaxPending {
		b.mu.Unlock()
		return nil, errOverflow
	}
	if len(b.pending) >= b.max {
		top, topN := "", 0
		for agent, list := range b.byAgent {
			if len(list) > topN || (len(list) == topN && agent < top) {
				top, topN = agent, len(list)
			}
		}
		if top == a.Agent || len(b.byAgent[a.Agent])+1 >= topN {
			b.mu.Unlock()
			return nil, errOverflow
		}
		list := b.byAgent[top]
		evicted = list[len(list)-1]
		b.removeLocked(evicted)
	}
	b.nextID++
	a.ID = strconv.FormatUint(b.nextID, 10)
	a.Expires = a.Created.Add(timeout)
	ctx, cancel := context.WithDeadline(context.Background(), a.Expires)
	p := &pendingApproval{Approval: a, result: make(chan outcome, 1), ctx: ctx, cancel: cancel}
	b.pending[a.ID] = p
	b.byAgent[a.Agent] = append(b.byAgent[a.Agent], p)
	p.timer = time.AfterFunc(timeout, func() {
		b.settle(p.ID, outcome{Answer: api.Answer{Decision: policy.Deny, Reason: "nobody answered in time"}, by: api.ByTimeout})
	})
	n := len(b.pending)
	b.mu.Unlock()

	if evicted != nil {
		evicted.finish(outcome{Answer: api.Answer{Decision: policy.Deny, Reason: "too many calls were waiting; a newer call from another agent took its place"}, by: api.ByOverflow})
	}
	b.hub.publish(api.Event{Type: "approval.requested", Time: a.Created, Approval: &p.Approval, Pending: n})
	return p, nil
}

// removeLocked takes p out of the maps.
func (b *broker) removeLocked(p *pendingApproval) {
	delete(b.pending, p.ID)
	list := b.byAgent[p.Agent]
	for i, q := range list {
		if q == p {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(b.byAgent, p.Agent)
	} else {
		b.byAgent[p.Agent] = list
	}
}

// finish delivers the outcome and releases the approval's resources.
func (p *pendingApproval) finish(o outcome) {
	if p.timer != nil {
		p.timer.Stop()
	}
	p.result <- o
	p.cancel()
}

// settle answers a waiting approval; false if it is not waiting (unknown,
// answered, expired).
func (b *broker) settle(id string, o outcome) bool {
	b.mu.Lock()
	p, ok := b.pending[id]
	if !ok {
		b.mu.Unlock()
		return false
	}
	b.removeLocked(p)
	n := len(b.pending)
	b.mu.Unlock()
	p.finish(o)
	typ := "approval.denied"
	switch {
	case o.by == api.ByTimeout:
		typ = "approval.expired"
	case o.Decision == policy.Allow:
		typ = "approval.granted"
	}
	b.hub.publish(api.Event{Type: typ, Time: time.Now(), Approval: &p.Approval, Pending: n})
	return true
}

// get returns a waiting approval.
func (b *broker) get(id string) (api.Approval, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.pending[id]
	if !ok {
		return api.Approval{}, false
	}
	return p.Approval, true
}

// list returns the waiting approvals in fair order: agents take turns
// (the one waiting longest first), each agent's calls oldest first, so a
// flood from one agent does not bury another's.
func (b *broker) list() []api.Approval {
	b.mu.Lock()
	defer b.mu.Unlock()
	agents := make([]string, 0, len(b.byAgent))
	for a := range b.byAgent {
		agents = append(agents, a)
	}
	sort.Slice(agents, func(i, j int) bool {
		ai, aj := b.byAgent[agents[i]][0], b.byAgent[agents[j]][0]
		if !ai.Created.Equal(aj.Created) {
			return ai.Created.Before(aj.Created)
		}
		return agents[i] < agents[j]
	})
	out := make([]api.Approval, 0, len(b.pending))
	for round := 0; len(out) < len(b.pending); round++ {
		for _, a := range agents {
			if list := b.byAgent[a]; round < len(list) {
				out = append(out, list[round].Approval)
			}
		}
	}
	return out
}

func (b *broker) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// closeAll denies every waiting approval (the daemon is stopping).
func (b *broker) closeAll() {
	b.mu.Lock()
	ids := make([]string, 0, len(b.pending))
	for id := range b.pending {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	for _, id := range ids {
		b.settle(id, outcome{Answer: api.Answer{Decision: policy.Deny, Reason: "agate stopped"}, by: api.ByShutdown})
	}
}
