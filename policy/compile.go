package policy

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/agatehq/agate/policy/stores"
)

// holdsHome reports whether the absolute folder pattern s is home or
// holds it (/root/ for root, /home/ for anyone).
func holdsHome(s, home string) bool {
	if home == "" || !strings.HasPrefix(s, "/") || strings.ContainsAny(s, "*?[") {
		return false
	}
	d := path.Clean(s)
	return home == d || d == "/" || strings.HasPrefix(home, d+"/")
}

// Options are the facts about the machine a policy is compiled for. They
// are inputs like the config: Compile does no I/O of its own.
type Options struct {
	Home      string // the person's home folder, for "~"
	ConfigDir string // agate's config folder: writes to it ask
	// ConfigFiles are agate's own files kept elsewhere (a config moved
	// with --config, its grants): writes to them ask, and only to them.
	ConfigFiles []string
	StateDir    string   // agate's state folder: writes ask, and its key store is a secret path
	Self        []string // paths agate's binaries run under: running them from a shell is a guardrail
	SelfPID     int      // the daemon's process: killing it touches agate itself
	// FoldCase matches protected and secret paths without regard to case,
	// as the file systems of macOS and Windows name files.
	FoldCase bool
	// Resolve turns an absolute path into its real path (following
	// symlinks); nil means paths are only cleaned. It is used on
	// trusted_dirs, so that a trusted dir reached through a symlink still
	// matches the real paths calls resolve to.
	Resolve func(string) string
}

// Policy is a compiled, immutable policy: safe for concurrent use, and
// swapped whole when the config changes.
type Policy struct {
	cfg          *Config
	opts         Options
	mode         Mode
	autoApprove  map[string]bool
	hardDeny     *ruleIndex
	rules        *ruleIndex
	projectRules *ruleIndex // an overlay's deny and ask rules; nil without one
	trusted      []trustedDir
	domains      []trustedDomain
	protected    pathSet
	secretReads  pathSet
	// The managed policy's protected and secret paths, which its layer
	// holds before the mode and the person's rules.
	mProtected, mSecrets pathSet
	hasManagedPaths      bool
	managedFailed        bool            // the managed file cannot be used: every call that acts asks
	disabled             map[string]bool // categories switched off
	agents               map[string]*agentPolicy
	catalog              *Catalog
	programs             *Programs  // what programs do, for shell calls
	overlay              string     // the overlay merged in, if any
	managedRules         *ruleIndex // the managed policy's deny and ask rules (nil: none)
	floor                Mode       // the overlay's mode: no agent runs looser than this
	problems             []*ConfigError
}

type trustedDir struct {
	dir string
	ref RuleRef
}

type trustedDomain struct {
	host string
	ref  RuleRef
}

type agentPolicy struct {
	mode   *Mode
	grants []compiledGrant
	trust  bool
}

type compiledGrant struct {
	Grant
	tool glob
	ref  RuleRef
}

func compileGrant(g Grant, ref RuleRef) compiledGrant {
	tg, err := compileGlob(g.Tool)
	if err != nil {
		tg = glob{pattern: g.Tool, kind: globLiteral, lit: "\x00never"}
	}
	return compiledGrant{Grant: g, tool: tg, ref: ref}
}

// covers reports whether a broad grant approves a call of tool t
// carrying risks.
func (g *compiledGrant) covers(t *toolInfo, risks Risks) bool {
	if g.narrow || risks&ungrantable != 0 || !t.matchGlob(g.tool) {
		return false
	}
	return g.Any || risks.SubsetOf(g.Risks)
}

