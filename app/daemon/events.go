package daemon

import (
	"sync"

	"github.com/agatehq/agate/app/api"
)

// hub pushes events to every open event stream. A subscriber that does
// not keep up is dropped rather than allowed to slow the daemon; it can
// reconnect and list what is pending.
type hub struct {
	mu   sync.Mutex // guards subs
	subs map[*subscriber]struct{}
}

type subscriber struct {
	ch       chan api.Event
	approver string // "terminal" when this stream is a person who can answer
}

// subscriberBuffer is how many events a slow subscriber may lag behind.
const subscriberBuffer = 256

func newHub() *hub { return &hub{subs: map[*subscriber]struct{}{}} }

func (h *hub) subscribe(approver string) *subscriber {
	s := &subscriber{ch: make(chan api.Event, subscriberBuffer), approver: approver}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.ch)
	}
	h.mu.Unlock()
}

func (h *hub) publish(ev api.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		select {
		case s.ch <- ev:
		default:
			delete(h.subs, s)
			close(s.ch)
		}
	}
}

// approvers counts the open streams of people who can answer.
func (h *hub) approvers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for s := range h.subs {
		if s.approver != "" {
			n++
		}
	}
	return n
}
