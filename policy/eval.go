package policy

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/agatehq/agate/policy/shellquote"
	"github.com/agatehq/agate/policy/stores"
)

// escapeGlob makes a tool name a glob that matches only itself: a tool
// named "*" must not be granted as every tool.
func escapeGlob(name string) string {
	if !strings.ContainsAny(name, "*?[") {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if r == '*' || r == '?' || r == '[' {
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// call is what Decide learns about a request before consulting the layers.
type call struct {
	pol *Policy
	req *Request
	// globs are what Request.Glob named, by pattern: a glob is expanded
	// once per call, however many judgments read it.
	globs    map[string]globMatch
	t        toolInfo
	category string // the tool's category; "fs" for a shell command that only edits the project
	risks    Risks
	strs     []string // every string argument, for deny/ask rule globs
	subjects []string // the call's subjects (paths, URLs, the command), for allow rule globs
	paths    []string // every path the call touches, absolute and resolved
	writes   []string // the paths it writes, absolute and resolved
	reads    []string // the paths it reads, absolute and resolved
	hosts    []string // the hosts of its URLs
	shell    *shellAnalysis
	command  string
	cwd      string
	secret   string // what kind of credential the arguments carry
	edit     bool   // a shell command whose only effect is writing inside the project
	err      error  // the call could not be analysed
	// effects are what the call does: for a shell call, every simple
	// command's; for another tool, what its paths and URLs say.
	effects effectSet
	// persist is the first effect that sets something up to run later
	// (protected, like a write to a protected path).
	persist *Effect
	// cmdState is how each simple command of a shell call was decided.
	cmdState []cmdState
	// hinted says what an MCP server's own annotations add ("" when
	// nothing): such a call is allowed unasked only by a rule or a grant.
	hinted string
	// buildOutputs are the build outputs the call deletes or overwrites
	// (FileBuildOutput): the reason of an allow names them.
	buildOutputs []string
	// keeps are what the call destroys that Request.Keep agreed to keep
	// (Decision.Keep), owned what it destroys that the session made
	// itself; kept holds Keep's answer for each path asked about.
	keeps []KeepTarget
	owned []string
	kept  map[string]KeepAnswer
}

// Decide returns the decision for one call. It never fails: a call it
// cannot analyse asks (or, unattended, is denied).
//
// See the package documentation for the order of the layers.
func (p *Policy) Decide(r *Request) Decision {
	c := p.analyse(r)
	d := p.decide(c)
	d.Tool, d.Category, d.Risks, d.Tainted = r.Tool, c.t.category, c.risks, r.Tainted
	d.Effects = c.effects
	if c.shell != nil {
		d.Commands = c.commands()
	}
	if d.Verdict == Allow && c.shell != nil {
		d.Confine = c.confinement()
		if r.FailedConfined && d.Confine.Possible && d.Judged() {
			d = Decision{Verdict: Ask, Layer: LayerRisk,
				Reason: "it ran in agate's sandbox a moment ago and failed there: it may need the network, a secret or a write outside the project (" +
					d.Confine.Why + ")", Effects: d.Effects, Commands: d.Commands, Tool: d.Tool, Category: d.Category, Risks: d.Risks, Tainted: d.Tainted}
		}
	}
	if d.Verdict == Allow && len(c.buildOutputs) > 0 {
		d.Reason += "; what it deletes or overwrites (" + strings.Join(c.buildOutputs, ", ") + ") is build output that git ignores and a build makes again"
	}
	if d.Verdict == Allow && len(c.keeps) > 0 {
		d.Keep = c.keeps
		var paths []string
		for _, k := range c.keeps {
			paths = append(paths, k.Path)
		}
		d.Reason += "; nothing is lost: agate keeps a copy of " + strings.Join(paths, ", ")
	}
	if d.Verdict == Allow && len(c.owned) > 0 {
		d.Reason += "; " + strings.Join(c.owned, ", ") + " this session made itself, unchanged since: nothing of yours is lost"
	}
	// A managed ask is put to the person each time: nothing is offered
	// to remember (a grant would never be consulted before it), nor a
	// confined run in its place.
	if d.Verdict == Ask && c.shell != nil && d.Layer != LayerManaged {
		d.Approved = p.approvedConfinement(c)
	}
	if d.Verdict == Ask && d.Layer != LayerManaged {
		g := Grant{Tool: escapeGlob(c.t.name), Risks: c.risks.Without(ungrantable)}
		if c.t.known && c.t.canonical != "" && !strings.ContainsAny(c.t.canonical, "*?[") {
			g.Tool = c.t.canonical
		}
		d.Grant = g
		d.Proposals = p.proposals(c)
	}
	if d.Verdict == Ask {
		if !r.Interactive {
			d.Verdict, d.Unattended = Deny, true
			d.Reason = "nobody can be asked, so it is denied: " + d.Reason
		}
	}
	if d.Verdict == Ask && len(c.keeps) > 0 {
		d.Keep = c.keeps // kept if a person allows it
	}
	return d
}

func (p *Policy) decide(c *call) Decision {
	r := c.req
	mode := p.AgentMode(r.Agent)
	agent := p.agents[r.Agent]
	trust := agent != nil && agent.trust
	withdrawn := r.Tainted && !trust // taint withdraws pre-approval (layers 7 and 9)

	// 1. hard_deny, before everything.
	for _, i := range p.hardDeny.forTool(&c.t) {
		ru := &p.hardDeny.rules[i]
		if m, what := p.ruleMatches(ru, c); m {
			return Decision{Verdict: Deny, Layer: LayerHardDeny, Rule: &ru.ref,
				Reason: fmt.Sprintf("hard_deny %s matched %s", ru.ref.String(), what)}
		}
	}
	// The managed policy's deny and ask rules: before the mode, the
	// person's rules, grants and the sandbox, none of which can loosen
	// them.
	if p.managedRules != nil {
		if d, ok := p.matchRuleList(c, p.managedRules); ok {
			d.Layer = LayerManaged
			d.Reason = "the managed policy's " + d.Reason
			return d
		}
	}
	if p.hasManagedPaths {
		if d, ok := p.managedPaths(c); ok {
			return d
		}
	}
	// What agate cannot read cannot be held to the managed rules and
	// paths: it asks, whatever the mode, a rule or a grant says.
	if (p.managedRules != nil || p.hasManagedPaths) && (c.err != nil || c.risks.Has(Unknown) || c.risks.Has(InlineCode) ||
		c.hinted != "" || func() bool { _, ok := c.effects.first(EffExec); return ok }() || func() bool { _, ok := c.effects.first(EffUnknown); return ok }()) {
		why := "it does what agate cannot tell"
		if c.err != nil {
			why = c.err.Error()
		}
		return Decision{Verdict: Ask, Layer: LayerManaged,
			Reason: "the managed policy's rules and paths cannot be checked against it: " + why}
	}
	// A managed file that cannot be used: what it would have said is not
	// known, so every call that acts asks, before the person's rules and
	// grants.
	if p.managedFailed && c.acts() {
		return Decision{Verdict: Ask, Layer: LayerManaged, Reason: "the managed policy cannot be used, so every call that acts asks"}
	}
	if server, _, isMCP := splitMCPName(r.Tool); (isMCP || !c.t.known) && r.MCP == nil && p.cfg.managed != nil {
		// A server's tool the agent calls itself: no proxy of agate's
		// gates that server, so what it runs is not known. (Some agents
		// name MCP tools SERVER_TOOL or SERVER-TOOL: a tool agate does not
		// know may be one.)
		if list, set := p.cfg.managed.MCPServers(); set {
			what := fmt.Sprintf("no proxy of agate's gates %q", server)
			if !isMCP {
				what = fmt.Sprintf("%s is not a tool agate knows, and may be a server's", r.Tool)
			}
			return Decision{Verdict: Deny, Layer: LayerManaged,
				Reason: fmt.Sprintf("the managed policy (%s) allows MCP servers only through agate's proxy, and only %s; %s", p.cfg.managed.Source, orNone(list), what)}
		}
	}
	// 2. Guardrails: catastrophic shell commands.
	if c.shell != nil && c.shell.guard != "" {
		return Decision{Verdict: Deny, Layer: LayerGuardrail, Reason: "guardrail: " + c.shell.guard}
	}
	// A category switched off in [tools].
	if p.disabled[c.t.category] {
		return Decision{Verdict: Deny, Layer: LayerTools,
			Reason: fmt.Sprintf("the %s category is switched off in [tools]", c.t.category)}
	}
	// 3. Mode. A command agate cannot read is not waved through by yolo:
	// its guardrails could not be checked.
	acts := c.acts()
	if mode == ModePlan && acts {
		return Decision{Verdict: Deny, Layer: LayerMode, Reason: "mode is plan: calls that act are denied"}
	}
	// An MCP tool whose definition is not the one a person approved
	// (the "rug pull"): it asks, whatever a rule, a grant or the mode
	// says.
	if r.MCP != nil && len(r.MCP.Changed) > 0 {
		return Decision{Verdict: Ask, Layer: LayerPin,
			Reason: fmt.Sprintf("the definition of %s changed since it was pinned (%s)", r.Tool, strings.Join(r.MCP.Changed, ", "))}
	}
	switch {
	case c.err != nil:
		return Decision{Verdict: Ask, Layer: LayerParse, Reason: c.err.Error()}
	case mode == ModeYolo:
		return Decision{Verdict: Allow, Layer: LayerMode, Reason: "mode is yolo: every call allows"}
	}
	// 4. Rules, first match wins. An allow rule names a command; for a
	// shell call it does not also allow writing a protected path.
	if d, ok := p.matchRules(c); ok {
		if d.Verdict == Allow && c.shell != nil {
			if w, ref, ok := p.protectedWrite(c); ok {
				return Decision{Verdict: Ask, Layer: LayerProtected, Rule: ref,
					Reason: fmt.Sprintf("rule %s allows the command, but it writes %s, a protected path", d.Rule.String(), w)}
			}
		}
		return d
	}
	// 5. Protected paths, persistence, secret reads, credentials in the
	// arguments.
	if d, ok := p.protectedLayer(c); ok {
		return d
	}
	if mode == ModeManual {
		if !acts && !withdrawn {
			return Decision{Verdict: Allow, Layer: LayerRisk, Reason: "it only reads"}
		}
		return Decision{Verdict: Ask, Layer: LayerMode, Reason: "mode is manual: every call that acts asks"}
	}
	if c.shell != nil {
		return p.decideShell(c, mode, agent, withdrawn)
	}
	// approval_required tools pass only rules and grants; so does a call
	// that does what agate cannot tell (a patch it cannot read).
	implicit := !c.t.approval && !c.risks.Has(Unknown) && c.hinted == ""
	destroys, what := c.destroys()
	// 6. accept_edits: edits in the project allow.
	if mode == ModeAcceptEdits && implicit && !destroys && (c.category == "fs" || c.category == "code") && c.contained() {
		return Decision{Verdict: Allow, Layer: LayerAcceptEdits, Reason: "mode is accept_edits, and this is an edit in the project"}
	}
	// 7. auto_approve categories, then grants.
	if !withdrawn && implicit && !destroys && p.autoApprove[c.category] && c.contained() {
		return Decision{Verdict: Allow, Layer: LayerAutoApprove,
			Reason: c.category + " tools are pre-approved (auto_approve) and this stays in the project"}
	}
	if d, ok := p.grantedTool(c, agent, withdrawn); ok {
		return d
	}
	// 8. Trusted scopes.
	if implicit && !destroys {
		if (c.category == "fs" || c.category == "code") && len(c.paths) > 0 {
			var ref *RuleRef
			all := true
			for _, q := range c.paths {
				t := p.trustedFor(q)
				if t == nil {
					all = false
					break
				}
				ref = t
			}
			if all {
				return Decision{Verdict: Allow, Layer: LayerTrusted, Rule: ref,
					Reason: fmt.Sprintf("its paths are under a trusted folder (%s)", ref.Text)}
			}
		}
		if c.t.category == "web" && len(c.hosts) > 0 && c.risks.SubsetOf(Risks(Network)) {
			var ref *RuleRef
			all := true
			for _, h := range c.hosts {
				t := p.trustedDomainFor(h)
				if t == nil {
					all = false
					break
				}
				ref = t
			}
			if all {
				return Decision{Verdict: Allow, Layer: LayerTrusted, Rule: ref,
					Reason: fmt.Sprintf("%s is a trusted domain", strings.Join(c.hosts, ", "))}
			}
		}
	}
	// 9. Risk.
	if !withdrawn && implicit && !destroys {
		if hosts, ok := c.localFetch(); ok {
			return Decision{Verdict: Allow, Layer: LayerRisk,
				Reason: "it only reads: a GET of a server on this machine (" + strings.Join(hosts, ", ") + ")"}
		}
		switch {
		case c.t.readOnly:
			return Decision{Verdict: Allow, Layer: LayerRisk, Reason: "it only reads, and nothing it reads holds secrets"}
		case c.t.level <= LevelLow && c.risks.Empty() && len(c.writes) == 0:
			return Decision{Verdict: Allow, Layer: LayerRisk, Reason: fmt.Sprintf("the tool's risk is %s", c.t.level)}
		}
	}
	switch {
	case c.t.approval:
		return Decision{Verdict: Ask, Layer: LayerRisk, Reason: fmt.Sprintf("%s always needs approval", c.t.name)}
	case c.hinted != "":
		return Decision{Verdict: Ask, Layer: LayerRisk, Reason: "the server says it " + c.hinted}
	case !c.t.known:
		return Decision{Verdict: Ask, Layer: LayerDefault, Reason: fmt.Sprintf("%s is not a tool agate knows", c.t.name)}
	case destroys:
		return Decision{Verdict: Ask, Layer: LayerRisk, Reason: what}
	case withdrawn && !c.t.readOnly:
		return Decision{Verdict: Ask, Layer: LayerDefault, Reason: "the run has taken in outside content, so pre-approvals do not apply"}
	case withdrawn:
		return Decision{Verdict: Ask, Layer: LayerDefault, Reason: "the run has taken in outside content, so even calls that only read ask"}
	case c.t.level >= LevelHigh:
		return Decision{Verdict: Ask, Layer: LayerRisk, Reason: fmt.Sprintf("the tool's risk is %s", c.t.level)}
	case len(c.writes) > 0 && !c.contained():
		return Decision{Verdict: Ask, Layer: LayerDefault, Reason: "it writes outside the project: " + strings.Join(c.outside(), ", ")}
	}
	return Decision{Verdict: Ask, Layer: LayerDefault, Reason: fmt.Sprintf("nothing pre-approves %s (%s)", c.t.name, c.t.category)}
}

// grantedTool runs the grants for a call that is not a shell command:
// the run's (even while tainted), then the agent's and the person's.
func (p *Policy) grantedTool(c *call, agent *agentPolicy, withdrawn bool) (Decision, bool) {
	r := c.req
	for _, g := range r.RunGrants {
		if p.toolGrantCovers(g, c) {
			ref := RuleRef{Text: g.String(), Source: "this run"}
			return Decision{Verdict: Allow, Layer: LayerGrant, Rule: &ref, Reason: fmt.Sprintf("granted for this run (%s)", g)}, true
		}
	}
	if withdrawn {
		return Decision{}, false
	}
	if agent != nil {
		for i := range agent.grants {
			if p.toolGrantCovers(agent.grants[i].Grant, c) {
				return Decision{Verdict: Allow, Layer: LayerGrant, Rule: &agent.grants[i].ref,
					Reason: fmt.Sprintf("granted to %s (%s)", r.Agent, agent.grants[i].ref.String())}, true
			}
		}
	}
	for _, g := range r.Grants {
		if p.toolGrantCovers(g, c) {
			ref := RuleRef{Text: g.String(), Source: "grant"}
			return Decision{Verdict: Allow, Layer: LayerGrant, Rule: &ref, Reason: fmt.Sprintf("granted (%s)", g)}, true
		}
	}
	return Decision{}, false
}

// toolGrantCovers reports whether a grant covers a call that is not a
// shell command: a broad one by its risks, a narrow one by the effects
// of the call's paths and URLs.
func (p *Policy) toolGrantCovers(g Grant, c *call) bool {
	if !g.narrow {
		cg := compileGrant(g, RuleRef{})
		return cg.covers(&c.t, c.risks)
	}
	if g.Prefix != nil || !c.t.matches(g.Tool) || c.risks&ungrantable != 0 {
		return false
	}
	return g.coversEffects(nil, c.effects, func(e Effect) bool { return e.Kind == EffRead || e.Kind == EffNone })
}

// protectedLayer is layer 5: a write to a protected path, something set
// up to run later, a read of a file that holds secrets, a secret read by
// a command, a credential in the arguments: each asks.
func (p *Policy) protectedLayer(c *call) (Decision, bool) {
	r := c.req
	if w, ref, ok := p.protectedWrite(c); ok {
		return Decision{Verdict: Ask, Layer: LayerProtected, Rule: ref,
			Reason: fmt.Sprintf("it writes %s, a protected path (%s)", w, ref.String())}, true
	}
	if c.persist != nil {
		return Decision{Verdict: Ask, Layer: LayerProtected,
			Reason: "it " + c.persist.describe()}, true
	}
	for _, rd := range c.reads {
		if isTemplate(rd) {
			continue
		}
		if ref, ok := p.secretReads.match(rd); ok {
			return Decision{Verdict: Ask, Layer: LayerProtected, Rule: ref,
				Reason: fmt.Sprintf("it reads %s, which holds secrets (%s)", rd, ref.String())}, true
		}
		if strings.HasSuffix(rd, "/.git/config") && r.Repo != nil {
			if cs := r.Repo(path.Dir(path.Dir(rd))).Credentials; len(cs) > 0 {
				return Decision{Verdict: Ask, Layer: LayerProtected,
					Reason: fmt.Sprintf("it reads %s, where git's config holds a credential (%s)", rd, cs[0])}, true
			}
		}
		if !strings.ContainsAny(rd, "*?[") {
			if ref, pat, ok := p.secretReads.under(rd, p.opts.Home); ok {
				return Decision{Verdict: Ask, Layer: LayerProtected, Rule: ref,
					Reason: fmt.Sprintf("it reads what is in %s, a folder that holds secrets (%s)", rd, pat)}, true
			}
			continue
		}
		if r.Glob != nil {
			if ms, complete := r.Glob(rd); complete {
				for _, m := range ms {
					if r.Resolve != nil {
						m = r.Resolve(m) // a link in the project to a key is the key
					}
					if ref, ok := p.secretReads.match(m); ok {
						return Decision{Verdict: Ask, Layer: LayerProtected, Rule: ref,
							Reason: fmt.Sprintf("it reads %s, which names %s, a file that holds secrets (%s)", rd, m, ref.String())}, true
					}
				}
				continue
			}
		}
		if ref, ok := p.secretReads.matchGlob(rd); ok {
			return Decision{Verdict: Ask, Layer: LayerProtected, Rule: ref,
				Reason: fmt.Sprintf("it reads %s, which may name files that hold secrets (%s)", rd, ref.String())}, true
		}
	}
	if e, ok := c.effects.first(EffSecret); ok {
		return Decision{Verdict: Ask, Layer: LayerProtected, Reason: "it " + e.describe()}, true
	}
	if c.risks.Has(Secret) && c.secret != "" {
		return Decision{Verdict: Ask, Layer: LayerProtected, Reason: "its arguments carry a " + c.secret}, true
	}
	return Decision{}, false
}

// managedPaths is the managed policy's protected and secret paths: a
// write or a read there asks, whatever the mode or the person's rules. A
// path written with a glob counts for each file it names, or for every
// file it may name; a link is its target.
func (p *Policy) managedPaths(c *call) (Decision, bool) {
	r := c.req
	names := func(q string) []string {
		out := []string{q}
		if r.Resolve != nil {
			out = append(out, r.Resolve(q))
		}
		if strings.ContainsAny(q, "*?[") && r.Glob != nil {
			if ms, complete := r.Glob(q); complete {
				for _, m := range ms {
					out = append(out, m)
					if r.Resolve != nil {
						out = append(out, r.Resolve(m))
					}
				}
			}
		}
		return out
	}
	hit := func(set *pathSet, q string) (*RuleRef, bool) {
		for _, n := range names(q) {
			if ref, ok := set.match(n); ok {
				return ref, true
			}
		}
		if strings.ContainsAny(q, "*?[") {
			return set.matchGlob(q)
		}
		return nil, false
	}
	for _, w := range c.writes {
		if ref, ok := hit(&p.mProtected, w); ok {
			return Decision{Verdict: Ask, Layer: LayerManaged, Rule: ref,
				Reason: fmt.Sprintf("it writes %s, a path the managed policy protects (%s)", w, ref.String())}, true
		}
	}
	for _, rd := range c.reads {
		if isTemplate(rd) {
			continue
		}
		ref, ok := hit(&p.mSecrets, rd)
		if !ok && !strings.ContainsAny(rd, "*?[") {
			ref, _, ok = p.mSecrets.under(rd, p.opts.Home)
		}
		if ok {
			return Decision{Verdict: Ask, Layer: LayerManaged, Rule: ref,
				Reason: fmt.Sprintf("it reads %s, which the managed policy says holds secrets (%s)", rd, ref.String())}, true
		}
	}
	return Decision{}, false
}

// textArgs are the arguments of file tools that hold text, not paths:
// a grep pattern or an edit's strings may look like a path.
var textArgs = map[string]bool{"pattern": true, "content": true, "old_string": true, "new_string": true, "prompt": true,
	"description": true, "query": true, "text": true, "body": true, "message": true, "command": true, "new_source": true,
	"edits": true, "todos": true, "plan": true, "type": true, "output_mode": true}

// strayPaths takes, for a file tool agate knows, a path given under an
// argument its catalog entry does not name as one (Read's "path" beside
// "file_path", an absolute Grep "glob") as a path the call reads, or
// writes for a tool that writes: an agent cannot move a read out of the
// project by naming the argument otherwise. A glob counts from its
// literal folder.
func (p *Policy) strayPaths(c *call, r *Request) {
	if !c.t.known || r.MCP != nil || c.t.category != "fs" && c.t.category != "code" {
		return
	}
	named := map[string]bool{c.t.command: true, c.t.patch: true}
	for _, n := range c.t.paths {
		named[n] = true
	}
	for _, n := range c.t.urls {
		named[n] = true
	}
	for _, n := range c.t.workdir {
		named[n] = true
	}
	for _, name := range sortedKeys(r.Args) {
		if named[name] || textArgs[name] && !(name == "pattern" && c.t.lists) {
			continue
		}
		v, ok := r.Args[name].(string)
		if !ok || !(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || v == "~" || strings.HasPrefix(v, "../") || strings.Contains(v, "/../")) {
			continue
		}
		if i := strings.IndexAny(v, "*?[{"); i >= 0 {
			v = path.Dir(v[:i+1])
		}
		q := p.abs(v, r)
		c.paths = append(c.paths, q)
		c.subjects = append(c.subjects, q)
		if c.t.writes {
			c.writes = append(c.writes, q)
			c.effects = append(c.effects, Effect{Kind: EffWrite, Path: q, What: "the path in its " + name + " argument"})
		} else {
			c.reads = append(c.reads, q)
			c.effects = append(c.effects, Effect{Kind: EffRead, Path: q, What: "the path in its " + name + " argument"})
		}
	}
}

// localFetch reports whether the call is a web tool's fetch whose every
// URL is a page of a server on this machine's loopback (loopbackURL, no
// port of localPortsAsk), and names the hosts: a web fetch tool only
// GETs.
func (c *call) localFetch() ([]string, bool) {
	if c.t.category != "web" || len(c.subjects) == 0 || !c.risks.SubsetOf(Risks(Network)) {
		return nil, false
	}
	var hosts []string
	for _, u := range c.subjects {
		h, port, ok := loopbackURL(u)
		if !ok || localPortsAsk[port] {
			return nil, false
		}
		hosts = append(hosts, h)
	}
	return hosts, true
}

// isTemplate reports whether p is a file named like a secret that is a
// template, written to be committed (.env.example).
func isTemplate(p string) bool {
	return stores.Template(p[strings.LastIndexByte(p, '/')+1:])
}

// destroys reports whether the call overwrites or deletes what git cannot
// give back (Anymo's destructive operations), and says what.
func (c *call) destroys() (bad bool, why string) {
	for _, e := range c.effects {
		if b, w := c.destructive(e, c.t.overwrites); b {
			if !bad {
				bad, why = true, w
			}
			if c.req.Keep == nil {
				break
			}
			// Where copies are kept, the rest is looked at too: what a
			// person then allows loses none of what could be kept.
			continue
		}
		if e.Kind == EffWrite && !c.t.overwrites {
			e.Edit = true // an edit tool's write changes the file, as an edit does
		}
		c.keepEdit(e)
	}
	return bad, why
}

// keepEdit keeps, where copies are kept, a copy of a file git cannot
// give back that e changes in place (an edit tool's change, sed -i,
// patch): an edit in the project asks nothing, and a copy of what it
// changes lets it be given back. Where none can be kept it flows as
// before. Only with Request.Keep: Files may run git, on every edit.
func (c *call) keepEdit(e Effect) {
	if c.req.Keep == nil || e.Kind != EffWrite || !e.Edit || e.Append || e.Create || e.Path == "" || c.req.Files == nil {
		return
	}
	if ms, ok := c.globbed(e.Path); ok {
		for _, m := range ms {
			me := e
			me.Path = m
			c.keepEdit(me)
		}
		return
	}
	if c.req.Files(e.Path) == FileUnrecoverable {
		c.keepable(e)
	}
}

// maxGlobbed bounds the files a glob a call writes or deletes is judged
// file by file: past it, what it names is not known.
const maxGlobbed = 1000

// globbed returns the paths a glob p names now (Request.Glob), when p is
// one, they are all known, and there are not too many: what a delete or
// an edit of it reaches, judged one by one.
func (c *call) globbed(p string) ([]string, bool) {
	if !strings.ContainsAny(p, "*?[") || c.req.Glob == nil {
		return nil, false
	}
	if cmd, _ := c.req.Args["command"].(string); globOptions().MatchString(cmd) {
		return nil, false // (the shell's globs are not the ones Glob expands)
	}
	g, ok := c.globs[p]
	if !ok {
		g.ms, g.complete = c.req.Glob(p)
		if c.globs == nil {
			c.globs = map[string]globMatch{}
		}
		c.globs[p] = g
	}
	if !g.complete || len(g.ms) > maxGlobbed {
		return nil, false
	}
	return g.ms, true
}

// globMatch is one answer of Request.Glob.
type globMatch struct {
	ms       []string
	complete bool
}

// globOptions matches a command that may change what the shell's globs
// name (bash's shopt -s dotglob, nocaseglob, extglob, globstar, -O,
// GLOBIGNORE; zsh's setopt and emulate): its globs' matches are not the
// ones Glob finds with the shell's defaults, so they are judged by the
// names they could match, as an incomplete expansion is.
var globOptions = lazyRegexp(`shopt|setopt|unsetopt|emulate|GLOBIGNORE|dotglob|globdots|glob_dots|nocaseglob|nocasematch|extglob|globstar|kshglob|ksh_glob|(^|\s)[-+]O|set\s+[-+]o`)

// destructive reports whether one effect loses what git cannot give back:
// a delete, or a write that replaces a file, of something that is there
// and is not tracked and unchanged.
func (c *call) destructive(e Effect, replaces bool) (bool, string) {
	if e.Kind != EffDelete && (e.Kind != EffWrite || e.Append || e.Create || e.Edit || !replaces) {
		return false, ""
	}
	if e.Path == "" {
		return true, "it " + e.describe()
	}
	if ms, ok := c.globbed(e.Path); ok {
		// What the glob names now, each judged as if named.
		for _, m := range ms {
			me := e
			me.Path = m
			if bad, why := c.destructive(me, replaces); bad {
				return true, why
			}
		}
		return false, ""
	}
	state := FileUnknown
	if c.req.Files != nil {
		state = c.req.Files(e.Path)
	}
	switch state {
	case FileAbsent, FileRecoverable:
		return false, ""
	case FileBuildOutput:
		if !slices.Contains(c.buildOutputs, e.Path) {
			c.buildOutputs = append(c.buildOutputs, e.Path)
		}
		return false, ""
	case FileUnrecoverable:
		ok, whyNot := c.keepable(e)
		if ok {
			return false, ""
		}
		verb := "overwrites"
		if e.Kind == EffDelete {
			verb = "deletes"
		}
		why := fmt.Sprintf("it %s %s, which git cannot give back (untracked, or with uncommitted changes)", verb, e.Path)
		if whyNot != "" {
			why += ", and agate cannot keep a copy: " + whyNot
		}
		return true, why
	}
	verb := "overwrite"
	if e.Kind == EffDelete {
		verb = "delete"
	}
	return true, fmt.Sprintf("it would %s %s, and agate cannot tell whether git could give it back", verb, e.Path)
}

// keepable reports whether what e destroys, which git cannot give back,
// is kept before the call runs (Request.Keep), or needs no keeping (the
// session made it), and records it; when not, it says why, "" when
// nothing could be kept at all (no Keep, a path outside the project and
// the trusted dirs).
func (c *call) keepable(e Effect) (bool, string) {
	r := c.req
	if r.Keep == nil || e.Path == "" {
		return false, ""
	}
	root := c.keepRoot(e.Path)
	if root == "" {
		return false, ""
	}
	a, seen := c.kept[e.Path]
	if !seen {
		a = r.Keep(e.Path, root)
		if c.kept == nil {
			c.kept = map[string]KeepAnswer{}
		}
		c.kept[e.Path] = a
	}
	switch {
	case !a.OK:
		return false, a.Why
	case a.Owned:
		if !slices.Contains(c.owned, e.Path) {
			c.owned = append(c.owned, e.Path)
		}
		return true, ""
	}
	inPlace := e.Kind == EffWrite || c.writesWithin(e.Path)
	for i := range c.keeps {
		if c.keeps[i].Path == e.Path {
			c.keeps[i].InPlace = c.keeps[i].InPlace || inPlace
			return true, ""
		}
	}
	c.keeps = append(c.keeps, KeepTarget{Path: e.Path, Root: root, InPlace: inPlace})
	return true, ""
}

// keepRoot is the folder a kept copy of p is restored within: the
// project, or the trusted dir p lies in; "" for any other path.
func (c *call) keepRoot(p string) string {
	if c.inProject(p) {
		if c.req.Workspace != "" {
			return c.req.Workspace
		}
		return c.req.Cwd
	}
	for i := range c.p().trusted {
		if within(p, c.p().trusted[i].dir) {
			return c.p().trusted[i].dir
		}
	}
	return ""
}

// writesWithin reports whether any effect of the call writes p, or a
// path below it, other than by deleting it.
func (c *call) writesWithin(p string) bool {
	for _, e := range c.effects {
		if e.Kind == EffWrite && e.Path != "" && within(e.Path, p) {
			return true
		}
	}
	return false
}

// protectedWrite returns the first protected path the call writes.
func (p *Policy) protectedWrite(c *call) (string, *RuleRef, bool) {
	for _, w := range c.writes {
		if ref, ok := p.protected.match(w); ok {
			return w, ref, true
		}
	}
	if c.req.Repo == nil {
		return "", nil, false
	}
	seen := map[string]RepoFacts{}
	for _, w := range c.writes {
		// The hooks folder the repository's config names (core.hooksPath)
		// is .git/hooks by another name.
		dir := path.Dir(w)
		rf, ok := seen[dir]
		if !ok {
			rf = c.req.Repo(dir)
			seen[dir] = rf
		}
		if rf.HooksDir != "" && within(w, rf.HooksDir) {
			return w, &RuleRef{Text: rf.HooksDir, Source: "the repository's hooks folder (core.hooksPath)"}, true
		}
	}
	return "", nil, false
}

// acts reports whether the call does anything outside the agent: plan mode
// denies such calls and manual mode asks for them.
func (c *call) acts() bool {
	if c.shell != nil {
		return !c.readOnly()
	}
	if c.t.approval || !c.risks.Empty() || len(c.writes) > 0 {
		return true
	}
	if c.t.readOnly {
		return false
	}
	// Tools of no risk that only change the agent's own state: todo lists,
	// plans, questions to the person.
	return !(c.t.known && c.t.level == LevelNone)
}

// contained reports whether every path the call writes is in the project
// (the workspace) or under a trusted dir. A call that writes nothing is
// contained.
func (c *call) contained() bool {
	return len(c.outside()) == 0 && !c.unknownWrite()
}

// outside returns the written paths that are outside the project and the
// trusted dirs.
func (c *call) outside() []string {
	var out []string
	ws := c.req.Workspace
	if ws == "" {
		ws = c.req.Cwd
	}
	for _, w := range c.writes {
		if ws != "" && ws != "/" && within(w, ws) {
			continue
		}
		if c.p().trustedFor(w) != nil {
			continue
		}
		out = append(out, w)
	}
	return out
}

func (p *Policy) trustedFor(q string) *RuleRef {
	for i := range p.trusted {
		if within(q, p.trusted[i].dir) {
			return &p.trusted[i].ref
		}
	}
	return nil
}

func (p *Policy) trustedDomainFor(host string) *RuleRef {
	for i := range p.domains {
		d := p.domains[i].host
		if host == d || strings.HasSuffix(host, "."+d) {
			return &p.domains[i].ref
		}
	}
	return nil
}

// matchRules runs the first-match rules. For shell calls, the rules are
// run for each simple command: any deny or ask wins (the first such rule
// in order), and allow needs every simple command covered.
func (p *Policy) matchRules(c *call) (Decision, bool) {
	d, ok := p.matchRuleList(c, p.rules)
	if p.projectRules == nil {
		return d, ok
	}
	// A project's rules (deny and ask only) can make the answer stricter,
	// never looser: the stricter of the two stands.
	pd, pok := p.matchRuleList(c, p.projectRules)
	switch {
	case !pok:
		return d, ok
	case !ok || pd.Verdict < d.Verdict:
		return pd, true
	}
	return d, ok
}

// matchRuleList runs one first-match rule list.
func (p *Policy) matchRuleList(c *call, rules *ruleIndex) (Decision, bool) {
	idx := rules.forTool(&c.t)
	if c.shell == nil || len(c.shell.cmds) <= 1 {
		for _, i := range idx {
			ru := &rules.rules[i]
			if m, what := p.ruleMatches(ru, c); m {
				return Decision{Verdict: ru.verdict, Layer: LayerRule, Rule: &ru.ref,
					Reason: fmt.Sprintf("rule %s matched %s", ru.ref.String(), what)}, true
			}
		}
		return Decision{}, false
	}
	// Compound command: the earliest deny/ask rule matching the whole
	// command or any part of it wins.
	for _, i := range idx {
		ru := &rules.rules[i]
		if ru.verdict == Allow {
			continue
		}
		if ru.arg == nil {
			return Decision{Verdict: ru.verdict, Layer: LayerRule, Rule: &ru.ref,
				Reason: fmt.Sprintf("rule %s matched the tool", ru.ref.String())}, true
		}
		if ru.arg.match(c.command) {
			return Decision{Verdict: ru.verdict, Layer: LayerRule, Rule: &ru.ref,
				Reason: fmt.Sprintf("rule %s matched the command", ru.ref.String())}, true
		}
		for _, sc := range c.shell.cmds {
			if denyMatches(ru.arg, &sc) {
				// This rule denies or asks for one part; but an earlier allow
				// rule does not save the whole, so the first deny/ask wins.
				return Decision{Verdict: ru.verdict, Layer: LayerRule, Rule: &ru.ref,
					Reason: fmt.Sprintf("rule %s matched %q in the command", ru.ref.String(), sc.text)}, true
			}
		}
	}
	// Allow only if every simple command is covered by an allow rule. No
	// deny or ask rule matches any part (the loop above would have
	// returned), so only the allow rules are tried.
	var first *rule
	for _, sc := range c.shell.cmds {
		covered := false
		for _, i := range idx {
			ru := &rules.rules[i]
			if ru.verdict != Allow {
				continue
			}
			if ru.arg == nil || ru.arg.match(sc.plain) {
				covered = true
				if first == nil {
					first = ru
				}
				break
			}
		}
		if !covered {
			return Decision{}, false
		}
	}
	if first == nil {
		return Decision{}, false
	}
	return Decision{Verdict: Allow, Layer: LayerRule, Rule: &first.ref,
		Reason: fmt.Sprintf("allow rules cover every command (%s, ...)", first.ref.String())}, true
}

// denyMatches reports whether a deny or ask rule's argument glob matches a
// simple command in any of its forms: as written, without its wrappers,
// with its program's path cut to the base name (/bin/rm is rm).
func denyMatches(g *glob, sc *simpleCmd) bool {
	if g.match(sc.text) {
		return true
	}
	if sc.stripped != sc.text && g.match(sc.stripped) {
		return true
	}
	if sc.based != "" && sc.based != sc.stripped && g.match(sc.based) {
		return true
	}
	return sc.plain != sc.text && g.match(sc.plain)
}

// ruleMatches reports whether a rule matches a non-compound call, and
// what it matched, for the reason.
// The rule's tool glob is known to match (see ruleIndex).
func (p *Policy) ruleMatches(ru *rule, c *call) (bool, string) {
	if ru.arg == nil {
		return true, "the tool " + c.t.name
	}
	if c.shell != nil {
		if ru.verdict != Allow && ru.arg.match(c.command) {
			return true, fmt.Sprintf("%q", c.command)
		}
		for _, sc := range c.shell.cmds {
			if (ru.verdict == Allow && ru.arg.match(sc.plain)) || (ru.verdict != Allow && denyMatches(ru.arg, &sc)) {
				return true, fmt.Sprintf("%q", sc.text)
			}
		}
		if ru.verdict != Allow || len(c.shell.cmds) == 0 {
			return false, ""
		}
	}
	if ru.verdict == Allow && len(c.subjects) > 0 {
		// An allow rule must cover every subject of the call (each path,
		// each URL), in its resolved form.
		for _, s := range c.subjects {
			if !ru.arg.match(s) {
				return false, ""
			}
		}
		return true, fmt.Sprintf("%q", c.subjects[0])
	}
	for _, s := range c.strs {
		if ru.arg.match(s) {
			return true, fmt.Sprintf("%q", s)
		}
	}
	if ru.verdict != Allow {
		for _, s := range c.paths {
			if ru.arg.match(s) {
				return true, fmt.Sprintf("%q", s)
			}
		}
	}
	return false, ""
}

// analyse works out the call's facts: category, risks, paths, hosts.
func (p *Policy) analyse(r *Request) *call {
	t := p.catalog.Lookup(r.Tool)
	if r.MCP != nil {
		t = p.catalog.LookupMCP(r.Tool, r.MCP.Known)
	}
	c := &call{pol: p, req: r, t: t, cwd: r.Cwd}
	c.category = c.t.category
	c.risks = c.t.risks
	collectStrings(r.Args, &c.strs, 0)

	for _, name := range c.t.paths {
		strs, ok := argStrings(r.Args[name])
		if !ok {
			// A path argument that is not a string, nor a list of
			// strings: a server that takes it anyway reads or writes
			// where agate cannot say.
			c.risks = c.risks.With(Unknown)
			c.effects = append(c.effects, Effect{Kind: EffUnknown, What: fmt.Sprintf("%s with a %s argument that is not a path", c.t.name, name)})
		}
		for _, s := range strs {
			from := r
			if r.MCP != nil && relative(s) {
				// An MCP server resolves a relative path against a folder
				// of its own (the reference filesystem server: its first
				// allowed directory, not its working folder).
				if r.MCP.Base == "" || s == "" || dotDot(s) {
					c.risks = c.risks.With(Unknown)
					c.effects = append(c.effects, Effect{Kind: EffUnknown, What: fmt.Sprintf("%s with the relative path %q, which its server resolves against a folder agate does not know", c.t.name, s)})
					continue
				}
				based := *r
				based.Cwd = r.MCP.Base
				from = &based
			}
			if s == "" {
				continue
			}
			q := p.abs(s, from)
			c.paths = append(c.paths, q)
			c.subjects = append(c.subjects, q)
			switch {
			case c.t.writes && c.t.risks.Has(Deletes):
				c.writes = append(c.writes, q)
				c.effects = append(c.effects, Effect{Kind: EffDelete, Path: q})
			case c.t.writes:
				c.writes = append(c.writes, q)
				c.effects = append(c.effects, Effect{Kind: EffWrite, Path: q})
			default:
				c.reads = append(c.reads, q)
				c.effects = append(c.effects, Effect{Kind: EffRead, Path: q})
			}
		}
	}
	p.strayPaths(c, r)
	if c.t.patch != "" {
		s, ok := r.Args[c.t.patch].(string)
		if !ok {
			// Another shape of the same tool (the function form names it
			// "input", the hooks "command"): the string that is a patch.
			for _, v := range r.Args {
				if t, isStr := v.(string); isStr && strings.Contains(t, "*** Begin Patch") {
					s, ok = t, true
					break
				}
			}
		}
		files := patchFiles(s)
		if len(files) == 0 {
			// A patch agate cannot read writes where agate cannot say.
			c.risks = c.risks.With(Unknown)
			c.effects = append(c.effects, Effect{Kind: EffUnknown, What: c.t.name + " with no patch agate can read"})
		}
		if ok {
			for _, f := range files {
				q := p.abs(f.path, r)
				c.paths, c.writes, c.subjects = append(c.paths, q), append(c.writes, q), append(c.subjects, q)
				if f.deletes {
					c.risks = c.risks.With(Deletes)
					c.effects = append(c.effects, Effect{Kind: EffDelete, Path: q})
				} else {
					c.effects = append(c.effects, Effect{Kind: EffWrite, Path: q})
				}
			}
		}
	}
	for _, name := range c.t.urls {
		s, ok := r.Args[name].(string)
		if !ok {
			continue
		}
		for _, u := range findURLs(s, name == "url") {
			c.subjects = append(c.subjects, u.String())
			h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
			c.hosts = append(c.hosts, h)
			c.effects = append(c.effects, Effect{Kind: EffNetwork, Host: h})
		}
	}
	if c.t.command != "" {
		p.analyseCommand(c)
	}
	if m := r.MCP; m != nil {
		var says []string
		if m.Destructive {
			c.risks = c.risks.With(Deletes)
			says = append(says, "may destroy data")
		}
		if m.OpenWorld {
			c.risks = c.risks.With(Network)
			says = append(says, "reaches outside the machine")
		}
		c.hinted = strings.Join(says, " and ")
	}
	// Credentials in any argument.
	for _, s := range c.strs {
		if kind, ok := findCredential(s); ok {
			c.risks, c.secret = c.risks.With(Secret), kind
			break
		}
		if r.Secrets != nil && r.Secrets.Contains(s) {
			c.risks, c.secret = c.risks.With(Secret), "secret agate keeps"
			break
		}
	}
	return c
}

// analyseCommand parses a shell tool's command.
func (p *Policy) analyseCommand(c *call) {
	r := c.req
	var cmd string
	switch v := r.Args[c.t.command].(type) {
	case string:
		cmd = v
	case []any:
		argv := make([]string, 0, len(v))
		for _, a := range v {
			s, ok := a.(string)
			if !ok {
				c.err = fmt.Errorf("argument %q holds a non-string word", c.t.command)
				return
			}
			argv = append(argv, s)
		}
		q, err := shellquote.Join(argv)
		if err != nil {
			c.err = fmt.Errorf("argument %q: %v", c.t.command, err)
			return
		}
		cmd = q
	default:
		c.err = errNoCommand
		return
	}
	if strings.TrimSpace(cmd) == "" {
		c.err = errNoCommand
		return
	}
	c.command = cmd
	if c.t.language != "" {
		if lang, _ := r.Args[c.t.language].(string); lang != "" && lang != "sh" && lang != "bash" && lang != "zsh" && lang != "shell" {
			// Pepe: a script in another language is code agate does not read.
			e := Effect{Kind: EffExec, What: "a " + lang + " script, which agate does not read"}
			c.risks = c.risks.With(InlineCode)
			c.shell = &shellAnalysis{cmds: []simpleCmd{{text: cmd, stripped: cmd, plain: cmd, prefix: []string{lang}, effects: []Effect{e}}}}
			c.effects = append(c.effects, e)
			return
		}
	}
	for _, name := range c.t.workdir {
		if d, ok := r.Args[name].(string); ok && d != "" {
			c.cwd = absPath(d, r.Cwd, p.opts.Home)
			break
		}
	}
	ws := r.Workspace
	if ws == "" {
		ws = r.Cwd
	}
	sa := analyseShellWith(shellEnv{programs: p.programs, cwd: c.cwd, home: p.opts.Home, workspace: ws,
		self: p.opts.Self, selfPID: p.opts.SelfPID, repo: r.Repo, readPatch: r.ReadPatch, files: r.Files}, cmd)
	c.shell = sa
	if sa.err != nil {
		c.err = sa.err
		return
	}
	// The analyser made its paths absolute against the folder each command
	// ran in; only symlinks are left to resolve.
	for i := range sa.cmds {
		var effs []Effect
		for _, e := range sa.cmds[i].effects {
			effs = append(effs, c.resolveEffect(e)...)
		}
		sa.cmds[i].effects = effs
		for j := range sa.cmds[i].effects {
			e := &sa.cmds[i].effects[j]
			switch e.Kind {
			case EffWrite, EffDelete:
				if e.Path != "" {
					c.writes = append(c.writes, e.Path)
					c.paths = append(c.paths, e.Path)
				}
			case EffPersist:
				if c.persist == nil {
					cp := *e
					c.persist = &cp
				}
				if e.Path != "" {
					c.writes = append(c.writes, e.Path)
				}
			case EffRead:
				if e.Path != "" && !e.Names {
					c.reads = append(c.reads, e.Path)
				}
			case EffProject:
				if e.Path != "" {
					c.reads = append(c.reads, e.Path)
				}
			case EffNetwork, EffUpload:
				if e.Host != "" {
					c.hosts = append(c.hosts, e.Host)
				}
			}
			c.effects = append(c.effects, *e)
		}
	}
	c.risks = c.risks.Union(c.effects.risks())
	// A command whose only effect is writing files, all literal and in the
	// project, is an edit like a file tool's.
	if c.onlyEdits() && c.contained() {
		c.edit, c.category = true, "fs"
	}
}

// resolveEffect returns e with its path resolved through links
// (Request.Resolve). A glob's literal folders are resolved (link/* is
// the folder the link names, /*). A write or a delete of a glob whose
// matches (Request.Glob, complete) lie beyond a link is judged as what
// the OS reaches: one effect for each match, resolved, so that
// rm -rf lin[k]/sub deletes ../outside/sub, not a path in the project.
func (c *call) resolveEffect(e Effect) []Effect {
	r := c.req
	if r.Resolve == nil || e.Path == "" {
		return []Effect{e}
	}
	if !strings.ContainsAny(e.Path, "*?[") {
		e.Path = r.Resolve(e.Path)
		return []Effect{e}
	}
	e.Path = resolveGlobFolders(e.Path, r.Resolve)
	if e.Kind != EffWrite && e.Kind != EffDelete {
		return []Effect{e}
	}
	ms, ok := c.globbed(e.Path)
	if !ok {
		return []Effect{e}
	}
	beyond := false
	for _, m := range ms {
		if r.Resolve(m) != m {
			beyond = true
			break
		}
	}
	if !beyond {
		return []Effect{e}
	}
	out := make([]Effect, 0, len(ms))
	for _, m := range ms {
		me := e
		me.Path = r.Resolve(m)
		out = append(out, me)
	}
	return out
}

// resolveGlobFolders resolves the folders of a glob up to the first
// element that holds a pattern: /proj/link/*.txt is /outside/*.txt when
// link names ../outside.
func resolveGlobFolders(g string, resolve func(string) string) string {
	i := strings.IndexAny(g, "*?[")
	slash := strings.LastIndexByte(g[:i], '/')
	if slash <= 0 {
		return g
	}
	dir := resolve(g[:slash])
	if dir == "" || strings.ContainsAny(dir, "*?[\\") {
		return g // (a folder whose name would read as a pattern)
	}
	return strings.TrimSuffix(dir, "/") + g[slash:]
}

// abs makes a path from the call absolute and resolved.
func (p *Policy) abs(s string, r *Request) string {
	q := absPath(s, r.Cwd, p.opts.Home)
	if r.Resolve != nil {
		q = r.Resolve(q)
	}
	return q
}

// p returns the policy a call is analysed under; set by analyse.
func (c *call) p() *Policy { return c.pol }

// StringArgs returns every string value in a call's arguments, nested
// ones included, in a fixed order: what deny rules and leak detection look
// at.
func StringArgs(args map[string]any) []string {
	var out []string
	collectStrings(args, &out, 0)
	return out
}

// collectStrings gathers the string values of args, depth-first, bounded.
func collectStrings(v any, out *[]string, depth int) {
	if depth > 8 {
		return
	}
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case map[string]any:
		for _, k := range sortedKeys(v) {
			collectStrings(v[k], out, depth+1)
		}
	case []any:
		for _, e := range v {
			collectStrings(e, out, depth+1)
		}
	}
}

// relative reports whether path is relative (or empty): neither absolute
// nor "~" or "~/..." (which MCP servers expand to the home folder, as
// agate does).
func relative(path string) bool {
	return !(strings.HasPrefix(path, "/") || path == "~" || strings.HasPrefix(path, "~/"))
}

// dotDot reports whether path has a ".." element.
func dotDot(path string) bool {
	for _, e := range strings.Split(path, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// argStrings returns a path argument's strings: one, or a list. ok is
// false when v is there but is neither a string nor a list of strings
// (absent or null is no path, and ok).
func argStrings(v any) (strs []string, ok bool) {
	switch v := v.(type) {
	case nil:
		return nil, true
	case string:
		return []string{v}, true
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, isStr := e.(string)
			if !isStr {
				return out, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// findURLs returns the URLs in s. When bare is set, s is a URL argument
// and a missing scheme means https.
func findURLs(s string, bare bool) []*url.URL {
	var out []*url.URL
	if bare {
		t := strings.TrimSpace(s)
		if !strings.Contains(t, "://") {
			t = "https://" + t
		}
		if u, err := url.Parse(t); err == nil && u.Host != "" {
			return []*url.URL{u}
		}
	}
	for _, f := range strings.Fields(s) {
		i := strings.Index(f, "://")
		if i < 0 {
			continue
		}
		start := strings.LastIndexAny(f[:i], "\"'(<[") + 1
		t := strings.TrimRight(f[start:], ".,;:!?)\"'>]")
		if u, err := url.Parse(t); err == nil && u.Host != "" {
			out = append(out, u)
		}
	}
	return out
}

type patchFile struct {
	path    string
	deletes bool
}

// patchFiles returns the files an apply_patch patch touches.
func patchFiles(s string) []patchFile {
	var out []patchFile
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(line, h); ok && f != "" {
				out = append(out, patchFile{path: path.Clean(f), deletes: h == "*** Delete File: "})
			}
		}
	}
	return out
}

// orNone is a list for a reason: its entries, or "none".
func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
