package policy

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// OverlayName is the file name of a per-project overlay, found by walking
// up from a call's working folder.
const OverlayName = ".agate.toml"

// Overlay is a per-project .agate.toml. It can only make the policy
// stricter: add deny and ask rules, hard_deny entries, protected and secret
// paths, switch categories off, drop categories from auto_approve, and set
// a stricter mode. Anything that would loosen the policy is refused (and
// reported) while the rest still applies: a cloned repository must not be
// able to allow anything.
type Overlay struct {
	Source string

	mode        *Mode
	agentModes  map[string]Mode
	rules       []rule
	hardDeny    []rule
	protected   []string
	protRefs    []RuleRef
	secrets     []string
	secRefs     []RuleRef
	autoApprove []string
	autoSet     bool
	disable     []string
	enable      []string
	asks        []string // programs made to ask on every call
	problems    []*ConfigError
}

// Problems returns what the overlay tried and was refused.
func (o *Overlay) Problems() []*ConfigError { return o.problems }

// ParseOverlay reads a per-project overlay. A file that does not parse is
// an error; the caller should then treat the project as strictly as it can
// (see FailedOverlay). Attempts to loosen the policy are not errors: they
// are kept as Problems and left out.
func ParseOverlay(name string, data []byte) (*Overlay, error) {
	if len(data) > MaxConfigSize {
		return nil, &ConfigError{File: name, Err: fmt.Errorf("file is %d bytes, more than the %d allowed", len(data), MaxConfigSize)}
	}
	var raw Config
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ConfigError{File: name, Line: pe.Position.Line, Key: pe.LastKey, Err: errors.New(pe.Message)}
		}
		return nil, &ConfigError{File: name, Err: err}
	}
	raw.Source, raw.data = name, data
	o := &Overlay{Source: name, agentModes: map[string]Mode{}}
	var errs []*ConfigError
	refuse := func(key string, i int, format string, args ...any) {
		e := raw.errAt(key, i, format, args...)
		e.Err = fmt.Errorf("refused, a project overlay can only tighten the policy: %w", e.Err)
		o.problems = append(o.problems, e)
	}
	for _, k := range md.Undecoded() {
		errs = append(errs, &ConfigError{File: name, Line: findLine(data, k, -1), Key: k.String(), Err: errors.New("unknown key")})
	}
	ref := func(key string, i int, text string) RuleRef {
		return RuleRef{Text: text, Source: fmt.Sprintf("%s:%d", name, findLine(data, strings.Split(key, "."), i))}
	}
	for _, k := range md.Keys() {
		top := k[0]
		switch top {
		case "auto", "tools", "agents", "programs":
		default:
			if len(k) == 1 {
				refuse(top, -1, "[%s] cannot be set by a project", top)
			}
		}
	}
	if md.IsDefined("auto", "mode") {
		if m, err := ParseMode(raw.Auto.Mode); err != nil {
			errs = append(errs, raw.errAt("auto.mode", -1, "%v", err))
		} else {
			o.mode = &m
		}
	}
	for i, s := range raw.Auto.Rules {
		r, err := parseRule(s, false)
		switch {
		case err != nil:
			errs = append(errs, raw.errAt("auto.rules", i, "%v", err))
		case r.verdict == Allow:
			refuse("auto.rules", i, "allow rule %q", s)
		default:
			r.ref = ref("auto.rules", i, s)
			o.rules = append(o.rules, r)
		}
	}
	for i, s := range raw.Auto.HardDeny {
		r, err := parseRule(s, true)
		if err != nil {
			errs = append(errs, raw.errAt("auto.hard_deny", i, "%v", err))
			continue
		}
		r.ref = ref("auto.hard_deny", i, s)
		o.hardDeny = append(o.hardDeny, r)
	}
	for i, s := range raw.Auto.ProtectedPaths {
		if _, err := compilePathPattern(s, Options{}); err != nil {
			errs = append(errs, raw.errAt("auto.protected_paths", i, "%v", err))
			continue
		}
		o.protected, o.protRefs = append(o.protected, s), append(o.protRefs, ref("auto.protected_paths", i, s))
	}
	for i, s := range raw.Auto.SecretPaths {
		if _, err := compilePathPattern(s, Options{}); err != nil {
			errs = append(errs, raw.errAt("auto.secret_paths", i, "%v", err))
			continue
		}
		o.secrets, o.secRefs = append(o.secrets, s), append(o.secRefs, ref("auto.secret_paths", i, s))
	}
	if md.IsDefined("auto", "auto_approve") {
		o.autoSet, o.autoApprove = true, raw.Auto.AutoApprove
		for i, c := range raw.Auto.AutoApprove {
			if !knownCategory(c) {
				errs = append(errs, raw.errAt("auto.auto_approve", i, "unknown category %q", c))
			}
		}
	}
	for i := range raw.Auto.TrustedDirs {
		refuse("auto.trusted_dirs", i, "trusted_dirs")
	}
	for i := range raw.Auto.TrustedDomains {
		refuse("auto.trusted_domains", i, "trusted_domains")
	}
	for _, k := range sortedKeys(raw.Tools) {
		switch {
		case k == "sandbox" && raw.Tools[k]:
			// Asking for the sandbox is stricter: accepted but not the
			// policy's business; the caller reads it.
		case k == "sandbox":
			refuse("tools.sandbox", -1, "switching the sandbox off")
		case !knownCategory(k):
			errs = append(errs, raw.errAt("tools."+k, -1, "unknown category %q", k))
		case raw.Tools[k]:
			// Switching a category on: harmless if it already was on,
			// refused by the merge if it was off.
			o.enable = append(o.enable, k)
		default:
			o.disable = append(o.disable, k)
		}
	}
	for _, name := range sortedKeys(raw.Agents) {
		a := raw.Agents[name]
		if a.Mode != "" {
			m, err := ParseMode(a.Mode)
			if err != nil {
				errs = append(errs, raw.errAt("agents."+name+".mode", -1, "%v", err))
			} else {
				o.agentModes[name] = m
			}
		}
		for i := range a.AutoApprove {
			refuse("agents."+name+".auto_approve", i, "granting tools to an agent")
		}
		if a.TrustUntrustedContent {
			refuse("agents."+name+".trust_untrusted_content", -1, "trusting outside content")
		}
	}
	// A project may make a program ask on every call; it may not say what
	// a program does (a project that declared its own program harmless
	// would allow itself).
	for _, name := range sortedKeys(raw.Programs) {
		ps := raw.Programs[name]
		if !ps.Ask {
			refuse("programs."+name, -1, "saying what program %s does (a project may only set ask = true)", name)
			continue
		}
		if ps.Summary != "" || len(ps.Effects) > 0 || len(ps.Args) > 0 || len(ps.Opts) > 0 || len(ps.Sub) > 0 ||
			ps.Handler != "" || ps.Posix || ps.Key != 0 || len(ps.Aliases) > 0 || ps.Versioned || ps.Scripts {
			refuse("programs."+name, -1, "keys other than ask for program %s", name)
		}
		o.asks = append(o.asks, name)
	}
	if len(errs) > 0 {
		return nil, joinConfigErrors(errs)
	}
	return o, nil
}