// Compile checks a parsed config against the machine's facts and compiles
// it. A config from Parse compiles unless Options make a pattern invalid.
func Compile(cfg *Config, o Options) (*Policy, error) {
	if cfg == nil {
		return nil, errors.New("compile: no config")
	}
	p := &Policy{cfg: cfg, opts: o, autoApprove: map[string]bool{}, disabled: map[string]bool{}, agents: map[string]*agentPolicy{}}
	var errs []*ConfigError
	// A key the managed policy speaks for comes from its file.
	mg := cfg.managed
	var M *Config
	if mg != nil && mg.failed == nil {
		M = mg.cfg
	}
	from := func(key string) *Config {
		section := strings.Split(key, ".")
		if M != nil && (mg.Locked(key) || mg.Locked(section[0]) || len(section) > 1 && mg.Locked(section[0]+"."+section[1])) {
			return M
		}
		return cfg
	}
	refIn := func(c *Config, key string, i int) RuleRef {
		src := c.Source
		if src == "" {
			src = "defaults"
		} else if l := findLine(c.data, strings.Split(key, "."), i); l > 0 {
			src = fmt.Sprintf("%s:%d", src, l)
		}
		return RuleRef{Source: src}
	}
	at := func(key string, i int) RuleRef { return refIn(from(key), key, i) }
	fail := func(key string, i int, err error) {
		errs = append(errs, cfg.errAt(key, i, "%v", err))
	}

	var err error
	if p.mode, err = ParseMode(cfg.Auto.Mode); err != nil {
		fail("auto.mode", -1, err)
	}
	for _, c := range cfg.Auto.AutoApprove {
		p.autoApprove[c] = true
	}
	for k, on := range cfg.Tools {
		if k != "sandbox" && !on {
			p.disabled[k] = true
		}
	}
	var hardDeny, rules, managedRules, managedAllow []rule
	if mg != nil && mg.failed != nil {
		p.mode, p.floor = Stricter(p.mode, ModeManual), ModeManual
		p.managedFailed = true
	}
	if M != nil {
		if mg.has("auto.mode") {
			if mm, err := ParseMode(M.Auto.Mode); err == nil {
				if mm > p.mode {
					p.problems = append(p.problems, cfg.errAt("auto.mode", -1, "refused, the managed policy (%s) does not allow it: mode %q is looser than %q", mg.Source, p.mode, mm))
				}
				p.mode, p.floor = Stricter(p.mode, mm), mm
			}
		}
		// (M holds the defaults where the file is silent: only what it
		// writes is the managed layer's.)
		for i, s := range managedList(mg, "auto.hard_deny", M.Auto.HardDeny) {
			r, err := parseRule(s, true)
			if err != nil {
				errs = append(errs, M.errAt("auto.hard_deny", i, "%v", err))
				continue
			}
			r.ref.Source = refIn(M, "auto.hard_deny", i).Source
			hardDeny = append(hardDeny, r.expandHome(o.Home))
		}
		for i, s := range managedList(mg, "auto.rules", M.Auto.Rules) {
			r, err := parseRule(s, false)
			if err != nil {
				errs = append(errs, M.errAt("auto.rules", i, "%v", err))
				continue
			}
			r.ref.Source = refIn(M, "auto.rules", i).Source
			if r.verdict == Allow {
				managedAllow = append(managedAllow, r.expandHome(o.Home))
			} else {
				managedRules = append(managedRules, r.expandHome(o.Home))
			}
		}
		p.problems = append(p.problems, cfg.managedProblems...)
	} else if mg != nil {
		p.problems = append(p.problems, cfg.managedProblems...)
	}
	for i, s := range cfg.Auto.HardDeny {
		r, err := parseRule(s, true)
		if err != nil {
			fail("auto.hard_deny", i, err)
			continue
		}
		r.ref.Source = refIn(cfg, "auto.hard_deny", i).Source
		hardDeny = append(hardDeny, r.expandHome(o.Home))
	}
	for i, s := range cfg.Auto.Rules {
		r, err := parseRule(s, false)
		if err != nil {
			fail("auto.rules", i, err)
			continue
		}
		r.ref.Source = refIn(cfg, "auto.rules", i).Source
		rules = append(rules, r.expandHome(o.Home))
	}
	rules = append(rules, managedAllow...)
	p.hardDeny, p.rules = newRuleIndex(hardDeny), newRuleIndex(rules)
	if len(managedRules) > 0 {
		p.managedRules = newRuleIndex(managedRules)
	}
	trustedDirs, trustedDomains := cfg.Auto.TrustedDirs, cfg.Auto.TrustedDomains
	if from("auto.trusted_dirs") == M && M != nil {
		trustedDirs = M.Auto.TrustedDirs
	}
	if from("auto.trusted_domains") == M && M != nil {
		trustedDomains = M.Auto.TrustedDomains
	}
	for i, d := range trustedDirs {
		ref := at("auto.trusted_dirs", i)
		ref.Text = d
		dir := absPath(d, "/", o.Home)
		if !strings.HasPrefix(d, "/") && !strings.HasPrefix(d, "~") {
			fail("auto.trusted_dirs", i, fmt.Errorf("%q is not absolute (write a full path or start with ~/)", d))
			continue
		}
		if o.Resolve != nil {
			dir = o.Resolve(dir)
		}
		if dir == "/" {
			fail("auto.trusted_dirs", i, errors.New("trusting / would trust every path"))
			continue
		}
		p.trusted = append(p.trusted, trustedDir{dir: dir, ref: ref})
	}
	for i, d := range trustedDomains {
		ref := at("auto.trusted_domains", i)
		ref.Text = d
		p.domains = append(p.domains, trustedDomain{host: strings.ToLower(strings.TrimSuffix(d, ".")), ref: ref})
	}
	builtin := RuleRef{Source: "built-in"}
	for _, s := range stores.Protected() {
		ref := builtin
		ref.Text = s
		p.protected.add(s, ref, o)
	}
	for _, dir := range []string{o.ConfigDir, o.StateDir} {
		if dir != "" {
			p.protected.add(path.Clean(dir), RuleRef{Text: dir, Source: "built-in (agate's own folder)"}, o)
		}
	}
	for _, f := range o.ConfigFiles {
		if f != "" {
			p.protected.add(path.Clean(f), RuleRef{Text: f, Source: "built-in (agate's own file)"}, o)
		}
	}
	for i, s := range cfg.Auto.ProtectedPaths {
		ref := refIn(cfg, "auto.protected_paths", i)
		ref.Text = s
		if err := p.protected.add(s, ref, o); err != nil {
			fail("auto.protected_paths", i, err)
		}
	}
	if M != nil {
		for i, s := range managedList(mg, "auto.protected_paths", M.Auto.ProtectedPaths) {
			ref := refIn(M, "auto.protected_paths", i)
			ref.Text = s
			if err := p.protected.add(s, ref, o); err != nil {
				errs = append(errs, M.errAt("auto.protected_paths", i, "%v", err))
			}
			p.mProtected.add(s, ref, o)
			p.hasManagedPaths = true
		}
		for i, s := range managedList(mg, "auto.secret_paths", M.Auto.SecretPaths) {
			ref := refIn(M, "auto.secret_paths", i)
			ref.Text = s
			if err := p.secretReads.add(s, ref, o); err != nil {
				errs = append(errs, M.errAt("auto.secret_paths", i, "%v", err))
			}
			p.mSecrets.add(s, ref, o)
			p.hasManagedPaths = true
		}
	}
	for _, st := range SecretStores() {
		for _, s := range st.Paths {
			if holdsHome(s, o.Home) {
				continue // another user's home (/root/) is not a store when it is this person's
			}
			ref := RuleRef{Text: s, Source: "built-in (" + st.Tool + ")"}
			p.secretReads.add(s, ref, o)
		}
	}
	if o.StateDir != "" {
		p.secretReads.add(path.Clean(o.StateDir), RuleRef{Text: o.StateDir, Source: "built-in (agate's key store)"}, o)
	}
	for i, s := range cfg.Auto.SecretPaths {
		ref := refIn(cfg, "auto.secret_paths", i)
		ref.Text = s
		if err := p.secretReads.add(s, ref, o); err != nil {
			fail("auto.secret_paths", i, err)
		}
	}
	for _, name := range sortedKeys(cfg.Agents) {
		a := cfg.Agents[name]
		ap := &agentPolicy{trust: a.TrustUntrustedContent}
		if a.Mode != "" {
			m, err := ParseMode(a.Mode)
			if err != nil {
				fail("agents."+name+".mode", -1, err)
			}
			ap.mode = &m
		}
		for i, s := range a.AutoApprove {
			g, err := ParseGrant(s)
			if err != nil {
				fail("agents."+name+".auto_approve", i, err)
				continue
			}
			ref := at("agents."+name+".auto_approve", i)
			ref.Text = s
			ap.grants = append(ap.grants, compileGrant(g, ref))
		}
		p.agents[name] = ap
	}
	if len(cfg.Catalog) == 0 {
		p.catalog = builtinCatalog()
	} else if p.catalog, err = newCatalog(cfg.Catalog); err != nil {
		fail("catalog", -1, err)
	}
	if p.programs, err = withPrograms(cfg.Programs); err != nil {
		fail("programs", -1, err)
	}
	if len(errs) > 0 {
		return nil, joinConfigErrors(errs)
	}
	return p, nil
}

