package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/mcp"
	"github.com/agatehq/agate/policy"
)

// daemonGate is the mcp.Gate of `agate mcp run`: the running daemon
// decides every call, as it decides an agent's hook calls, and keeps
// the pins. A daemon that cannot be reached is a denial.
type daemonGate struct {
	client    *api.Client
	cwd       string // the proxy's working folder: relative paths are from it
	workspace string // the project: workspaceOf(cwd)
	stderr    io.Writer

	// known is the catalog's name for the server (knownServerName), found
	// once: the command a proxy runs does not change.
	knownOnce sync.Once
	known     string

	secrets atomic.Bool // the daemon knows secret values to cut out

	regMu     sync.Mutex // guards regCancel, regDone and listed
	regCancel context.CancelFunc
	regDone   chan struct{}
	// listed are the tools pinned so far, told again to a daemon that
	// came back, so that hooks step aside for them again.
	listed map[string]mcp.ToolDef

	// Runs: a batch of calls decided together is one run (its results
	// taint the calls still being decided); the next call after they
	// are all answered starts a new one.
	runMu    sync.Mutex // guards inflight, batch
	inflight int
	batch    int64
}

var _ mcp.Gate = (*daemonGate)(nil)

func newDaemonGate(c *api.Client, cwd string, stderr io.Writer) *daemonGate {
	home, _ := os.UserHomeDir()
	return &daemonGate{client: c, cwd: cwd, workspace: workspaceOf(cwd, home), stderr: stderr}
}

// workspaceOf is the project of a server started in cwd: cwd itself,
// but for the home folder and "/", which hold everything (a client that
// starts its servers there, as desktop apps do, has no project, and no
// write is in it).
func workspaceOf(cwd, home string) string {
	c := filepath.Clean(cwd)
	if c == "/" || (home != "" && c == filepath.Clean(home)) {
		return "/"
	}
	return c
}

// registerRetry is how long the registration waits before trying again
// when the daemon went away.
const registerRetry = 2 * time.Second

