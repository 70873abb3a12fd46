package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Command is one simple command of a shell call, as a decision reports
// it: what the person sees in the popup and the audit log records.
type Command struct {
	Text    string   // the command as resolved
	Prefix  []string // program, subcommands, key operands: what a grant for it names
	Effects []Effect // what it does
	// Free says it would run unasked on its own: it only reads, edits
	// the project, or runs the project's code with a person there.
	Free bool
	// Granted names the grant that covers it, if one does.
	Granted string
	// Why says why it asks, when it is neither free nor granted.
	Why string
}

// freedom is how a simple command would be decided on its own.
type freedom uint8

const (
	notFree     freedom = iota
	freeRead            // it only reads paths that hold no secret
	freeLocal           // it also GETs a page of a server on this machine's loopback, or reads the service its tool is set up for
	freeEdit            // it edits the project, and edits are pre-approved
	freeProject         // it runs the project's own code, with a person who could have been asked
	freeTrusted         // its writes are under trusted_dirs, its hosts trusted_domains
	freeSandbox         // it runs the project's code, confined by the sandbox
	freeUnknown         // it does what agate cannot tell, and runs in the sandbox read-only
)

// decideShell decides a shell call from its simple commands: it runs
// unasked only when each is free on its own or covered by a grant.
func (p *Policy) decideShell(c *call, mode Mode, agent *agentPolicy, withdrawn bool) Decision {
	cmds := c.shell.cmds
	c.cmdState = make([]cmdState, len(cmds))
	var firstGrant *RuleRef
	var kinds freedom
	sandboxed := false
	asking, unknownAt := -1, -1
	for i := range cmds {
		st := &c.cmdState[i]
		f, why := p.free(c, &cmds[i], mode, withdrawn)
		if f != notFree {
			st.free = true
			if f == freeSandbox || f == freeUnknown {
				sandboxed = true
			}
			if f == freeUnknown && unknownAt < 0 {
				unknownAt = i
			}
			kinds = max(kinds, f)
			continue
		}
		st.why = why
		if ref := p.grantFor(c, &cmds[i], agent, withdrawn); ref != nil {
			st.granted = ref.Text
			if firstGrant == nil {
				firstGrant = ref
			}
			continue
		}
		if asking < 0 {
			asking = i
		}
	}
	if asking < 0 && unknownAt >= 0 {
		// What agate cannot tell runs confined read-only, or not unasked:
		// with the project writable it could destroy it.
		if conf := c.confinement(); !conf.Possible || !conf.ReadOnly() {
			asking = unknownAt
			c.cmdState[asking].free = false
			c.cmdState[asking].why = "it does what agate cannot tell (" + firstUnknown(cmds[asking].effects) +
				"), and the call also writes: agate lets it run unasked only confined read-only"
		}
	}
	if asking >= 0 {
		why := c.cmdState[asking].why
		if len(cmds) > 1 {
			why = fmt.Sprintf("`%s` %s", cmds[asking].text, why)
		}
		switch {
		case withdrawn && why == "":
			why = "the run has taken in outside content, so pre-approvals do not apply"
		case withdrawn:
			why += "; the run has taken in outside content, so pre-approvals do not apply"
		}
		layer := c.askLayer(asking)
		if c.cmdState[asking].why == "" {
			layer = LayerDefault // free on its own, but the run is tainted
		}
		return Decision{Verdict: Ask, Layer: layer, Reason: why}
	}
	if firstGrant != nil {
		return Decision{Verdict: Allow, Layer: LayerGrant, Rule: firstGrant,
			Reason: fmt.Sprintf("granted (%s), and the rest only reads or edits the project", firstGrant.Text)}
	}
	d := Decision{Verdict: Allow, Layer: LayerRisk, Sandbox: sandboxed}
	switch {
	case sandboxed && unknownAt >= 0:
		d.Reason = "agate cannot tell all it does, so it runs in the sandbox read-only (no writes but a private /tmp, no network, no secrets)"
	case sandboxed:
		d.Reason = "it runs the project's own code, confined in the sandbox (writes only in the project, no network, no secrets)"
	case kinds == freeProject:
		d.Reason = "it runs the project's own code, and a person could have been asked"
	case kinds == freeTrusted:
		d.Layer, d.Reason = LayerTrusted, "what it writes is under a trusted folder, and the hosts it reaches are trusted"
	case kinds == freeEdit && mode == ModeAcceptEdits:
		d.Layer, d.Reason = LayerAcceptEdits, "mode is accept_edits, and it only edits the project"
	case kinds == freeEdit:
		d.Layer, d.Reason = LayerAutoApprove, "it only edits the project, and fs edits are pre-approved (auto_approve)"
	case kinds == freeLocal:
		d.Reason = "it only reads: " + remoteReads(cmds) + ", and nothing it reads holds secrets"
	default:
		d.Reason = "it only reads, with programs agate knows, and nothing it reads holds secrets"
	}
	return d
}

