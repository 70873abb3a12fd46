package daemon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/files/audit/export"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/app/files/tokens"
	"github.com/agatehq/agate/app/files/undo"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/app/mcp/pins"
	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/app/version"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

// Daemon is the running gate: the policy in force, the approvals waiting
// for a person, the sessions' grants and taint, the audit log and the
// local API. The tray app runs one in-process; `agate serve` runs one
// headless.
type Daemon struct {
	paths   api.Paths
	logger  *log.Logger
	started time.Time

	state    atomic.Pointer[policyState] // swapped whole on a good reload
	grants   atomic.Pointer[grants.Set]  // the saved "always" grants
	prompter atomic.Pointer[prompterBox] // the in-process prompter (the tray), if any
	secrets  atomic.Pointer[secretsBox]  // values of secrets agate keeps, for leak detection

	sessions *sessions
	hub      *hub
	broker   *broker
	audit    *audit.Log
	overlays *overlayCache
	tokens   *tokenSet // the scoped tokens (tokens.json), read as it changes
	// tokenLimits bounds each token's requests.
	tokenLimits tokenLimiter
	// exporter ships the audit log ([audit.export]); nil until it runs.
	exporter atomic.Pointer[export.Exporter]
	// containers are the containers' sockets as serveContainers left them.
	containers atomic.Pointer[[]api.ContainerStatus]
	counts     counters
	bodies     *bodies        // what request bodies in flight may hold
	facts      *machine.Facts // what the policy needs to know of files, repositories and patches

	secretsState secretState
	prober       sandbox.Prober
	// confineProber probes the OS's own sandbox for confined unasked
	// calls (kernelSandbox).
	confineProber sandbox.Prober
	confineOpts   confineOptions
	projSecrets   projectSecrets // the secret files deep in each project, for confined calls to hide
	outcomes      outcomeBook    // asks handed to agents' prompts, until they say what became of them
	pasted        pastedQueue    // the prompt scans in progress and waiting
	pins          *pins.Store    // the pinned definitions of MCP servers' tools
	proxies       *proxies       // the live MCP proxies
	// undo is the store of kept copies (nil: nothing is kept, and what
	// git cannot give back asks); undoSecret the secret paths it keeps
	// no copy of, as the config in force names them.
	undo       *undo.Store
	undoSecret atomic.Pointer[func(rel string, dir bool) bool]

	mu       sync.Mutex // guards listener
	listener io.Closer

	promptReady chan struct{} // closed when a real prompter is set (or none)
	readyOnce   sync.Once
}

type prompterBox struct {
	p   Prompter
	via string
}

type secretsBox struct{ s policy.KnownSecrets }

// policyState is one loaded config and its compiled policy.
type policyState struct {
	cfg      *policy.Config
	pol      *policy.Policy
	user     *policy.Config // the person's config, before the managed layer (nil: the fallback's defaults)
	loadedAt time.Time
	// err is the last config error: the file on disk is broken and pol is
	// the last good policy (or the strict fallback at start).
	err error
}

// Options tune a daemon.
type Options struct {
	// Logger receives the daemon's log; nil logs to stderr.
	Logger *log.Logger
}

// New loads the config (writing the defaults on first run), opens
// the audit log, and returns a daemon ready to Serve. A config that does
// not parse does not stop it: it runs with the built-in defaults in
// manual mode (every call that acts asks) and reports the error, until
// the file is fixed.
func New(paths api.Paths, o Options) (*Daemon, error) {
	d := &Daemon{
		paths:    paths,
		logger:   o.Logger,
		started:  time.Now(),
		sessions: newSessions(24 * time.Hour),
		hub:      newHub(),
		overlays: newOverlayCache(),
		tokens:   &tokenSet{path: tokens.Path(paths.State)},
		bodies:   newBodies(),
		facts:    machine.NewFacts(),
		pins:     pins.Open(filepath.Join(paths.State, "mcp-pins")),
		proxies:  newProxies(),

		promptReady: make(chan struct{}),
	}
	if d.logger == nil {
		d.logger = log.New(os.Stderr, "agate: ", log.LstdFlags)
	}
	// The audit log, the key store and the last good config live here:
	// the folder must be this user's alone before anything is read or
	// written in it.
	if err := osutil.MakeDir(paths.State, false); err != nil {
		return nil, fmt.Errorf("state folder: %w", err)
	}
	st := d.load(config.AtStart)
	if st.pol == nil {
		fb, err := d.fallback(st.err)
		if err != nil {
			return nil, err
		}
		st = fb
	}
	d.state.Store(st)
	if st.err == nil {
		d.syncCodexRules(st.cfg)
	}
	switch {
	case errors.Is(st.err, config.ErrMissing) && st.cfg != nil && st.cfg.Source != d.paths.Config:
		d.logger.Printf("%v", st.err)
	case st.err != nil:
		d.logger.Printf("config error, running strict until it is fixed: %v", st.err)
	}
	g, err := grants.Load(paths.Grants)
	if err != nil {
		d.logger.Printf("grants: %v (no saved grants apply until it is fixed)", err)
		g = &grants.Set{}
	}
	d.grants.Store(g)
	d.broker = newBroker(st.cfg.Approvals.MaxPending, d.hub)
	auditLog, err := audit.Open(paths.AuditLog(), int64(st.cfg.Audit.MaxSizeMB)<<20, st.cfg.Audit.Keep)
	if err != nil {
		return nil, err
	}
	d.audit = auditLog
	d.openUndo(st.cfg)
	return d, nil
}

