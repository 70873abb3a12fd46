package ui

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"

	"github.com/agatehq/agate/app/api"
)

// expiryGrace is how long past an approval's expiry Ask waits for the
// daemon to settle it: the daemon's own timer denies it as "expired" first,
// and Ask's deadline is only the backstop for a context without one.
const expiryGrace = 2 * time.Second

// errClosed is Ask's answer once the app is closing: the daemon denies.
var errClosed = errors.New("the agate tray app closed")

// Prompter asks the person in the approval popup: it implements
// daemon.Prompter. Every call to Ask is an item in one queue, each with its
// own context and deadline; the popup shows the queue in the daemon's fair
// order, one call in detail or several as a list to answer together.
type Prompter struct {
	popup  *popup
	notify func(title, body string) error   // a desktop notification per new approval
	order  func() []api.Approval            // the daemon's fair order; nil: arrival order
	logf   func(format string, args ...any) // where failures that change nothing go

	uiMu sync.Mutex // held by widget work handed to Fyne (see do)
	// ended is set when Fyne's loop stops (see endUI): widget work handed
	// over after that is dropped.
	ended atomic.Bool

	mu     sync.Mutex // guards the fields below
	items  map[string]*pending
	seq    uint64
	closed bool
	done   chan struct{} // closed by Close
}

// pending is one call waiting in the popup.
type pending struct {
	a   api.Approval
	seq uint64          // arrival order
	ans chan api.Answer // receives the person's answer, once
	ctx context.Context // ends with the approval (expiry, answered elsewhere)
}

// PrompterOptions tune a Prompter.
type PrompterOptions struct {
	// Notify shows a desktop notification; nil shows none. Its errors are
	// logged and otherwise ignored.
	Notify func(title, body string) error
	// Order returns the waiting approvals in the order to show them (the
	// daemon's Pending, fair between agents); nil keeps arrival order.
	Order func() []api.Approval
	// Logf logs; nil logs to the standard logger.
	Logf func(format string, args ...any)
}

// NewPrompter makes the approval popup in a and the queue behind it. The
// window is created hidden; it shows when a call waits.
func NewPrompter(a fyne.App, o PrompterOptions) *Prompter {
	p := &Prompter{notify: o.Notify, order: o.Order, logf: o.Logf, items: map[string]*pending{}, done: make(chan struct{})}
	if p.logf == nil {
		p.logf = log.Printf
	}
	p.popup = newPopup(a, p)
	return p
}

// Ask shows the call in the popup and waits for the person's answer. It
// returns early, with an error, when ctx ends (the approval expired, or was
// answered in a terminal), when the approval's own expiry has passed, or
// when the app closes; the call's row leaves the popup then.
func (p *Prompter) Ask(ctx context.Context, a api.Approval) (api.Answer, error) {
	ictx, cancel := ctx, context.CancelFunc(func() {})
	if !a.Expires.IsZero() {
		ictx, cancel = context.WithDeadline(ctx, a.Expires.Add(expiryGrace))
	}
	defer cancel()
	it := &pending{a: a, ans: make(chan api.Answer, 1), ctx: ictx}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return api.Answer{}, errClosed
	}
	if _, dup := p.items[a.ID]; dup {
		p.mu.Unlock()
		return api.Answer{}, fmt.Errorf("approval %s is already in the popup", a.ID)
	}
	p.seq++
	it.seq = p.seq
	p.items[a.ID] = it
	p.mu.Unlock()

	p.changed()
	if p.notify != nil {
		go p.announce(a)
	}
	select {
	case ans := <-it.ans:
		return ans, nil
	case <-ictx.Done():
		p.drop(a.ID)
		return api.Answer{}, fmt.Errorf("approval %s: %w", a.ID, ictx.Err())
	case <-p.done:
		p.drop(a.ID)
		return api.Answer{}, errClosed
	}
}