// remoteReads says what the commands read over the network: the pages
// of servers on this machine they GET, the services they read.
func remoteReads(cmds []simpleCmd) string {
	var hosts, services []string
	for _, cmd := range cmds {
		for _, e := range cmd.effects {
			switch {
			case e.Kind != EffNetwork:
			case e.Local && !slices.Contains(hosts, e.Host):
				hosts = append(hosts, e.Host)
			case e.Service && !e.Local && !slices.Contains(services, e.What):
				services = append(services, e.What)
			}
		}
	}
	var says []string
	if len(hosts) > 0 {
		says = append(says, "a GET of a server on this machine ("+strings.Join(hosts, ", ")+")")
	}
	return strings.Join(append(says, services...), "; ")
}

// cmdState is what deciding a call found of each simple command.
type cmdState struct {
	free    bool
	granted string
	why     string
}

// askLayer is the layer an asking command is reported under.
func (c *call) askLayer(i int) Layer {
	for _, e := range c.shell.cmds[i].effects {
		if e.Kind == EffUnknown {
			return LayerDefault
		}
	}
	return LayerRisk
}

// free says how a simple command would run on its own, or why it asks.
func (p *Policy) free(c *call, sc *simpleCmd, mode Mode, withdrawn bool) (freedom, string) {
	r := c.req
	best := freeRead
	for _, e := range sc.effects {
		switch e.Kind {
		case EffNone:
		case EffRead:
			if e.Path == "" && r.Sandbox && !withdrawn {
				best = max(best, freeUnknown) // the sandbox hides the secrets it might name
				continue
			}
			if e.Path == "" {
				return notFree, "it " + e.describe()
			}
		case EffWrite, EffDelete:
			if e.Path == "" {
				return notFree, "it " + e.describe()
			}
			if bad, why := c.destructive(e, true); bad {
				return notFree, why
			}
			c.keepEdit(e)
			inProject := c.inProject(e.Path)
			switch {
			case inProject && (mode == ModeAcceptEdits || p.autoApprove["fs"]):
				best = max(best, freeEdit)
			case p.trustedFor(e.Path) != nil:
				best = max(best, freeTrusted)
			case inProject:
				return notFree, "it " + e.describe() + ", and fs edits are not pre-approved"
			default:
				return notFree, "it " + e.describe() + ", outside the project"
			}
		case EffProject:
			switch {
			case r.Sandbox:
				best = max(best, freeSandbox)
			case r.Interactive:
				best = max(best, freeProject)
			default:
				return notFree, "it " + e.describe() + " (" + e.What + "), and nobody could be asked: the free pass for the project's code needs a person on the other end"
			}
		case EffNetwork:
			if e.Host != "" && p.trustedDomainFor(e.Host) != nil && !strings.Contains(e.What, "runs") {
				best = max(best, freeTrusted)
				continue
			}
			if e.Local && e.Host != "" || e.Service && e.What != "" {
				best = max(best, freeLocal)
				continue
			}
			return notFree, "it " + e.describe()
		case EffUnknown:
			if r.Sandbox && !withdrawn {
				best = max(best, freeUnknown)
				continue
			}
			return notFree, "it " + e.describe()
		default:
			return notFree, "it " + e.describe()
		}
	}
	if withdrawn && best != freeTrusted {
		// Taint withdraws the free passes; trusted scopes still hold.
		return notFree, ""
	}
	return best, ""
}

// inProject reports whether p is in the project (the workspace, or the
// folder the call runs in).
func (c *call) inProject(p string) bool {
	ws := c.req.Workspace
	if ws == "" {
		ws = c.req.Cwd
	}
	return ws != "" && ws != "/" && within(p, ws)
}

// grantFor returns the grant that covers a simple command, if one does:
// the run's grants even while tainted, the others only while not.
func (p *Policy) grantFor(c *call, sc *simpleCmd, agent *agentPolicy, withdrawn bool) *RuleRef {
	r := c.req
	freeEff := func(e Effect) bool {
		switch e.Kind {
		case EffNone:
			return true
		case EffRead:
			return e.Path != ""
		case EffWrite, EffDelete:
			bad, _ := c.destructive(e, true)
			return !bad && e.Path != "" && c.inProject(e.Path) && p.autoApprove["fs"] && !withdrawn
		}
		return false
	}
	risks := effectSet(sc.effects).risks()
	try := func(g Grant, ref RuleRef) *RuleRef {
		if g.narrow {
			if c.t.matches(g.Tool) && g.coversEffects(sc.prefix, sc.effects, freeEff) {
				return &ref
			}
			return nil
		}
		if g.covers(&c.t, risks) {
			return &ref
		}
		return nil
	}
	for _, g := range r.RunGrants {
		if ref := try(g, RuleRef{Text: g.String(), Source: "this run"}); ref != nil {
			return ref
		}
	}
	if withdrawn {
		return nil
	}
	if agent != nil {
		for i := range agent.grants {
			if ref := try(agent.grants[i].Grant, agent.grants[i].ref); ref != nil {
				return ref
			}
		}
	}
	for _, g := range r.Grants {
		if ref := try(g, RuleRef{Text: g.String(), Source: "grant"}); ref != nil {
			return ref
		}
	}
	return nil
}