// load reads and compiles the config file. On failure the state carries
// the error and no policy. A config put in force is kept as the last good
// copy, which a later start runs when the file is gone; that state comes
// with a policy and an error saying so.
func (d *Daemon) load(mode config.Mode) *policyState {
	st := &policyState{loadedAt: time.Now()}
	ct, err := config.ReadFile(d.paths, mode)
	if err != nil {
		st.err = err
		return st
	}
	user, err := policy.Parse(ct.Source, ct.Data)
	if err != nil {
		st.err = err
		return st
	}
	cfg := config.UnderManaged(user)
	pol, err := policy.Compile(cfg, machine.PolicyOptions(d.paths))
	if err != nil {
		st.err = err
		return st
	}
	st.cfg, st.pol, st.user, st.err = cfg, pol, user, ct.Missing
	if ct.Missing == nil {
		if err := config.SaveLastGood(d.paths, ct.Data, st.loadedAt); err != nil {
			d.logger.Printf("keep the last good config: %v", err)
		}
	}
	return st
}

// reapplyManaged puts the managed policy as it is now over the person's
// last good config, when their file is broken (cause): an edit of the
// managed file applies whatever state the person's file is in. ok is
// false when there is no last good config of theirs.
func (d *Daemon) reapplyManaged(cause error) (*policyState, bool) {
	prev := d.state.Load()
	user := policy.DefaultConfig()
	user.Auto.Mode = "manual"
	if prev != nil && prev.user != nil {
		user = prev.user
	}
	cfg := config.UnderManaged(user)
	pol, err := policy.Compile(cfg, machine.PolicyOptions(d.paths))
	if err != nil {
		return nil, false
	}
	return &policyState{cfg: cfg, pol: pol, user: prev.userOrNil(), loadedAt: time.Now(), err: cause}, true
}

func (st *policyState) userOrNil() *policy.Config {
	if st == nil {
		return nil
	}
	return st.user
}

// fallback is the strict policy used when the config is broken at start:
// the defaults, in manual mode.
func (d *Daemon) fallback(cause error) (*policyState, error) {
	cfg := policy.DefaultConfig()
	cfg.Auto.Mode = "manual"
	cfg = config.UnderManaged(cfg)
	pol, err := policy.Compile(cfg, machine.PolicyOptions(d.paths))
	if err != nil {
		return nil, fmt.Errorf("compile the fallback policy: %w", err)
	}
	return &policyState{cfg: cfg, pol: pol, loadedAt: time.Now(), err: cause}, nil
}

// Reload reads the config again. A good config replaces the policy in
// force at once; a broken one leaves it in place and is reported (status,
// event stream, log). It returns the config error, if any.
func (d *Daemon) Reload() error {
	st := d.load(config.Live)
	if st.err != nil {
		d.configFailed(st.err)
		return st.err
	}
	d.apply(st)
	return nil
}

// ReloadGrants reads the grants file again; a broken one keeps the last
// good grants.
func (d *Daemon) ReloadGrants() error {
	g, err := grants.Load(d.paths.Grants)
	if err != nil {
		d.logger.Printf("grants: %v (keeping the last good grants)", err)
		return err
	}
	d.grants.Store(g)
	return nil
}

// Config returns the config in force and the current config error (the
// file on disk is broken: the config returned is the last good one).
func (d *Daemon) Config() (*policy.Config, error) {
	st := d.state.Load()
	return st.cfg, st.err
}

// Policy returns the policy in force.
func (d *Daemon) Policy() *policy.Policy { return d.state.Load().pol }

// Paths returns the daemon's files.
func (d *Daemon) Paths() api.Paths { return d.paths }

// SetPrompter attaches the in-process prompter (the tray), or detaches it
// with nil. via names it in the audit log ("tray").
func (d *Daemon) SetPrompter(p Prompter, via string) {
	if p == nil {
		d.prompter.Store(nil)
	} else {
		d.prompter.Store(&prompterBox{p: p, via: via})
	}
	if _, waiting := p.(*awaitPrompter); !waiting {
		d.readyOnce.Do(func() { close(d.promptReady) })
	}
}

// awaitPrompter stands in for the tray while it starts: the daemon serves
// at once, and a call that asks in the first moments waits for the popup
// (within its own expiry) instead of going to the agent's prompt.
type awaitPrompter struct{ d *Daemon }

func (w *awaitPrompter) Ask(ctx context.Context, a api.Approval) (api.Answer, error) {
	select {
	case <-ctx.Done():
		return api.Answer{}, ctx.Err()
	case <-w.d.promptReady:
	}
	b := w.d.prompter.Load()
	if b == nil || b.p == Prompter(w) {
		return api.Answer{}, errors.New("the tray app did not start")
	}
	return b.p.Ask(ctx, a)
}