// WithOverlay returns the policy with a project overlay merged in. The
// result is never looser than p.
func (p *Policy) WithOverlay(o *Overlay) *Policy {
	q := *p
	q.overlay = o.Source
	q.problems = append(append([]*ConfigError(nil), p.problems...), o.problems...)
	if o.mode != nil {
		if *o.mode < p.mode {
			q.problems = append(q.problems, &ConfigError{File: o.Source, Key: "auto.mode",
				Err: fmt.Errorf("refused, a project overlay can only tighten the policy: mode %q is looser than %q", o.mode, p.mode)})
		}
		q.mode = Stricter(p.mode, *o.mode)
		q.floor = Stricter(p.floor, *o.mode)
	}
	// The project's deny and ask rules are a list of their own: the
	// stricter of its answer and the person's stands (see matchRules).
	var pr []rule
	if p.projectRules != nil {
		pr = append(pr, p.projectRules.rules...)
	}
	q.projectRules = newRuleIndex(append(pr, o.rules...))
	q.hardDeny = newRuleIndex(append(append([]rule(nil), p.hardDeny.rules...), o.hardDeny...))
	q.protected = p.protected.clone()
	for i, s := range o.protected {
		q.protected.add(s, o.protRefs[i], p.opts)
	}
	q.programs = p.programs.stricter(o.asks)
	q.secretReads = p.secretReads.clone()
	for i, s := range o.secrets {
		q.secretReads.add(s, o.secRefs[i], p.opts)
	}
	if o.autoSet {
		q.autoApprove = map[string]bool{}
		for _, c := range o.autoApprove {
			if p.autoApprove[c] {
				q.autoApprove[c] = true
			} else {
				q.problems = append(q.problems, &ConfigError{File: o.Source, Key: "auto.auto_approve",
					Err: fmt.Errorf("refused, a project overlay can only tighten the policy: category %q is not auto-approved by your config", c)})
			}
		}
	}
	for _, k := range o.enable {
		if p.disabled[k] {
			q.problems = append(q.problems, &ConfigError{File: o.Source, Key: "tools." + k,
				Err: fmt.Errorf("refused, a project overlay can only tighten the policy: the %s category is switched off by your config", k)})
		}
	}
	if len(o.disable) > 0 {
		q.disabled = map[string]bool{}
		for k, v := range p.disabled {
			q.disabled[k] = v
		}
		for _, k := range o.disable {
			q.disabled[k] = true
		}
	}
	if len(o.agentModes) > 0 {
		q.agents = map[string]*agentPolicy{}
		for k, v := range p.agents {
			q.agents[k] = v
		}
		for name, m := range o.agentModes {
			a := &agentPolicy{}
			if old := p.agents[name]; old != nil {
				*a = *old
			}
			base := p.mode
			if a.mode != nil {
				base = *a.mode
			}
			if m < base {
				q.problems = append(q.problems, &ConfigError{File: o.Source, Key: "agents." + name + ".mode",
					Err: fmt.Errorf("refused, a project overlay can only tighten the policy: mode %q is looser than %q", m, base)})
			}
			sm := Stricter(base, m)
			a.mode = &sm
			q.agents[name] = a
		}
	}
	return &q
}

// FailedOverlay returns the policy for a project whose overlay could not be
// read: every call that acts asks (manual mode), since the project's own
// restrictions cannot be known.
func (p *Policy) FailedOverlay(source string, err error) *Policy {
	q := *p
	q.overlay = source
	q.mode = Stricter(p.mode, ModeManual)
	q.floor = Stricter(p.floor, ModeManual)
	var ce *ConfigError
	if !errors.As(err, &ce) {
		ce = &ConfigError{File: source, Err: err}
	}
	q.problems = append(append([]*ConfigError(nil), p.problems...), ce)
	return &q
}

// Overlay returns the overlay file merged in, or "".
func (p *Policy) Overlay() string { return p.overlay }
