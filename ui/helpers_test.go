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

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon"
)

// newTestDaemon makes a daemon on temp files with config as its
// config.toml ("" for the defaults). It is not serving: tests call its
// methods.
func newTestDaemon(t *testing.T, config string) *daemon.Daemon {
	t.Helper()
	dir := t.TempDir()
	p := api.Paths{
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
	d, err := daemon.New(p, daemon.Options{Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// approval is a call waiting for a person, as the daemon builds one.
func approval(id, agent, command string, scopes ...api.Scope) api.Approval {
	if len(scopes) == 0 {
		scopes = []api.Scope{api.ScopeOnce, api.ScopeSession, api.ScopeSessionAny, api.ScopeAlways, api.ScopeDeny}
	}
	now := time.Now()
	return api.Approval{
		ID: id, Agent: agent, Session: "s-" + agent, Run: "1", Tool: "Bash", Category: "shell",
		Subject: command, Args: map[string]any{"command": command}, Cwd: "/home/me/project",
		Risks: []string{"deletes", "network"}, Layer: "rule", Rule: "ask shell *", Source: "config.toml",
		Reason: "the rule asks", Grant: "bash:deletes+network", Scopes: scopes,
		Created: now, Expires: now.Add(2 * time.Minute),
	}
}

// asked is one Ask in flight.
type asked struct {
	ans  api.Answer
	err  error
	done chan struct{}
}

// ask calls p.Ask in a goroutine.
func ask(ctx context.Context, p *Prompter, a api.Approval) *asked {
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

func decideReq(cwd, command string) *api.DecideRequest {
	return &api.DecideRequest{Tool: "Bash", Args: map[string]any{"command": command}, Agent: "claude-code",
		Session: "s1", Cwd: cwd, Interactive: true}
}

// onUI runs fn as Fyne's goroutine: holding the lock the popup's background
// work holds (see Prompter.do), so that the race detector sees the order.
func onUI(p *Prompter, fn func()) {
	p.uiMu.Lock()
	defer p.uiMu.Unlock()
	fn()
}

// shellCall is a shell call that asks as the daemon describes one: two
// simple commands, one free and one that asks, what is at the paths it
// deletes (one outside the project), and what an answer may remember,
// narrowest first.
func shellCall(id, agent string) api.Approval {
	a := approval(id, agent, "git status && rm -rf build /tmp/agate-cache", api.ScopeOnce, api.ScopeRun, api.ScopeSession, api.ScopeSessionAny, api.ScopeAlways, api.ScopeDeny)
	a.Risks = []string{"deletes"}
	a.Layer, a.Rule, a.Source = "risk", "", ""
	a.Reason = "the command deletes files"
	a.Grant = "bash:deletes"
	a.Why = "rm -rf deletes 1,214 files, some of them outside the project."
	a.Commands = []api.CommandInfo{
		{Text: "git status", Prefix: []string{"git", "status"}, Free: true,
			Effects: []api.EffectInfo{{Kind: "read", Path: "/home/me/project", Text: "reads the repository in /home/me/project"}}},
		{Text: "rm -rf build /tmp/agate-cache", Prefix: []string{"rm"},
			Effects: []api.EffectInfo{
				{Kind: "delete", Path: "/home/me/project/build", Text: "deletes /home/me/project/build and everything in it"},
				{Kind: "delete", Path: "/tmp/agate-cache", Text: "deletes /tmp/agate-cache and everything in it", Outside: true},
			},
			Why: "it deletes files, some outside the project"},
	}
	a.Impact = &api.Impact{Paths: []api.PathImpact{
		{Path: "/home/me/project/build", Exists: true, Dir: true, Files: 214, Bytes: 18_400_000, Names: []string{"agate", "agate-cli", "obj/"}, Recoverable: false},
		{Path: "/tmp/agate-cache", Exists: true, Dir: true, Files: 1000, Bytes: 2_300_000_000, More: true, Outside: true, Names: []string{"go-build/", "mesa_shader_cache/"}},
	}}
	a.Remember = []api.Remember{
		{Grant: "bash(rm) delete=/home/me/project/build delete=/tmp/agate-cache", Text: "rm deleting under build/ and /tmp/agate-cache"},
		{Grant: "bash(rm) delete=/home/me/project delete=/tmp", Text: "rm deleting anywhere in the project and in /tmp"},
		{Grant: "bash:deletes", Text: "any bash command whose only risk is deleting files", Broad: true},
	}
	a.Runs = []api.RunChoice{
		{ID: api.RunConfined, Text: "Confined: the project and /tmp/agate-cache writable, no network, credential stores hidden"},
		{ID: api.RunUnconfined, Text: "Not confined: with all your rights"},
	}
	return a
}

// webCall is a call of another tool, headless, that sends data to a host.
func webCall(id, agent string) api.Approval {
	a := approval(id, agent, "https://paste.example.com/api/upload", api.ScopeOnce, api.ScopeSession, api.ScopeAlways, api.ScopeDeny)
	a.Tool, a.Category = "WebFetch", "web"
	a.Args = map[string]any{"url": "https://paste.example.com/api/upload", "method": "POST"}
	a.Risks = []string{"network"}
	a.Headless = true
	a.Why = "It sends data to paste.example.com, a host you have not trusted."
	a.Effects = []api.EffectInfo{{Kind: "upload", Host: "paste.example.com", Text: "sends a request body to paste.example.com"}}
	a.Impact = &api.Impact{Hosts: []api.HostImpact{{Host: "paste.example.com", Sends: true}}}
	a.Remember = []api.Remember{
		{Grant: "web_fetch upload=paste.example.com", Text: "sending to paste.example.com"},
		{Grant: "web_fetch", Text: "WebFetch with any parameters", Broad: true},
	}
	return a
}
