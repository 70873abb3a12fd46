package daemon

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/mcp"
	"github.com/agatehq/agate/app/mcp/pins"
	"github.com/agatehq/agate/policy"
)

// ReasonProxied is the reason a hook's call of a proxied server is
// allowed with: the proxy decides it.
const ReasonProxied = "decided by agate's MCP proxy"

// proxyHeartbeat is how often a registration's stream is written to: a
// proxy that is gone is noticed by then at the latest.
const proxyHeartbeat = 10 * time.Second

// maxProxies bounds the proxies registered at once.
const maxProxies = 1024

// proxyEntry is one live proxy.
type proxyEntry struct {
	session   string
	server    string
	proxyPID  int // the process holding the registration's connection
	clientPID int // its parent: the client that started it, whose hooks step aside
	client    string
	started   time.Time
	tools     map[string]bool // the tools it has listed
}

// proxies are the live MCP proxies: each entry lasts as long as the
// connection that registered it.
type proxies struct {
	mu sync.Mutex // guards byID
	// byID holds the entries by the proxy's session id.
	byID map[string]*proxyEntry

	closed    chan struct{} // closed when the daemon stops: registrations end
	closeOnce sync.Once
}

func newProxies() *proxies {
	return &proxies{byID: map[string]*proxyEntry{}, closed: make(chan struct{})}
}

// closeAll ends every registration, as the daemon stops.
func (ps *proxies) closeAll() { ps.closeOnce.Do(func() { close(ps.closed) }) }

func (ps *proxies) add(e *proxyEntry) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if _, dup := ps.byID[e.session]; dup {
		return fmt.Errorf("proxy session %q is already registered", e.session)
	}
	if len(ps.byID) >= maxProxies {
		return fmt.Errorf("%d proxies are registered, the most the daemon holds", len(ps.byID))
	}
	ps.byID[e.session] = e
	return nil
}

// status lists the live proxies, by server name then start.
func (ps *proxies) status() []api.ProxyStatus {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []api.ProxyStatus
	for _, e := range ps.byID {
		out = append(out, api.ProxyStatus{Server: e.server, Client: e.client, PID: e.proxyPID,
			ClientPID: e.clientPID, Tools: len(e.tools), Since: e.started})
	}
	slices.SortFunc(out, func(a, b api.ProxyStatus) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), a.Since.Compare(b.Since))
	})
	return out
}

func (ps *proxies) remove(e *proxyEntry) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.byID[e.session] == e {
		delete(ps.byID, e.session)
	}
}

// listed notes the tools a proxy listed (by its session id and peer).
func (ps *proxies) listed(session string, pid int, server string, tools []string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	e := ps.byID[session]
	if e == nil || e.proxyPID != pid || e.server != server {
		return
	}
	for _, t := range tools {
		if len(e.tools) < 4096 {
			e.tools[t] = true
		}
	}
}

// covering returns the live proxy of server that has listed tool and was
// started by one of agents, the processes a hook's call is taken from
// (see hookAgents): nil when there is none.
func (ps *proxies) covering(server, tool string, agents []int) *proxyEntry {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, e := range ps.byID {
		if e.server == server && e.tools[tool] && e.startedBy(agents) {
			return e
		}
	}
	return nil
}

// startedBy reports whether the proxy was started by one of agents and
// is still its child: a client that died and whose pid was taken by
// another process is not covered.
func (e *proxyEntry) startedBy(agents []int) bool {
	for _, a := range agents {
		if a > 1 && a == e.clientPID && parentPID(e.proxyPID) == e.clientPID {
			return true
		}
	}
	return false
}

// coveringJoined is covering for an agent that names an MCP tool
// SERVER+sep+TOOL (OpenCode's "demo_echo", Copilot CLI's "demo-echo")
// rather than mcp__SERVER__TOOL: the live proxy started by one of agents
// whose server and one of whose listed tools make name, each written as
// the agent writes them (clean). Where two proxies make the same name,
// either covers it: whichever server the agent calls, its proxy decides
// the call.
func (ps *proxies) coveringJoined(name, sep string, clean func(string) string, agents []int) *proxyEntry {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, e := range ps.byID {
		rest, ok := strings.CutPrefix(name, clean(e.server)+sep)
		if !ok || rest == "" || !e.startedBy(agents) {
			continue
		}
		for t := range e.tools {
			if clean(t) == rest {
				return e
			}
		}
	}
	return nil
}