// SetSecrets gives the daemon the values of the secrets agate keeps, so a
// call that carries one is flagged and its log line redacted.
func (d *Daemon) SetSecrets(s policy.KnownSecrets) {
	if s == nil {
		d.secrets.Store(nil)
		return
	}
	d.secrets.Store(&secretsBox{s: s})
}

func (d *Daemon) knownSecrets() policy.KnownSecrets {
	if b := d.secrets.Load(); b != nil {
		return b.s
	}
	return nil
}

// Prompters names who can ask a person now.
func (d *Daemon) Prompters() []string {
	var out []string
	if b := d.prompter.Load(); b != nil {
		out = append(out, b.via)
	}
	if d.hub.approvers() > 0 {
		out = append(out, "terminal")
	}
	return out
}

// Decide decides one call: by the policy, or by asking a person when the
// policy says ask and someone can be asked. It returns after the decision
// is in the audit log. It never allows because something failed.
func (d *Daemon) Decide(ctx context.Context, r *api.DecideRequest) (*api.DecideResponse, error) {
	if r.Tool == "" {
		return nil, errors.New("no tool named")
	}
	if r.Cwd == "" || !strings.HasPrefix(r.Cwd, "/") {
		return nil, fmt.Errorf("cwd %q is not an absolute path", r.Cwd)
	}
	now := time.Now()
	tok := tokenOf(ctx)
	inProject, asked := true, r.Cwd
	if tok != nil {
		inProject = asToken(r, tok)
	}
	var mc *mcpCall
	switch {
	case tok != nil && r.MCP != nil:
		// A token's caller runs no proxy of agate's: its MCP fields would
		// pin tools in the person's store.
		return nil, errStatus(http.StatusForbidden, fmt.Errorf("token %q: a scoped token's calls carry no MCP proxy's fields", tok.Name))
	case r.MCP == nil && tok == nil:
		// A hook's call of a server a proxy gates: the proxy decides it.
		if resp, ok, err := d.proxied(ctx, r); ok {
			return resp, err
		}
	case r.MCP != nil:
		var err error
		if mc, err = d.prepareMCP(r, now); err != nil {
			return nil, fmt.Errorf("mcp: %w", err)
		}
	}
	st := d.state.Load()
	pol := d.overlays.forCall(st.pol, r.Cwd, r.Workspace)
	if tok != nil {
		pol = tokenPolicy(pol, tok)
	}
	snap := d.sessions.view(r.Agent, r.Session, r.Run, now)
	d.sessions.fixMade(r.Agent, r.Session, time.Now()) // what the session's last calls wrote is theirs as it stands
	prompter := d.prompter.Load()
	attached := prompter != nil || d.hub.approvers() > 0
	preq := &policy.Request{
		Tool: r.Tool, Args: r.Args, Agent: r.Agent, Cwd: r.Cwd, Workspace: r.Workspace,
		Interactive: r.Interactive && (attached || r.AgentPrompt && !r.Headless),
		Tainted:     r.Tainted || snap.tainted,
		Grants:      slices.Concat(d.grants.Load().For(r.Agent), snap.grants), // never into the shared saved list (a token's agent is its own)
		RunGrants:   snap.runGrants,
		Resolve:     machine.ResolvePath,
		Secrets:     d.knownSecrets(),
		Glob:        machine.Glob,
		Files:       d.facts.Files,
		Repo:        d.facts.Repo,
		ReadPatch:   d.facts.ReadPatch,
	}
	var budget *undo.Budget
	preq.Keep, budget = d.keepFor(ctx, st.cfg, r)
	if tok != nil && tok.Container {
		d.containerFacts(tok, preq)
	}
	if mc != nil {
		preq.MCP = mc.tool()
	}
	// What the sandbox can hold runs unasked inside it: the project's code
	// ([sandbox] confine_project, or confine_unasked), and what agate
	// cannot tell, read-only. A command that failed there lately asks.
	unasked := d.confinesUnasked(st.cfg, r)
	failed := unasked && d.sessions.failedConfined(r.Agent, r.Session, commandOf(r.Args), now)
	confine := d.canConfine(st.cfg, r, now) || unasked && !failed
	preq.Sandbox, preq.FailedConfined = confine, failed
	dec := pol.Decide(preq)
	switch {
	case tok != nil && !inProject:
		dec = policy.Decision{Verdict: policy.Deny, Layer: policy.LayerToken, Tool: dec.Tool, Category: dec.Category, Risks: dec.Risks,
			Reason: fmt.Sprintf("container %q may act only in its project, which it sees at %s, and this call is in %s", tok.Name, tok.Inside, asked)}
	case tok != nil && !tok.Within(r.Cwd):
		dec = policy.Decision{Verdict: policy.Deny, Layer: policy.LayerToken, Tool: dec.Tool, Category: dec.Category, Risks: dec.Risks,
			Reason: fmt.Sprintf("token %q is for %s only, and this call is in %s", tok.Name, tok.Project, r.Cwd)}
	}
	// A call like one a person let run confined for the run or the
	// session runs confined again, as they allowed it: never unconfined,
	// and where it cannot be confined now, it asks as before.
	var grantedConfined *api.Confinement
	if saved := d.grants.Load().ConfinedFor(r.Agent); dec.Verdict != policy.Allow && len(saved)+len(snap.confined)+len(snap.runConfined) > 0 {
		creq := *preq
		creq.Grants, creq.RunGrants = slices.Concat(saved, snap.confined), snap.runConfined
		if cd := pol.Decide(&creq); cd.Verdict == policy.Allow && cd.Layer == policy.LayerGrant {
			if grantedConfined = d.approvedFor(st.cfg, r, dec); grantedConfined != nil {
				cd.Reason += ", to run confined"
				dec = cd
			}
		}
	}
	subject := callSubject(r.Tool, r.Args, d.knownSecrets())
	// What the call destroys that git cannot give back is kept before it
	// is allowed; where that fails, the call is decided as if nothing
	// could be kept, and asks.
	var kept *api.Kept
	if dec.Verdict == policy.Allow && len(dec.Keep) > 0 {
		var err error
		if kept, err = d.keep(ctx, r, budget, dec.Keep, subject); err != nil {
			d.logger.Printf("undo: %v", err)
			preq.Keep = nil
			dec = pol.Decide(preq)
			dec.Reason += " (agate could not keep a copy: " + undo.Why(err) + ")"
			grantedConfined = nil
		} else {
			dec.Reason += keptNote(kept)
		}
	}
	if dec.Risks.Has(policy.Secret) {
		d.noteLeaks(r.Args)
	}
	resp := responseFor(dec)
	resp.Kept = kept
	// Whether an allow runs confined is the daemon's alone to say; the
	// hook renders it. finish keeps it for an allow only.
	resp.Sandbox = rewritable(r) && (dec.Sandbox || st.cfg.Hooks.SandboxBash && st.cfg.SandboxEnabled())
	if dec.Sandbox {
		d.sessions.ranConfined(r.Agent, r.Session, commandOf(r.Args), now)
	}
	if unasked && dec.Judged() && dec.Confine.Possible {
		resp.Sandbox, resp.Confine = true, d.confinementFor(st.cfg, r, dec.Confine)
		d.sessions.confinedCall(r.Agent, r.Session, r.ToolUseID, commandOf(r.Args), resp.Confine.Describe(), now)
	}
	if grantedConfined != nil {
		resp.Sandbox, resp.Confine = true, grantedConfined
		d.sessions.confinedCall(r.Agent, r.Session, r.ToolUseID, commandOf(r.Args), resp.Confine.Describe(), now)
	}
	rec := d.record("decision", r, snap.run, dec, subject)

	switch {
	case dec.Verdict != policy.Ask:
		resp.By = api.ByPolicy
		if dec.Unattended {
			resp.By = api.ByUnattended
		}
	case r.Reasks && d.sessions.allowedLately(r.Agent, r.Session, callKey(r.Tool, r.Cwd, r.Args), now):
		// The agent's own prompt is about to ask about a call a person
		// allowed in agate a moment ago: one call, one question.
		resp.Decision, resp.By = policy.Allow, api.ByPerson
		resp.Reason = "a person allowed this same call in agate a moment ago: " + dec.Reason
		rec.Decision, rec.Reason = resp.Decision.String(), resp.Reason
	case !attached:
		// Nobody agate can reach: the agent's own prompt asks.
		resp.By = api.ByAgent
	default:
		resp, err := d.ask(ctx, r, snap, pol, dec, resp, rec, subject, prompter)
		if err == nil {
			d.settled(mc, resp)
		}
		return resp, err
	}
	if resp.Decision == policy.Allow {
		d.sessions.wrote(r.Agent, r.Session, dec.Effects, keptPaths(resp.Kept), now)
	}
	return d.finish(ctx, r, rec, resp, subject)
}

