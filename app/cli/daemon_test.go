package cli

import (
	"context"
	"io"
	"log"
	"sync"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon"
)

// startDaemon runs a daemon on paths and returns it with a client.
func startDaemon(t testing.TB, p api.Paths) (*daemon.Daemon, *api.Client) {
	t.Helper()
	d, err := daemon.New(p, daemon.Options{Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := daemon.Listen(p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		d.Serve(ctx, l)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		d.Close()
	})
	return d, &api.Client{Socket: p.Socket}
}

func decideReq(tool, command string) *api.DecideRequest {
	return &api.DecideRequest{Tool: tool, Args: map[string]any{"command": command}, Agent: "claude-code",
		Session: "s1", Cwd: "/home/dev/project", Interactive: true, AgentPrompt: true}
}

// fakePrompter answers every approval with a fixed answer, or waits for
// its context when hold is set (a popup nobody clicks).
type fakePrompter struct {
	mu     sync.Mutex
	answer daemon.Answer
	err    error
	hold   bool
	asked  []api.Approval
}

func (f *fakePrompter) Ask(ctx context.Context, a api.Approval) (daemon.Answer, error) {
	f.mu.Lock()
	f.asked = append(f.asked, a)
	ans, err, hold := f.answer, f.err, f.hold
	f.mu.Unlock()
	if hold {
		<-ctx.Done()
		return daemon.Answer{}, ctx.Err()
	}
	return ans, err
}