// hookShells are the programs an agent runs its hook command through
// (/bin/sh -c, $SHELL -lc, and the wrappers a hook command may start
// with), by their process name.
var hookShells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "mksh": true,
	"ash": true, "busybox": true, "tcsh": true, "csh": true,
	"env": true, "timeout": true, "nice": true, "nohup": true, "stdbuf": true,
}

// hookAgents returns the processes a hook's call is taken from, chain
// being the calling process and its parents, nearest first (ancestors):
// the caller itself (a client that asks the daemon in person), and the
// nearest of its parents that is not a shell, the agent that ran the
// hook. Only their proxies make the hook step aside, never those of a
// process further up (the terminal the agent runs in, systemd --user, a
// subreaper that adopted a double-forked process), which are the
// ancestors of every agent there. A name that cannot be read ends the
// search.
func hookAgents(chain []int, name func(pid int) string) []int {
	if len(chain) == 0 {
		return nil
	}
	out := []int{chain[0]}
	for _, pid := range chain[1:] {
		n := name(pid)
		if n == "" {
			break
		}
		if !hookShells[n] {
			out = append(out, pid)
			break
		}
	}
	return out
}

func (ps *proxies) count() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.byID)
}

// splitMCPTool splits "mcp__SERVER__TOOL"; a server name never holds
// "__" (mcp.ValidName).
func splitMCPTool(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok || mcp.ValidName(server) != nil || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// handleMCPProxies holds one proxy's registration for as long as its
// connection is open.
func (d *Daemon) handleMCPProxies(w http.ResponseWriter, r *http.Request) {
	var req api.MCPProxy
	if err := readJSON(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := mcp.ValidName(req.Server); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Session == "" || len(req.Session) > 128 {
		writeError(w, http.StatusBadRequest, "a proxy session id is 1 to 128 characters")
		return
	}
	pid := peerPID(r.Context())
	client := parentPID(pid)
	if pid <= 0 || client <= 1 {
		writeError(w, http.StatusUnprocessableEntity, "cannot tell which process started the proxy: agents' hooks will not step aside for it")
		return
	}
	// Under a managed list of MCP servers, only agate's own proxy, from a
	// program the person cannot have changed, is stepped aside for: it
	// checked the server against the list before it started it.
	if cfg, _ := d.Config(); cfg != nil {
		if _, set := cfg.ManagedLayer().MCPServers(); set {
			if why := genuineAgate(pid); why != "" {
				writeError(w, http.StatusForbidden, "the managed policy lists the MCP servers agents may use, and this proxy cannot be told for agate's own: "+why)
				return
			}
		}
	}
	e := &proxyEntry{session: req.Session, server: req.Server, proxyPID: pid, clientPID: client,
		client: req.Client, started: time.Now(), tools: map[string]bool{}}
	select {
	case <-d.proxies.closed:
		writeError(w, http.StatusServiceUnavailable, "the daemon is stopping")
		return
	default:
	}
	if err := d.proxies.add(e); err != nil {
		writeError(w, http.StatusConflict, err.Error())
		return
	}
	defer d.proxies.remove(e)
	rc := http.NewResponseController(w)
	// The body is read: the connection stays open as the lease, with no
	// read deadline; the server notices when the proxy closes it.
	rc.SetReadDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(ev api.MCPProxyEvent) error {
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if err := enc.Encode(ev); err != nil {
			return err
		}
		return rc.Flush()
	}
	if send(api.MCPProxyEvent{Type: "registered", ClientPID: client, Secrets: d.knownSecrets() != nil}) != nil {
		return
	}
	t := time.NewTicker(proxyHeartbeat)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-d.proxies.closed:
			return
		case <-t.C:
			if !processAlive(pid) || parentPID(pid) != client ||
				send(api.MCPProxyEvent{Type: "heartbeat", Secrets: d.knownSecrets() != nil}) != nil {
				return
			}
		}
	}
}