// ask puts the call to a person and waits for the answer, the expiry, or
// the caller going away; every way but a person's allow is a deny.
func (d *Daemon) ask(ctx context.Context, r *api.DecideRequest, snap snapshot, pol *policy.Policy, dec policy.Decision,
	resp *api.DecideResponse, rec *audit.Record, subject string, prompter *prompterBox) (*api.DecideResponse, error) {
	cfg := d.state.Load().cfg
	ws := r.Workspace
	if ws == "" {
		ws = r.Cwd
	}
	a := api.Approval{
		Agent: r.Agent, Session: r.Session, Run: snap.run, Tool: r.Tool, Category: dec.Category,
		Subject: subject, Args: redactArgs(r.Args, d.knownSecrets()), Cwd: r.Cwd, Risks: dec.Risks.List(),
		Tainted: dec.Tainted, Layer: string(dec.Layer), Reason: dec.Reason, Grant: dec.Grant.String(),
		Scopes: offeredScopes(dec), Created: time.Now(),
		Why: whySentence(dec), Headless: r.Headless, Impact: d.impactOf(dec.Effects, ws),
		Remember: rememberOptions(dec, ws),
	}
	if len(dec.Commands) > 0 {
		a.Commands = commandInfos(dec.Commands, ws)
	} else {
		a.Effects = effectInfos(dec.Effects, ws)
	}
	home, _ := api.HomeDir()
	shownRelative(&a, ws, home)
	if dec.Rule != nil {
		a.Rule, a.Source = dec.Rule.Text, dec.Rule.Source
	}
	// How it runs once allowed: confined to what it was judged to need
	// (the network, the paths it writes), or not, as the person chooses;
	// the first choice is the default, the unconfined one when it failed
	// confined a moment ago.
	var approved *api.Confinement
	if !resp.Sandbox {
		approved = d.approvedFor(cfg, r, dec)
	}
	if approved != nil {
		confined := api.RunChoice{ID: api.RunConfined, Text: "Confined: " + approved.Brief()}
		unconfined := api.RunChoice{ID: api.RunUnconfined, Text: "Not confined: with all your rights"}
		if d.sessions.failedConfined(r.Agent, r.Session, commandOf(r.Args), time.Now()) {
			unconfined.Text += " (it failed confined a moment ago)"
			a.Runs = []api.RunChoice{unconfined, confined}
		} else {
			a.Runs = []api.RunChoice{confined, unconfined}
		}
	}
	p, err := d.broker.submit(a, cfg.ApprovalTimeout())
	if err != nil {
		resp.Decision, resp.By = policy.Deny, api.ByOverflow
		resp.Reason = "denied: " + err.Error() + " (the call would have asked: " + dec.Reason + ")"
		return d.finish(ctx, r, rec, resp, subject)
	}
	resp.ApprovalID = p.ID
	req := *rec
	req.Event, req.ApprovalID, req.Decision, req.By = "approval.requested", p.ID, "ask", ""
	req.Shown = &audit.Shown{Why: a.Why, Commands: a.Commands, Effects: a.Effects, Impact: a.Impact, Remember: a.Remember, Runs: a.Runs}
	if err := d.audit.Append(ctx, &req); err != nil {
		d.broker.settle(p.ID, outcome{Answer: api.Answer{Decision: policy.Deny}, by: api.ByShutdown})
		return nil, fmt.Errorf("audit log: %w", err)
	}
	if prompter != nil {
		go func() {
			ans, err := prompter.p.Ask(p.ctx, p.Approval)
			if p.ctx.Err() != nil {
				return // settled elsewhere, or expired
			}
			if err != nil {
				d.broker.settle(p.ID, outcome{Answer: api.Answer{Decision: policy.Deny, Reason: err.Error(), Via: prompter.via}, by: api.ByPrompter})
				return
			}
			if ans.Via == "" {
				ans.Via = prompter.via
			}
			d.answer(p.ID, ans)
		}()
	}
	var o outcome
	select {
	case o = <-p.result:
	case <-ctx.Done():
		// The agent gave up on the call (its own hook timeout, a kill).
		d.broker.settle(p.ID, outcome{Answer: api.Answer{Decision: policy.Deny, Reason: "the agent stopped waiting"}, by: api.ByShutdown})
		o = <-p.result
	}
	resp.By, resp.Via, resp.Note = o.by, o.Via, o.Reason
	if o.Decision == policy.Allow {
		resp.Decision, resp.Scope = policy.Allow, o.Scope
		resp.Reason = "a person allowed it (" + string(o.Scope) + "): " + dec.Reason
		if runsConfined(a.Runs, o.Runs) {
			resp.Sandbox, resp.Confine = true, approved
			d.sessions.confinedCall(r.Agent, r.Session, r.ToolUseID, commandOf(r.Args), approved.Describe(), time.Now())
		}
	} else {
		resp.Decision, resp.Scope = policy.Deny, api.ScopeDeny
		switch o.by {
		case api.ByTimeout:
			resp.Reason = "nobody answered in time, so it is denied: " + dec.Reason
		case api.ByPerson:
			resp.Reason = "the person denied it: " + dec.Reason
		default:
			resp.Reason = "denied (" + o.Reason + "): " + dec.Reason
		}
	}
	ev := *rec
	ev.ApprovalID, ev.Scope, ev.Note, ev.Via = p.ID, resp.Scope, o.Reason, o.Via
	switch {
	case o.by == api.ByTimeout:
		ev.Event = "approval.expired"
	case o.Decision == policy.Allow:
		ev.Event = "approval.granted"
	default:
		ev.Event = "approval.denied"
	}
	ev.Decision, ev.By = resp.Decision.String(), resp.By
	var chosen []policy.Grant
	confinedRun := o.Decision == policy.Allow && runsConfined(a.Runs, o.Runs)
	if o.Decision == policy.Allow {
		chosen = d.remembers(dec, o.Scope, chosenGrants(a.Remember, o.Remember))
		for _, g := range chosen {
			what := g.String()
			if confinedRun {
				what += " (to run confined)"
			}
			ev.Remembered = append(ev.Remembered, what)
		}
	}
	if err := d.audit.Append(context.WithoutCancel(ctx), &ev); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	// What the answer reaches beyond this call is put in force only once
	// the answer is in the log.
	if o.Decision == policy.Allow {
		if confinedRun {
			d.rememberConfined(r, snap, o.Scope, chosen)
		} else {
			d.remember(r, snap, o.Scope, chosen)
		}
		d.sessions.personAllowed(r.Agent, r.Session, callKey(r.Tool, r.Cwd, r.Args), time.Now())
		// What can be kept of what it destroys is kept: the person saw
		// why it asked, and a copy of the rest costs them nothing.
		if len(dec.Keep) > 0 {
			if kept, err := d.keep(ctx, r, nil, dec.Keep, subject); err != nil {
				d.logger.Printf("undo: %v", err)
				resp.Reason += " (agate could not keep a copy: " + undo.Why(err) + ")"
			} else {
				resp.Kept = kept
				resp.Reason += keptNote(kept)
			}
		}
		d.sessions.wrote(r.Agent, r.Session, dec.Effects, keptPaths(resp.Kept), time.Now())
	}
	return d.finish(ctx, r, rec, resp, subject)
}