// announce sends the desktop notification for a new approval.
func (p *Prompter) announce(a api.Approval) {
	title := fmt.Sprintf("agate: %s asks to use %s", orUnknown(a.Agent), a.Tool)
	if err := p.notify(title, ellipsis(a.Subject, 200)); err != nil {
		p.logf("notification: %v", err)
	}
}

// drop takes a call out of the queue without answering it.
func (p *Prompter) drop(id string) {
	p.mu.Lock()
	_, ok := p.items[id]
	delete(p.items, id)
	p.mu.Unlock()
	if ok {
		p.changed()
	}
}

// answer delivers the person's answer to a waiting call; false when it is
// no longer waiting. It runs on Fyne's goroutine (the popup's buttons) and
// refreshes the popup there and then.
func (p *Prompter) answer(id string, ans api.Answer) bool {
	p.mu.Lock()
	it, ok := p.items[id]
	delete(p.items, id)
	p.mu.Unlock()
	if !ok {
		return false
	}
	if ans.Via == "" {
		ans.Via = "tray"
	}
	it.ans <- ans // buffered, and sent once: the item is gone from the map
	p.popup.refresh()
	return true
}

// waiting returns the calls waiting, in the order to show them: the
// daemon's fair order when it knows them, then arrival order.
func (p *Prompter) waiting() []api.Approval {
	var rank map[string]int
	if p.order != nil {
		list := p.order()
		rank = make(map[string]int, len(list))
		for i, a := range list {
			rank[a.ID] = i
		}
	}
	p.mu.Lock()
	items := make([]*pending, 0, len(p.items))
	for _, it := range p.items {
		items = append(items, it)
	}
	p.mu.Unlock()
	sort.Slice(items, func(i, j int) bool {
		ri, iok := rank[items[i].a.ID]
		rj, jok := rank[items[j].a.ID]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return items[i].seq < items[j].seq
	})
	out := make([]api.Approval, len(items))
	for i, it := range items {
		out[i] = it.a
	}
	return out
}

// Len is the number of calls waiting in the popup.
func (p *Prompter) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.items)
}

// changed refreshes the popup on Fyne's goroutine, from another one.
func (p *Prompter) changed() { p.do(p.popup.refresh) }

// do runs widget work on Fyne's goroutine, from another one. The lock costs
// nothing there; under Fyne's test driver, which runs the work on the
// calling goroutine, it keeps the work serial, and tests take it to look at
// the widgets. Work already on Fyne's goroutine calls the popup directly:
// do inside do would deadlock under the test driver. Once the loop has
// ended the work is dropped (see endUI).
func (p *Prompter) do(fn func()) { doOnUI(&p.ended, &p.uiMu, fn) }

// doOnUI hands fn to Fyne's goroutine, holding mu while it runs, unless
// ended is set. Fyne runs what fyne.Do is given after its loop stopped on
// the caller's own goroutine, off the main thread, and logs "Error in Fyne
// call thread" for each widget call it makes then.
func doOnUI(ended *atomic.Bool, mu *sync.Mutex, fn func()) {
	fyne.Do(func() {
		if ended.Load() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fn()
	})
}

// endUI says Fyne's loop is stopping or has stopped: from now on the
// widgets are left alone (the windows go with the app). Run calls it on
// the way out, before Close ends the calls waiting, whose rows would
// otherwise leave the popup from the daemon's goroutines.
func (p *Prompter) endUI() { p.ended.Store(true) }

// Show brings the popup forward (the tray's "Pending approvals"); with
// nothing waiting it says so.
func (p *Prompter) Show() { p.do(p.popup.bringForward) }

// Close ends every Ask with an error (the daemon denies those calls) and
// refuses new ones. The window stays until the app quits.
func (p *Prompter) Close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.done)
	}
	p.mu.Unlock()
	p.do(p.popup.stopTick)
}

func orUnknown(s string) string {
	if s == "" {
		return "an agent"
	}
	return s
}

// ellipsis shortens s to n runes for one-line places (a list row, a
// notification); the popup's detail always shows the whole value.
func ellipsis(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
