package daemon

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/files/leaks"
	"github.com/agatehq/agate/keystore"
	"github.com/agatehq/agate/policy"
)

// A prompt the person sent an agent is looked at for secrets pasted into
// it: a credential in a chat is compromised (the agent's provider has it,
// and its logs). What is found is recorded in the state folder's leak
// record and the audit log by kind, name and fingerprint, never by value;
// the prompt itself is not kept. The scan runs after the hook has its
// answer, one prompt at a time, so it never slows or blocks the prompt.

// pastedSecret is one secret found in a prompt.
type pastedSecret struct {
	Fingerprint string // keystore.Fingerprint of the value
	Kind        string // "GitHub token", or leaks.KindKnown
	Name        string // the known secret's label, when agate keeps the value
}

// valueMatcher finds the known secret values in a text: *keystore.Index.
type valueMatcher interface {
	Matches(s string) []keystore.Match
}

// scanPrompt returns the secrets text carries, each once: values agate
// keeps (known, matched exactly), and credential-shaped strings
// (policy.FindCredentials). A credential that is a known value is named.
func scanPrompt(text string, known valueMatcher) []pastedSecret {
	var out []pastedSecret
	seen := map[string]bool{}
	add := func(p pastedSecret) {
		if !seen[p.Fingerprint] {
			seen[p.Fingerprint] = true
			out = append(out, p)
		}
	}
	var matches []keystore.Match
	if known != nil {
		matches = known.Matches(text)
	}
	for _, c := range policy.FindCredentials(text) {
		span := text[c.Start:c.End]
		value := credentialValue(c.Kind, span)
		start := c.Start + strings.Index(span, value)
		if i := covering(matches, start, start+len(value)); i >= 0 {
			m := matches[i]
			add(pastedSecret{Fingerprint: m.Fingerprint, Kind: c.Kind, Name: m.Label})
			continue
		}
		add(pastedSecret{Fingerprint: keystore.Fingerprint(value), Kind: c.Kind})
	}
	for _, m := range matches {
		if seen[m.Fingerprint] {
			continue
		}
		kind, ok := policy.FindCredential(text[m.Start:m.End])
		if !ok {
			kind = leaks.KindKnown
		}
		add(pastedSecret{Fingerprint: m.Fingerprint, Kind: kind, Name: m.Label})
	}
	return out
}

// covering returns the index of the match that covers [start, end), or
// -1: a credential is a known secret's when the known value is all of it.
func covering(ms []keystore.Match, start, end int) int {
	for i, m := range ms {
		if m.Start <= start && end <= m.End {
			return i
		}
	}
	return -1
}

// credentialValue is the credential in a span FindCredentials found: less
// the name it is assigned to ("API_KEY=..."), and less the punctuation
// that ends a sentence after it ("use ghp_...."), so that its fingerprint
// is the value's.
func credentialValue(kind, span string) string {
	if name, ok := strings.CutPrefix(kind, "credential assigned to "); ok && len(span) > len(name) &&
		strings.HasPrefix(span, name) && (span[len(name)] == '=' || span[len(name)] == ':') {
		span = strings.TrimLeft(span[len(name)+1:], "\"'=:")
	}
	return strings.TrimRight(span, ".,")
}

// maxPastedWaiting bounds the prompts waiting for their scan in the
// background (each holds its text): past it, the request that brought one
// waits for its own scan, so a flood of large prompts is held back rather
// than held in memory.
const maxPastedWaiting = 16

// pastedQueue runs prompt scans one at a time.
type pastedQueue struct {
	mu      sync.Mutex     // held by the scan in progress
	bg      sync.WaitGroup // the scans in the background
	waiting atomic.Int32   // scans started or waiting in the background

	state  sync.Mutex // guards closed
	closed bool       // the daemon is closing: no more scans
}

// notePrompt scans a new run's prompt, in the background after the hook
// has its answer; inline when too many wait already.
func (d *Daemon) notePrompt(t *api.TaintRequest) {
	if t.Prompt == "" {
		return
	}
	agent, session, run, prompt, at := t.Agent, t.Session, t.Run, t.Prompt, time.Now()
	q := &d.pasted
	scan := func() {
		q.mu.Lock() // one scan at a time: a flood of prompts queues here, not on every core
		defer q.mu.Unlock()
		d.scanPasted(context.Background(), agent, session, run, prompt, at)
	}
	q.state.Lock()
	if q.closed {
		q.state.Unlock()
		return
	}
	if q.waiting.Add(1) > maxPastedWaiting {
		q.waiting.Add(-1)
		q.state.Unlock()
		scan()
		return
	}
	q.bg.Add(1)
	q.state.Unlock()
	go func() {
		defer q.bg.Done()
		defer q.waiting.Add(-1)
		scan()
	}()
}

// close waits for the scans in the background, and takes no more.
func (q *pastedQueue) close() {
	q.state.Lock()
	q.closed = true
	q.state.Unlock()
	q.bg.Wait()
}

// scanPasted records the secrets a prompt carries: in the leak record,
// the audit log (secret.leaked) and the event stream.
func (d *Daemon) scanPasted(ctx context.Context, agent, session, run, prompt string, at time.Time) {
	m, _ := d.knownSecrets().(valueMatcher)
	found := scanPrompt(prompt, m)
	if len(found) == 0 {
		return
	}
	seen := make([]api.Leak, 0, len(found))
	for _, f := range found {
		seen = append(seen, leaks.Seen(f.Fingerprint, f.Kind, f.Name, agent, session, at))
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := leaks.Open(d.paths.State).Add(ctx, seen); err != nil {
		d.logger.Printf("record %d secrets pasted into %s's chat: %v", len(seen), agent, err)
	}
	for _, l := range seen {
		rec := &audit.Record{Time: at, Event: "secret.leaked", Agent: agent, Session: session, Run: run,
			Risks: []string{"secret"}, Subject: l.Label(), Reason: l.Where + ": rotate it"}
		if err := d.audit.Append(ctx, rec); err != nil {
			d.logger.Printf("audit: %s pasted into %s's chat: %v", l.Label(), agent, err)
		}
		d.hub.publish(api.Event{Type: "secret.leaked", Time: at, Agent: agent, Subject: l.Label(), Pending: d.broker.count()})
	}
}

// Leaks returns the secrets seen pasted into a chat and not rotated since.
func (d *Daemon) Leaks() ([]api.Leak, error) {
	return leaks.Open(d.paths.State).List()
}

// Rotated clears the leaks which names (a fingerprint, a label, a key
// store name): the person rotated the secret. Each is audited
// (secret.rotated).
func (d *Daemon) Rotated(ctx context.Context, which string) ([]api.Leak, error) {
	cleared, err := leaks.Open(d.paths.State).Clear(ctx, which)
	if err != nil {
		return nil, fmt.Errorf("clear %q: %w", which, err)
	}
	now := time.Now()
	for _, l := range cleared {
		rec := &audit.Record{Time: now, Event: "secret.rotated", Subject: l.Label(), Reason: "rotated, by the person"}
		if err := d.audit.Append(context.WithoutCancel(ctx), rec); err != nil {
			d.logger.Printf("audit: %s rotated: %v", l.Label(), err)
		}
	}
	if len(cleared) > 0 {
		d.hub.publish(api.Event{Type: "secret.rotated", Time: now, Subject: cleared[0].Label(), Pending: d.broker.count()})
	}
	return cleared, nil
}