// finish is the end of every decision: the answer's last word on
// confinement (only an allow runs confined), the final record in the
// audit log, the record a call handed to the agent's own prompt waits
// with for its outcome, the counts, and the event the tray and the
// watchers see.
func (d *Daemon) finish(ctx context.Context, r *api.DecideRequest, rec *audit.Record, resp *api.DecideResponse, subject string) (*api.DecideResponse, error) {
	if resp.Decision != policy.Allow {
		resp.Sandbox, resp.Confine = false, nil
	}
	rec.Confined = resp.Confine.Describe()
	if resp.Decision == policy.Allow {
		rec.Kept = resp.Kept
	} else {
		resp.Kept = nil // the copies stay, in case; the call does not run
	}
	rec.Decision, rec.By, rec.Via, rec.ApprovalID, rec.Scope, rec.Reason =
		resp.Decision.String(), resp.By, resp.Via, resp.ApprovalID, resp.Scope, resp.Reason
	if err := d.audit.Append(context.WithoutCancel(ctx), rec); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	d.expectOutcome(r, rec, resp)
	d.counts.add(resp)
	d.hub.publish(api.Event{Type: "decision", Time: time.Now(), Decision: resp, Agent: r.Agent, Tool: r.Tool, Subject: subject, Pending: d.broker.count()})
	return resp, nil
}