// Start registers the proxy with the daemon, so that the hooks of the
// client that started it step aside for its server, and keeps the
// registration until Stop (registering again when the daemon comes
// back). It returns once the first registration is in force, or with
// its error.
func (g *daemonGate) Start(ctx context.Context, s mcp.Session) error {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	g.regMu.Lock()
	g.regCancel, g.regDone = cancel, done
	g.regMu.Unlock()
	first := make(chan error, 1)
	var once sync.Once
	report := func(err error) { once.Do(func() { first <- err }) }
	go func() {
		defer close(done)
		req := &api.MCPProxy{Session: s.ID, Server: s.Server, Command: s.Command}
		for {
			err := g.client.RegisterMCPProxy(rctx, req, func(ev api.MCPProxyEvent, isFirst bool) {
				g.secrets.Store(ev.Secrets)
				if isFirst {
					report(nil)
					go g.relist(rctx, s)
				}
			})
			report(err)
			var apiErr *api.APIError
			if rctx.Err() != nil || errors.As(err, &apiErr) && apiErr.Status/100 == 4 {
				return // stopped, or refused for good
			}
			select {
			case <-rctx.Done():
				return
			case <-time.After(registerRetry):
			}
		}
	}()
	select {
	case err := <-first:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// relist tells a daemon the proxy registered with again of the tools
// it has listed (none on the first registration).
func (g *daemonGate) relist(ctx context.Context, s mcp.Session) {
	g.regMu.Lock()
	defs := make([]mcp.ToolDef, 0, len(g.listed))
	for _, d := range g.listed {
		defs = append(defs, d)
	}
	g.regMu.Unlock()
	if len(defs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := g.pin(ctx, s, defs); err != nil {
		fmt.Fprintf(g.stderr, "agate mcp %s: could not tell agate's daemon the tools again: %v\n", s.Server, err)
	}
}

// Stop ends the registration.
func (g *daemonGate) Stop(ctx context.Context, s mcp.Session) error {
	g.regMu.Lock()
	cancel, done := g.regCancel, g.regDone
	g.regMu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// agentFor names the agent a client is, as [agents.NAME] and the grants
// know it, from its clientInfo name.
func agentFor(client string) string {
	c := strings.ToLower(client)
	switch {
	case c == "claude-code" || strings.HasPrefix(c, "claude-code"):
		return "claude-code"
	case strings.Contains(c, "claude"):
		return "claude-desktop"
	case strings.Contains(c, "gemini"):
		return "gemini"
	case strings.Contains(c, "codex"):
		return "codex"
	case strings.Contains(c, "cursor"):
		return "cursor"
	case strings.Contains(c, "visual studio code") || strings.Contains(c, "vscode"):
		return "vscode"
	}
	return "mcp"
}

// beginCall counts a call in and returns its run.
func (g *daemonGate) beginCall() string {
	g.runMu.Lock()
	defer g.runMu.Unlock()
	if g.inflight == 0 {
		g.batch++
	}
	g.inflight++
	return "mcp-" + strconv.FormatInt(g.batch, 10)
}

// endCall counts a call out (denied, or answered), and reports whether
// it was the last of its run.
func (g *daemonGate) endCall() (last bool) {
	g.runMu.Lock()
	defer g.runMu.Unlock()
	if g.inflight > 0 {
		g.inflight--
	}
	return g.inflight == 0
}

func (g *daemonGate) currentRun() string {
	g.runMu.Lock()
	defer g.runMu.Unlock()
	return "mcp-" + strconv.FormatInt(g.batch, 10)
}

// Decide asks the daemon.
func (g *daemonGate) Decide(ctx context.Context, c mcp.Call) (mcp.Verdict, error) {
	run := g.beginCall()
	allowed := false
	defer func() {
		if !allowed {
			g.endCall()
		}
	}()
	m := &api.MCPCall{Proxy: c.Session.ID, Server: c.Session.Server, Tool: c.Tool, Base: c.Base, Known: g.knownServer(c.Session.Command)}
	if c.Def != nil {
		def, err := json.Marshal(c.Def)
		if err != nil {
			return mcp.Verdict{}, fmt.Errorf("encode the tool's definition: %w", err)
		}
		m.Def = def
	}
	if c.Changed != nil {
		m.Changed = c.Changed.Fields
	}
	req := &api.DecideRequest{
		Tool: c.PolicyTool, Args: c.Arguments, Agent: agentFor(c.Session.Client), Session: c.Session.ID, Run: run,
		Cwd: g.cwd, Workspace: g.workspace, Interactive: true, MCP: m,
	}
	resp, err := g.client.Decide(ctx, req)
	if err != nil {
		return mcp.Verdict{}, fmt.Errorf("agate's daemon did not decide it: %w", err)
	}
	if resp.Decision != policy.Allow {
		reason := resp.Reason
		if resp.Decision == policy.Ask {
			reason = "nobody could be asked in agate (start the tray app or `agate approvals --watch`): " + reason
		}
		return mcp.Verdict{Reason: reason}, nil
	}
	allowed = true
	return mcp.Verdict{Allow: true, Reason: resp.Reason}, nil
}

// Pin pins one tools/list page in the daemon.
func (g *daemonGate) Pin(ctx context.Context, s mcp.Session, tools []mcp.ToolDef) ([]mcp.ToolChange, error) {
	changes, err := g.pin(ctx, s, tools)
	if err == nil {
		g.regMu.Lock()
		if g.listed == nil {
			g.listed = map[string]mcp.ToolDef{}
		}
		for _, t := range tools {
			if len(g.listed) < 4096 {
				g.listed[t.Name] = t
			}
		}
		g.regMu.Unlock()
	}
	return changes, err
}

func (g *daemonGate) pin(ctx context.Context, s mcp.Session, tools []mcp.ToolDef) ([]mcp.ToolChange, error) {
	req := &api.MCPPinRequest{Proxy: s.ID, Server: s.Server, Tools: make([]json.RawMessage, 0, len(tools))}
	for _, t := range tools {
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("encode tool %q: %w", t.Name, err)
		}
		req.Tools = append(req.Tools, b)
	}
	res, err := g.client.PinMCP(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("agate's daemon did not pin the tools: %w", err)
	}
	out := make([]mcp.ToolChange, 0, len(res.Changes))
	for _, c := range res.Changes {
		out = append(out, mcp.ToolChange{Tool: c.Tool, OldHash: c.OldHash, NewHash: c.NewHash, Fields: c.Fields})
	}
	return out, nil
}

// Taint tells the daemon of a forwarded call's answer, which taints
// the run for the calls of it still being decided. The last answer of
// a run taints nothing (the next call starts a new run), and the daemon
// is not asked.
func (g *daemonGate) Taint(ctx context.Context, s mcp.Session, tool string) error {
	run := g.currentRun()
	if g.endCall() {
		return nil
	}
	err := g.client.MCPResult(ctx, &api.MCPResult{Agent: agentFor(s.Client), Session: s.ID, Run: run, Server: s.Server, Tool: tool})
	if err != nil {
		return fmt.Errorf("agate's daemon: %w", err)
	}
	return nil
}

// maxRedact bounds a string sent to the daemon to have secrets cut out;
// a longer one is withheld whole.
const maxRedact = 16 << 20

// withheld stands for a string agate could not check for secrets.
const withheld = "[withheld: agate could not check this text for secrets]"

// resultSecrets cuts secrets out of result strings: the values the
// daemon knows, the daemon doing the cutting (the values never leave
// it), and credential-shaped strings (provider keys, private keys, a
// long token assigned to a credential-looking name), found here. A
// string the daemon cannot check (gone, too long) is withheld.
type resultSecrets struct {
	g *daemonGate

	mu   sync.Mutex // guards last
	last map[string]string
}

var _ policy.KnownSecrets = (*resultSecrets)(nil)

// Contains reports whether s holds a secret; what it becomes is kept for
// Redact.
func (d *resultSecrets) Contains(s string) bool {
	if len(s) < 8 {
		return false
	}
	out, found := s, false
	if d.g.secrets.Load() {
		if len(s) > maxRedact {
			out, found = "[withheld: agate cannot check a text this long for secrets]", true
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			r, err := d.g.client.RedactMCP(ctx, s)
			cancel()
			switch {
			case err != nil:
				out, found = withheld, true
			case r.Found:
				out, found = r.Text, true
			}
		}
	}
	if creds := policy.FindCredentials(out); len(creds) > 0 {
		var b strings.Builder
		at := 0
		for _, c := range creds {
			b.WriteString(out[at:c.Start])
			b.WriteString("[REDACTED " + c.Kind + "]")
			at = c.End
		}
		b.WriteString(out[at:])
		out, found = b.String(), true
	}
	if !found {
		return false
	}
	d.mu.Lock()
	if d.last == nil || len(d.last) > 64 {
		d.last = map[string]string{}
	}
	d.last[s] = out
	d.mu.Unlock()
	return true
}

// Redact returns what Contains made of s.
func (d *resultSecrets) Redact(s string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if out, ok := d.last[s]; ok {
		delete(d.last, s)
		return out
	}
	return withheld
}

// mcpServer is what the config says of one proxied server.
type mcpServer struct {
	pii     bool
	secrets policy.KnownSecrets
	// scrub are the variables the server is not given: the config's
	// secrets ([secrets] env, and where they come from) and the vault's
	// credentials ([secrets] vault_env).
	scrub []string
	// cfg is the config read (its defaults when it cannot be read): how
	// the server is confined ([mcp.servers.NAME], [sandbox]).
	cfg *policy.Config
}

// mcpServerConfig reads [mcp.servers.NAME] from the config; a config
// that cannot be read leaves PII redaction on (the careful side) and
// says so.
func mcpServerConfig(paths api.Paths, name string, stderr io.Writer) mcpServer {
	ct, err := config.ReadFile(paths, config.ReadOnly)
	var cfg *policy.Config
	if err == nil {
		cfg, err = config.Parse(ct)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agate mcp %s: the config cannot be read (%v): personal data in results is redacted\n", name, err)
		return mcpServer{pii: true, cfg: config.UnderManaged(policy.DefaultConfig())}
	}
	return mcpServer{pii: cfg.MCP.Servers[name].PIIRedact, scrub: append(cfg.SecretEnvNames(), cfg.Secrets.VaultEnv...), cfg: cfg}
}

// knownServer is knownServerName for the proxy's server, worked out at
// its first call, not at every call.
func (g *daemonGate) knownServer(command []string) string {
	g.knownOnce.Do(func() { g.known = knownServerName(command, g.cwd) })
	return g.known
}

// knownServerName is the name agate's catalog knows a server by, from the
// command that starts it (mcp.KnownServer), or "": a program of the
// project bearing a known server's name is the project's code, not the
// catalog's server (as in mcpProfile).
func knownServerName(command []string, cwd string) string {
	l, ok := mcp.KnownServer(command)
	if !ok {
		return ""
	}
	if l.Spec == "" {
		home, _ := os.UserHomeDir()
		if project := projectRoot(cwd, home); project != "" && serverInProject(command, cwd, project) {
			return ""
		}
	}
	return l.Name
}
