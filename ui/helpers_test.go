package ui

import (
	"context"
	"io"
	"log"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/agatehq/agate/app"
)

// newTestDaemon makes a daemon on temp files with config as its
// config.toml ("" for the defaults). It is not serving: tests call its
// methods.
func newTestDaemon(t *testing.T, config string) *app.Daemon {
	t.Helper()
	dir := t.TempDir()
	p := app.Paths{
		Config: filepath.Join(dir, "config", "config.toml"),
		Grants: filepath.Join(dir, "config", "grants.toml"),
		State:  filepath.Join(dir, "state"),
		Socket: filepath.Join(dir, "run", "agate.sock"),
	}
	if config != "" {
		if err := os.MkdirAll(filepath.Dir(p.Config), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p.Config, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	d, err := app.NewDaemon(p, app.DaemonOptions{Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// approval is a call waiting for a person, as the daemon builds one.
func approval(id, agent, command string, scopes ...app.Scope) app.Approval {
	if len(scopes) == 0 {
		scopes = []app.Scope{app.ScopeOnce, app.ScopeSession, app.ScopeSessionAny, app.ScopeAlways, app.ScopeDeny}
	}
	now := time.Now()
	return app.Approval{
		ID: id, Agent: agent, Session: "s-" + agent, Run: "1", Tool: "Bash", Category: "shell",
		Subject: command, Args: map[string]any{"command": command}, Cwd: "/home/me/project",
		Risks: []string{"deletes", "network"}, Layer: "rule", Rule: "ask shell *", Source: "config.toml",
		Reason: "the rule asks", Grant: "bash:deletes+network", Scopes: scopes,
		Created: now, Expires: now.Add(2 * time.Minute),
	}
}

// asked is one Ask in flight.
type asked struct {
	ans  app.Answer
	err  error
	done chan struct{}
}

// ask calls p.Ask in a goroutine.
func ask(ctx context.Context, p *Prompter, a app.Approval) *asked {
	r := &asked{done: make(chan struct{})}
	go func() {
		r.ans, r.err = p.Ask(ctx, a)
		close(r.done)
	}()
	return r
}

func (r *asked) finished() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// notes records notifications.
type notes struct {
	mu   sync.Mutex
	list []string
}

func (n *notes) notify(title, body string) error {
	n.mu.Lock()
	n.list = append(n.list, title+" | "+body)
	n.mu.Unlock()
	return nil
}

// press sends a key as the driver would: to the focused widget, else to
// the canvas.
func press(c fyne.Canvas, name fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: name}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	c.OnTypedKey()(ev)
}

func decideReq(cwd, command string) *app.DecideRequest {
	return &app.DecideRequest{Tool: "Bash", Args: map[string]any{"command": command}, Agent: "claude-code",
		Session: "s1", Cwd: cwd, Interactive: true}
}

// onUI runs fn as Fyne's goroutine: holding the lock the popup's background
// work holds (see Prompter.do), so that the race detector sees the order.
func onUI(p *Prompter, fn func()) {
	p.uiMu.Lock()
	defer p.uiMu.Unlock()
	fn()
}