// rewritable reports whether agate can rewrite the call to run confined
// (api.Rewritable: Claude Code's Bash, Gemini CLI's run_shell_command,
// Codex's Bash). Codex's PermissionRequest (Reasks) cannot be rewritten,
// nor a call the agent runs in a sandbox of its own that agate's cannot
// start within (AgentSandbox): they are judged as without confinement.
func rewritable(r *api.DecideRequest) bool {
	return api.Rewritable(r.Agent, r.Tool) && !r.Reasks && r.AgentSandbox == ""
}

// remembers returns the grants an allow at scope leaves in force: none for
// once, the tool with any parameters for session_any, else the ones the
// person chose from what the popup offered.
func (d *Daemon) remembers(dec policy.Decision, scope api.Scope, chosen []policy.Grant) []policy.Grant {
	switch scope {
	case api.ScopeOnce, api.ScopeDeny, "":
		return nil
	case api.ScopeSessionAny:
		if dec.Grant.Tool == "" {
			return nil
		}
		return []policy.Grant{{Tool: dec.Grant.Tool, Any: true}}
	}
	return chosen
}

// rememberConfined puts in force what an answer to run a call confined
// remembers: grants kept apart from the others (in the session, the run,
// or saved marked confined), whose calls run confined as this one was
// allowed to, and never unconfined.
func (d *Daemon) rememberConfined(r *api.DecideRequest, snap snapshot, scope api.Scope, chosen []policy.Grant) {
	now := time.Now()
	switch scope {
	case api.ScopeOnce, api.ScopeDeny, "":
		return
	case api.ScopeAlways:
		err := grants.Update(d.paths.Grants, func(gs *grants.Set) error {
			for _, g := range chosen {
				gs.AddConfined(r.Agent, g)
			}
			return nil
		})
		if err == nil {
			d.ReloadGrants()
			return
		}
		d.logger.Printf("save grants for %s: %v", r.Agent, err)
		scope = api.ScopeSession // they still hold for this session
	}
	run := ""
	if scope == api.ScopeRun {
		run = snap.run
	}
	for _, g := range chosen {
		d.sessions.grantConfined(r.Agent, r.Session, run, g, now)
	}
}

// remember records what a person's allow reaches beyond this call:
// grants, the ones the person chose from what the popup offered (the
// narrowest by default).
func (d *Daemon) remember(r *api.DecideRequest, snap snapshot, scope api.Scope, chosen []policy.Grant) {
	now := time.Now()
	if len(chosen) == 0 {
		return
	}
	switch scope {
	case api.ScopeRun:
		for _, g := range chosen {
			d.sessions.grantRun(r.Agent, r.Session, snap.run, g, now)
		}
	case api.ScopeSession, api.ScopeSessionAny:
		for _, g := range chosen {
			d.sessions.grant(r.Agent, r.Session, g, now)
		}
	case api.ScopeAlways:
		err := grants.Update(d.paths.Grants, func(gs *grants.Set) error {
			for _, g := range chosen {
				gs.Add(r.Agent, g)
			}
			return nil
		})
		if err != nil {
			d.logger.Printf("save grants for %s: %v", r.Agent, err)
			// They still hold for this session.
			for _, g := range chosen {
				d.sessions.grant(r.Agent, r.Session, g, now)
			}
			return
		}
		d.ReloadGrants()
	}
}