// managedList is list when the managed file writes key, else nothing.
func managedList(m *Managed, key string, list []string) []string {
	if m.set[key] {
		return list
	}
	return nil
}

// expandHome rewrites an argument glob that starts with "~/".
func (r rule) expandHome(home string) rule {
	if r.arg != nil && home != "" && strings.HasPrefix(r.arg.pattern, "~/") {
		g, err := compileGlob(home + r.arg.pattern[1:])
		if err == nil {
			r.arg = &g
		}
	}
	return r
}

// Config returns the config the policy was compiled from. It must not be
// changed.
func (p *Policy) Config() *Config { return p.cfg }

// Mode returns the policy's mode ([auto] mode, with any overlay's).
func (p *Policy) Mode() Mode { return p.mode }

// AgentMode returns the mode calls from agent run under.
func (p *Policy) AgentMode(agent string) Mode {
	if a := p.agents[agent]; a != nil && a.mode != nil {
		return Stricter(*a.mode, p.floor)
	}
	return p.mode
}

// Catalog returns the tool catalog in force (built-in plus [catalog]).
func (p *Policy) Catalog() *Catalog { return p.catalog }

// Problems returns what an overlay tried and was refused (loosening the
// policy); the rest of the overlay still applies.
func (p *Policy) Problems() []*ConfigError { return p.problems }

// ProtectedWrite reports whether a write to the absolute path asks as a
// write to a protected path (an rc file, a hook, an agent's settings,
// agate's own files), and names the rule.
func (p *Policy) ProtectedWrite(path string) (RuleRef, bool) {
	if ref, ok := p.protected.match(path); ok {
		return *ref, true
	}
	return RuleRef{}, false
}