// readOnly reports whether a shell call only reads: every simple command
// has effects of reading known paths and nothing else.
func (c *call) readOnly() bool {
	if c.shell == nil || c.shell.err != nil || c.shell.guard != "" {
		return false
	}
	for _, e := range c.effects {
		if e.Kind != EffRead && e.Kind != EffNone || e.Path == "" && e.Kind == EffRead {
			return false
		}
	}
	return true
}

// unknownWrite reports whether the call writes or deletes a path not
// known from its text.
func (c *call) unknownWrite() bool {
	for _, e := range c.effects {
		if (e.Kind == EffWrite || e.Kind == EffDelete) && e.Path == "" {
			return true
		}
	}
	return false
}

// onlyEdits reports whether a shell call does nothing but read and write
// known paths (no delete, no network, no code): an edit like a file
// tool's.
func (c *call) onlyEdits() bool {
	if c.shell == nil {
		return false
	}
	wrote := false
	for _, e := range c.effects {
		switch {
		case e.Kind == EffNone || e.Kind == EffRead && e.Path != "":
		case e.Kind == EffWrite && e.Path != "":
			wrote = true
		default:
			return false
		}
	}
	return wrote
}

// commands reports the simple commands of a shell call, with what each
// does and how it was decided.
func (c *call) commands() []Command {
	out := make([]Command, len(c.shell.cmds))
	for i := range c.shell.cmds {
		sc := &c.shell.cmds[i]
		out[i] = Command{Text: sc.text, Prefix: sc.prefix, Effects: sc.effects}
		if i < len(c.cmdState) {
			out[i].Free, out[i].Granted, out[i].Why = c.cmdState[i].free, c.cmdState[i].granted, c.cmdState[i].why
		}
	}
	return out
}

// proposals are the narrow grants a person's "session" or "always"
// answer records: for a shell call, one per simple command that asked,
// naming its prefix and its effects in their scopes; for another tool,
// the tool and the scopes of its paths and hosts.
func (p *Policy) proposals(c *call) []Grant {
	tool := c.t.name
	if c.t.known && c.t.canonical != "" && !strings.ContainsAny(c.t.canonical, "*?[") {
		tool = c.t.canonical
	}
	tool = escapeGlob(tool)
	if c.shell == nil {
		if c.risks&Risks(Secret) != 0 {
			return nil
		}
		if !c.t.known {
			return []Grant{{Tool: tool, Any: true}}
		}
		return []Grant{NewNarrowGrant(tool, nil, p.scopes(c, c.effects))}
	}
	var out []Grant
	for i := range c.shell.cmds {
		if i < len(c.cmdState) && (c.cmdState[i].free || c.cmdState[i].granted != "") {
			continue
		}
		sc := &c.shell.cmds[i]
		if len(sc.prefix) == 0 {
			continue
		}
		g := NewNarrowGrant(tool, sc.prefix, p.scopes(c, sc.effects))
		dup := false
		for _, o := range out {
			dup = dup || o.Equal(g)
		}
		if !dup && !effectSet(sc.effects).has(EffSecret) && !effectSet(sc.effects).has(EffPersist) {
			out = append(out, g)
		}
	}
	return out
}

// scopes are the narrowest useful scopes of effects: a write or delete
// in the project's folder it is in (its first level: build/, src/), one
// outside in its own folder; a host as it is.
func (p *Policy) scopes(c *call, effs []Effect) []GrantEffect {
	var out []GrantEffect
	add := func(ge GrantEffect) {
		for _, o := range out {
			if o == ge {
				return
			}
		}
		out = append(out, ge)
	}
	ws := c.req.Workspace
	if ws == "" {
		ws = c.req.Cwd
	}
	for _, e := range effs {
		switch e.Kind {
		case EffNone, EffRead, EffSecret, EffPersist:
		case EffWrite, EffDelete:
			add(GrantEffect{Kind: e.Kind, Under: narrowFolder(e.Path, ws)})
		case EffNetwork, EffUpload:
			add(GrantEffect{Kind: e.Kind, Under: e.Host})
		default:
			add(GrantEffect{Kind: e.Kind})
		}
	}
	return out
}

// narrowFolder is the folder a grant for a write to p names: in the
// project, its first folder below the root (build/ for build/out/x), or
// the root for a file at the top; outside, p's own folder (or p, when p
// is a folder being deleted: its parent would cover siblings).
func narrowFolder(p, ws string) string {
	if p == "" {
		return ""
	}
	if ws != "" && ws != "/" && within(p, ws) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, ws), "/")
		if first, _, found := strings.Cut(rel, "/"); found {
			return path.Join(ws, first)
		}
		if rel != "" && !strings.Contains(rel, ".") {
			return p // a folder at the top: build
		}
		return ws
	}
	return path.Dir(p)
}

// firstUnknown says the first thing a command does that agate cannot
// tell: an unknown program or option, a read it cannot name.
func firstUnknown(effects []Effect) string {
	for _, e := range effects {
		if e.Kind == EffUnknown || e.Kind == EffRead && e.Path == "" {
			return e.describe()
		}
	}
	return "something"
}