// approvedFor is how a call that asks runs once a person allows it to run
// confined: cut to what it was judged to need (the network, the paths it
// writes, each bindable); nil when it cannot be confined here.
func (d *Daemon) approvedFor(cfg *policy.Config, r *api.DecideRequest, dec policy.Decision) *api.Confinement {
	if !dec.Approved.Possible || !d.confinesUnasked(cfg, r) {
		return nil
	}
	approved := d.confinementFor(cfg, r, dec.Approved)
	approved.Net = dec.Approved.Net
	if approved.Writable = bindable(approved.Writable); approved.Writable == nil {
		return nil
	}
	return approved
}

// bindable returns the paths the sandbox can make writable for a call
// that writes ws: each path that is there, or, for one that is not yet,
// its folder; nil (no confinement can hold the call) when a folder is
// not there either, or is the root or the home folder. An empty ws is an
// empty, non-nil list.
func bindable(ws []string) []string {
	out := []string{}
	home, _ := os.UserHomeDir()
	for _, w := range ws {
		if _, err := os.Lstat(w); err == nil {
			out = append(out, w)
			continue
		}
		dir := filepath.Dir(w)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() || dir == "/" || dir == home {
			return nil
		}
		if !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	return out
}

// runsConfined reports whether an allow that chose choice ("" for the
// first) of the runs offered runs confined.
func runsConfined(runs []api.RunChoice, choice string) bool {
	if len(runs) == 0 {
		return false
	}
	if choice == "" {
		choice = runs[0].ID
	}
	return choice == api.RunConfined
}

// api.Answer answers a waiting approval, as a person would in the tray or a
// terminal. It reports whether the approval was still waiting.
func (d *Daemon) Answer(id string, a api.Answer) bool { return d.answer(id, a) }

func (d *Daemon) answer(id string, a api.Answer) bool {
	if a.Decision != policy.Allow {
		a.Decision, a.Scope, a.Remember = policy.Deny, api.ScopeDeny, ""
	} else if a.Scope == "" || a.Scope == api.ScopeDeny {
		a.Scope = api.ScopeOnce
	}
	if a.Remember != "" || a.Runs != "" {
		// Only what the popup offered may be remembered, or chosen as how
		// the call runs: an answer naming anything else is refused, and
		// the call denied.
		ap, ok := d.broker.get(id)
		if !ok {
			return false
		}
		switch {
		case a.Remember != "" && !offered(ap.Remember, a.Remember):
			a = api.Answer{Decision: policy.Deny, Scope: api.ScopeDeny, Via: a.Via,
				Reason: "the answer would remember " + a.Remember + ", which was not offered"}
		case a.Runs != "" && !slices.ContainsFunc(ap.Runs, func(c api.RunChoice) bool { return c.ID == a.Runs }):
			a = api.Answer{Decision: policy.Deny, Scope: api.ScopeDeny, Via: a.Via,
				Reason: "the answer would run the call " + a.Runs + ", which was not offered"}
		}
	}
	if a.Scope == api.ScopeRun {
		// this_run exists only while the run is tainted.
		if ap, ok := d.broker.get(id); ok && !ap.Tainted {
			a.Scope = api.ScopeOnce
		}
	}
	return d.broker.settle(id, outcome{Answer: a, by: api.ByPerson})
}

// Pending lists the approvals waiting for a person, in fair order.
func (d *Daemon) Pending() []api.Approval { return d.broker.list() }

// Subscribe returns a channel of events and a function that ends the
// subscription. With approver set ("terminal"), the subscriber counts as a
// person who can be asked while it is subscribed.
func (d *Daemon) Subscribe(approver string) (<-chan api.Event, func()) {
	s := d.hub.subscribe(approver)
	return s.ch, func() { d.hub.unsubscribe(s) }
}

// Taint marks a session's run as having taken in outside content.
func (d *Daemon) Taint(t *api.TaintRequest) {
	d.sessions.taint(t.Agent, t.Session, t.Run, time.Now())
}

// StartRun starts a new run in a session.
func (d *Daemon) StartRun(t *api.TaintRequest) string {
	return d.sessions.newRun(t.Agent, t.Session, t.Run, time.Now())
}

// Sessions describes the live sessions.
func (d *Daemon) Sessions() []api.SessionInfo { return d.sessions.list() }

// SavedGrants returns the saved grants, per agent.
func (d *Daemon) SavedGrants() map[string][]string {
	g := d.grants.Load()
	out := map[string][]string{}
	for _, a := range g.Agents() {
		for _, gr := range g.For(a) {
			out[a] = append(out[a], gr.String())
		}
		for _, gr := range g.ConfinedFor(a) {
			out[a] = append(out[a], gr.String()+api.ConfinedGrantSuffix)
		}
	}
	return out
}

// RevokeGrants removes an agent's saved grants (all, or tool's).
func (d *Daemon) RevokeGrants(agent, tool string) error {
	found := false
	err := grants.Update(d.paths.Grants, func(g *grants.Set) error {
		found = g.Revoke(agent, tool)
		return nil
	})
	if err != nil {
		return err
	}
	d.ReloadGrants()
	if !found {
		return fmt.Errorf("%w: no saved grant for %s %s", api.ErrNotFound, agent, tool)
	}
	return nil
}

// Status reports the daemon's state.
func (d *Daemon) Status() *api.Status {
	st := d.state.Load()
	s := &api.Status{
		Version: version.Version, PID: os.Getpid(), Socket: d.paths.Socket, Mode: st.pol.Mode().String(),
		PolicySource: cmp.Or(st.cfg.Source, d.paths.Config), LoadedAt: st.loadedAt, Prompters: d.Prompters(),
		Pending: d.broker.count(), Counts: d.counts.snapshot(), Sessions: d.sessions.count(),
		Started: d.started, AuditLog: d.audit.Path(),
	}
	diag := d.SandboxDiagnostics(context.Background())
	s.Sandbox = &diag
	s.Export = d.exportStatus()
	if c := d.containers.Load(); c != nil {
		s.Containers = *c
	}
	_, s.ConfineUnasked = d.ConfineUnasked(context.Background())
	if s.Prompters == nil {
		s.Prompters = []string{}
	}
	if _, paused, _ := config.Paused(d.paths); paused {
		s.Paused = true
	}
	if st.err != nil {
		s.ConfigError = st.err.Error()
	}
	var err error
	if s.Leaks, err = d.Leaks(); err != nil {
		s.LeaksError = err.Error()
	}
	s.Proxies = d.proxies.status()
	s.Managed = config.ManagedStatus(st.cfg)
	return s
}

// SandboxDiagnostics reports what the sandbox can do here, from a real
// probe, cached until the sandbox's config changes.
func (d *Daemon) SandboxDiagnostics(ctx context.Context) sandbox.Diagnostics {
	cfg, _ := d.Config()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	return d.prober.Get(ctx, machine.SandboxOptions(cfg, d.paths, os.TempDir()))
}

// Close denies every waiting approval, ends the MCP proxies' registrations
// and closes the audit log.
func (d *Daemon) Close() error {
	d.broker.closeAll()
	d.proxies.closeAll()
	d.mu.Lock()
	if d.listener != nil {
		d.listener.Close()
	}
	d.mu.Unlock()
	d.pasted.close() // the prompt scans waiting end first: they write the audit log
	return d.audit.Close()
}

// responseFor turns a policy decision into the API's answer.
func responseFor(dec policy.Decision) *api.DecideResponse {
	r := &api.DecideResponse{Decision: dec.Verdict, Layer: dec.Layer, Category: dec.Category, Risks: dec.Risks.List(), Reason: dec.Reason}
	if dec.Rule != nil {
		r.Rule, r.Source = dec.Rule.Text, dec.Rule.Source
	}
	return r
}

// offeredScopes are the answers a person may give to a call.
func offeredScopes(dec policy.Decision) []api.Scope {
	s := []api.Scope{api.ScopeOnce}
	if dec.Tainted {
		s = append(s, api.ScopeRun)
	}
	if dec.Grant.Tool != "" && len(dec.Proposals) > 0 {
		s = append(s, api.ScopeSession, api.ScopeSessionAny, api.ScopeAlways)
	} else if dec.Grant.Tool != "" && !dec.Risks.Has(policy.Secret) {
		s = append(s, api.ScopeSessionAny)
	}
	return append(s, api.ScopeDeny)
}

// record starts an audit record for a call.
func (d *Daemon) record(event string, r *api.DecideRequest, run string, dec policy.Decision, subject string) *audit.Record {
	rec := &audit.Record{
		Event: event, Agent: r.Agent, Session: r.Session, Run: run, Tool: r.Tool, Category: dec.Category,
		Risks: dec.Risks.List(), Subject: truncate(subject, audit.MaxSubject), Cwd: r.Cwd, Decision: dec.Verdict.String(),
		Layer: string(dec.Layer), Reason: dec.Reason, Tainted: dec.Tainted, ToolUseID: r.ToolUseID,
	}
	if dec.Rule != nil {
		rec.Rule, rec.Source = dec.Rule.Text, dec.Rule.Source
	}
	if name, ok := strings.CutPrefix(r.Agent, tokenPrefix); ok {
		rec.Token = name
	}
	if name, ok := strings.CutPrefix(r.Agent, containerPrefix); ok {
		rec.Container = name
	}
	return rec
}

// counters count decisions by verdict and answerer.
type counters struct {
	mu sync.Mutex
	m  map[string]int64
}

func (c *counters) add(r *api.DecideResponse) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]int64{}
	}
	c.m[r.Decision.String()]++
	c.m["by_"+string(r.By)]++
	c.m["total"]++
	c.mu.Unlock()
}

func (c *counters) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.m))
	for k, v := range c.m {
		out[k] = v
	}
	return out
}