// handleMCPPin pins one tools/list page of a proxied server.
func (d *Daemon) handleMCPPin(r *http.Request, req *api.MCPPinRequest) (any, error) {
	defs := make([]mcp.ToolDef, 0, len(req.Tools))
	names := make([]string, 0, len(req.Tools))
	for _, raw := range req.Tools {
		var def mcp.ToolDef
		if err := json.Unmarshal(raw, &def); err != nil {
			return nil, fmt.Errorf("a tool definition: %w", err)
		}
		defs = append(defs, def)
		names = append(names, def.Name)
	}
	changes, err := d.pins.Pin(req.Server, defs)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, pins.ErrBadDefinition) || mcp.ValidName(req.Server) != nil {
			status = http.StatusBadRequest
		}
		return nil, errStatus(status, err)
	}
	if req.Proxy != "" {
		d.proxies.listed(req.Proxy, peerPID(r.Context()), req.Server, names)
	}
	out := api.MCPPinResult{Changes: []api.MCPToolChange{}}
	for _, c := range changes {
		out.Changes = append(out.Changes, api.MCPToolChange{Tool: c.Tool, OldHash: c.OldHash, NewHash: c.NewHash, Fields: c.Fields})
	}
	return out, nil
}

// handleMCPRedact cuts the secret values the daemon knows out of one
// string of a proxied result.
func (d *Daemon) handleMCPRedact(_ *http.Request, req *api.MCPRedact) (any, error) {
	out := api.MCPRedacted{Text: req.Text}
	if k := d.knownSecrets(); k != nil && k.Contains(req.Text) {
		out.Found = true
		if rd, ok := k.(interface{ Redact(string) string }); ok {
			out.Text = rd.Redact(req.Text)
		} else {
			out.Text = "[secret]"
		}
	}
	return out, nil
}

// handleMCPResult taints the run of a proxied call's answer, unless the
// catalog knows the tool for one that works on this machine's files (as
// an agent's own Read does not taint).
func (d *Daemon) handleMCPResult(_ *http.Request, req *api.MCPResult) (any, error) {
	if err := mcp.ValidName(req.Server); err != nil {
		return nil, err
	}
	tainted := true
	if req.Tool != "" {
		info := d.Policy().Catalog().Describe(mcp.PolicyToolName(req.Server, req.Tool))
		tainted = !(info.Known && info.Category == "fs")
	}
	if tainted {
		d.sessions.taint(req.Agent, req.Session, req.Run, time.Now())
	}
	return map[string]bool{"tainted": tainted}, nil
}

// mcpCall is what the daemon knows of a proxied call: the definition
// listed and what changed in it since the pin.
type mcpCall struct {
	server string
	def    *mcp.ToolDef
	change []string
	hints  mcp.Hints
	base   string // the folder the server resolves relative paths against, "" when unknown
	known  string // the catalog's name for the server, from its command; "" unknown
}

// prepareMCP checks a proxied call and finds what changed in its tool's
// definition. The run it names starts when it is not the session's.
func (d *Daemon) prepareMCP(r *api.DecideRequest, now time.Time) (*mcpCall, error) {
	m := r.MCP
	if err := mcp.ValidName(m.Server); err != nil {
		return nil, err
	}
	if r.Tool != mcp.PolicyToolName(m.Server, m.Tool) {
		return nil, fmt.Errorf("tool %q is not %q", r.Tool, mcp.PolicyToolName(m.Server, m.Tool))
	}
	c := &mcpCall{server: m.Server}
	if m.Known != "" {
		if !mcp.KnownName(m.Known) {
			return nil, fmt.Errorf("known: %q is not a server agate's catalog knows", m.Known)
		}
		c.known = m.Known
	}
	if m.Base != "" && filepath.IsAbs(m.Base) {
		c.base = filepath.Clean(m.Base) // else relative paths are unknown
	}
	changed := map[string]bool{}
	for _, f := range m.Changed {
		changed[f] = true
	}
	if len(m.Def) > 0 {
		var def mcp.ToolDef
		if err := json.Unmarshal(m.Def, &def); err != nil {
			return nil, fmt.Errorf("the tool's definition: %w", err)
		}
		if def.Name != m.Tool {
			return nil, fmt.Errorf("the definition is of tool %q, not %q", def.Name, m.Tool)
		}
		ch, err := d.pins.Check(m.Server, def)
		if err != nil {
			return nil, err
		}
		if ch != nil {
			for _, f := range ch.Fields {
				changed[f] = true
			}
		}
		c.def, c.hints = &def, def.Hints()
	} else if pinned, ok, err := d.pins.Pinned(m.Server, m.Tool); err != nil {
		return nil, err
	} else if ok {
		// Not listed in this session: what its server last said of it.
		c.hints = pinned.Hints()
	}
	for _, f := range []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "execution"} {
		if changed[f] {
			c.change = append(c.change, f)
			delete(changed, f)
		}
	}
	if len(changed) > 0 { // names the proxy saw that the daemon does not know
		c.change = append(c.change, "other")
	}
	if r.Run != "" {
		d.sessions.useRun(r.Agent, r.Session, r.Run, now)
	}
	return c, nil
}

