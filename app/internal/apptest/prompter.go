package apptest

import (
	"context"
	"sync"
	"testing"

	"github.com/agatehq/agate/app/api"
)

// Prompter stands for the person at agate's prompt: it answers every
// approval with Answer (or Err), or, with Hold set, waits for the
// approval's context to end, as a popup nobody clicks does. It records
// what it was asked. Its zero value answers with a deny.
type Prompter struct {
	mu     sync.Mutex
	Answer api.Answer
	Err    error
	Hold   bool
	asked  []api.Approval
}

// Ask answers a, and records it.
func (p *Prompter) Ask(ctx context.Context, a api.Approval) (api.Answer, error) {
	p.mu.Lock()
	p.asked = append(p.asked, a)
	ans, err, hold := p.Answer, p.Err, p.Hold
	p.mu.Unlock()
	if hold {
		<-ctx.Done()
		return api.Answer{}, ctx.Err()
	}
	return ans, err
}

// SetAnswer changes the answer while a daemon may be asking.
func (p *Prompter) SetAnswer(a api.Answer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Answer = a
}

// Asked returns the approvals the prompter was asked about, in order.
func (p *Prompter) Asked() []api.Approval {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]api.Approval(nil), p.asked...)
}

// Call is a decide request for a Claude Code Bash or other tool with one
// command argument, in session s1 of /home/dev/project, with a person at
// the agent's own prompt.
func Call(tool, command string) *api.DecideRequest {
	return &api.DecideRequest{Tool: tool, Args: map[string]any{"command": command}, Agent: "claude-code",
		Session: "s1", Cwd: "/home/dev/project", Interactive: true, AgentPrompt: true}
}

// Serve runs serve (a daemon's, from daemon.Start, which also gave err)
// until the test ends, then stops it and waits for it to return. A
// non-nil err fails the test at once.
func Serve(t testing.TB, serve func(ctx context.Context) error, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		serve(ctx)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}