// tool is what the policy is told of the call.
func (c *mcpCall) tool() *policy.MCPTool {
	t := &policy.MCPTool{Changed: c.change, Base: c.base, Known: c.known}
	t.Destructive = c.hints.DestructiveHint != nil && *c.hints.DestructiveHint
	t.OpenWorld = c.hints.OpenWorldHint != nil && *c.hints.OpenWorldHint
	return t
}

// settled pins the definition a person allowed a call of, told what
// changed: later calls are of the approved definition.
func (d *Daemon) settled(c *mcpCall, resp *api.DecideResponse) {
	if c == nil || c.def == nil || len(c.change) == 0 || resp.Decision != policy.Allow || resp.By != api.ByPerson {
		return
	}
	if err := d.pins.Approve(c.server, *c.def); err != nil {
		d.logger.Printf("pin the approved definition of %s's %s: %v", c.server, c.def.Name, err)
	}
}

// proxied answers a hook's call of a tool of a server that a live proxy
// started by the same agent gates: allow, the proxy decides (one call,
// one decision). ok is false when no proxy covers the call.
func (d *Daemon) proxied(ctx context.Context, r *api.DecideRequest) (*api.DecideResponse, bool, error) {
	server, tool, ok := splitMCPTool(r.Tool)
	join, joined := joinedMCPNames[r.Agent]
	if !ok && !joined || d.proxies.count() == 0 {
		return nil, false, nil
	}
	pid := peerPID(ctx)
	if pid <= 0 {
		return nil, false, nil
	}
	agents := hookAgents(ancestors(pid, 32), processName)
	var e *proxyEntry
	if ok {
		e = d.proxies.covering(server, tool, agents)
	} else {
		e = d.proxies.coveringJoined(r.Tool, join.sep, join.clean, agents)
	}
	if e == nil {
		return nil, false, nil
	}
	dec := policy.Decision{Verdict: policy.Allow, Layer: policy.LayerMCPProxy, Category: "mcp", Tool: r.Tool,
		Reason: fmt.Sprintf("%s (pid %d, started by pid %d)", ReasonProxied, e.proxyPID, e.clientPID)}
	resp := responseFor(dec)
	resp.Risks = []string{}
	resp.By = api.ByMCPProxy
	subject := callSubject(r.Tool, r.Args, d.knownSecrets())
	resp, err := d.finish(ctx, r, d.record("decision", r, "", dec, subject), resp, subject)
	return resp, true, err
}

// joinedMCPNames are the agents whose hooks name an MCP tool
// SERVER+sep+TOOL, and how they write each part: OpenCode makes every
// character but letters, digits, '_' and '-' a '_' (its MCP client's
// tool names), Copilot CLI keeps both as they are.
var joinedMCPNames = map[string]struct {
	sep   string
	clean func(string) string
}{
	"opencode": {"_", openCodeToolName},
	"copilot":  {"-", func(s string) string { return s }},
}

// openCodeToolName is s as OpenCode writes a part of an MCP tool's name.
func openCodeToolName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// useRun makes run the session's current run, starting it (and ending
// the one before) when it is not.
func (ss *sessions) useRun(agent, id, run string, now time.Time) {
	ss.mu.Lock()
	s := ss.get(agent, id, now)
	same := s.run == run
	ss.mu.Unlock()
	if !same {
		ss.newRun(agent, id, run, now)
	}
}

// peerKey is the context key of the connection's peer process id.
type peerKey struct{}

// withPeer notes the peer process of a connection in its context.
func withPeer(ctx context.Context, pid int) context.Context {
	return context.WithValue(ctx, peerKey{}, pid)
}

// peerPID is the process at the other end of the request's connection,
// 0 when unknown.
func peerPID(ctx context.Context) int {
	pid, _ := ctx.Value(peerKey{}).(int)
	return pid
}
