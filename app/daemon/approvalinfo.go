package daemon

import (
	"context"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

// What an approval shows the person, made from a decision: the same
// fields the audit log records.

// whySentence is why a call asks, as a sentence a person reads.
func whySentence(dec policy.Decision) string {
	r := strings.TrimSpace(dec.Reason)
	if r == "" {
		return "nothing pre-approves this call"
	}
	r = strings.TrimPrefix(r, "it ")
	if !strings.HasPrefix(r, "`") && !strings.HasPrefix(r, "rule ") && !strings.HasPrefix(r, "mode ") &&
		!strings.HasPrefix(r, "the ") && !strings.HasPrefix(r, "nothing ") {
		r = "It " + r
	} else {
		r = strings.ToUpper(r[:1]) + r[1:]
	}
	if !strings.HasSuffix(r, ".") {
		r += "."
	}
	return r
}

// effectInfos describes effects for people, marking paths outside the
// project.
func effectInfos(es []policy.Effect, workspace string) []api.EffectInfo {
	out := make([]api.EffectInfo, 0, len(es))
	for _, e := range es {
		if e.Kind == policy.EffNone {
			continue
		}
		ei := api.EffectInfo{Kind: e.Kind.String(), Path: e.Path, Host: e.Host, What: e.What, Text: e.Describe()}
		if e.Path != "" && (workspace == "" || workspace == "/" || !withinDir(e.Path, workspace)) {
			ei.Outside = true
		}
		out = append(out, ei)
	}
	return out
}

// shownRelative writes the paths in what the approval says in words (why
// it asks, what each command or effect does) as a person reads them:
// relative to the project, whose folder the approval shows once (Cwd),
// and "~/" for the home folder. The command itself, the paths as data
// and the grants stay as they are.
func shownRelative(a *api.Approval, project, home string) {
	rel := func(s string) string { return relativePaths(s, project, home) }
	a.Why = rel(a.Why)
	for i := range a.Commands {
		a.Commands[i].Why = rel(a.Commands[i].Why)
		for j := range a.Commands[i].Effects {
			a.Commands[i].Effects[j].Text = rel(a.Commands[i].Effects[j].Text)
		}
	}
	for i := range a.Effects {
		a.Effects[i].Text = rel(a.Effects[i].Text)
	}
}

// relativePaths rewrites, in text, each path in project as relative to it
// ("build/out.js"; the folder itself as "the project") and each other
// path in home as "~/...". A path is taken only where it starts a word
// and its folder ends at a "/" or the word's end: /home/u/proj2 is not in
// /home/u/proj.
func relativePaths(text, project, home string) string {
	for _, r := range []struct{ dir, as string }{{project, ""}, {home, "~"}} {
		if r.dir == "" || r.dir == "/" || !strings.HasPrefix(r.dir, "/") {
			continue
		}
		var b strings.Builder
		rest := text
		for {
			i := strings.Index(rest, r.dir)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			end := i + len(r.dir)
			startOK := i == 0 || strings.ContainsRune(" \t\n(\"'`=:,[", rune(rest[i-1]))
			var next byte
			if end < len(rest) {
				next = rest[end]
			}
			endOK := end == len(rest) || next == '/' || strings.ContainsRune(" \t\n)\"'`,;.:]", rune(next))
			if !startOK || !endOK {
				b.WriteString(rest[:end])
				rest = rest[end:]
				continue
			}
			b.WriteString(rest[:i])
			switch {
			case next == '/' && r.as == "":
				rest = rest[end+1:] // build/x, relative
			case next == '/':
				b.WriteString(r.as)
				rest = rest[end:] // ~/x
			case r.as == "":
				b.WriteString("the project")
				rest = rest[end:]
			default:
				b.WriteString(r.as)
				rest = rest[end:]
			}
		}
		text = b.String()
	}
	return text
}

// commandInfos describes a shell call's simple commands.
func commandInfos(cs []policy.Command, workspace string) []api.CommandInfo {
	out := make([]api.CommandInfo, len(cs))
	for i, c := range cs {
		out[i] = api.CommandInfo{Text: c.Text, Prefix: c.Prefix, Effects: effectInfos(c.Effects, workspace),
			Free: c.Free, Granted: c.Granted, Why: c.Why}
	}
	return out
}

// grantSep joins the grants one answer records (one per command that
// asked).
const grantSep = "\n"

// rememberOptions are what an answer to dec may record, narrowest
// first: the proposals, then each widened a step at a time, then Pepe's
// broad grant, marked broad.
func rememberOptions(dec policy.Decision, workspace string) []api.Remember {
	var out []api.Remember
	seen := map[string]bool{}
	add := func(gs []policy.Grant, broad bool) {
		var strs, texts []string
		for _, g := range gs {
			strs = append(strs, g.String())
			texts = append(texts, g.Describe(workspace))
		}
		key := strings.Join(strs, grantSep)
		if key == "" || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, api.Remember{Grant: key, Text: strings.Join(texts, "; and "), Broad: broad})
	}
	if len(dec.Proposals) > 0 {
		add(dec.Proposals, false)
		// Widen every proposal the same number of steps at once.
		wider := make([][]policy.Grant, len(dec.Proposals))
		steps := 0
		for i, g := range dec.Proposals {
			wider[i] = g.Wider(workspace)
			steps = max(steps, len(wider[i]))
		}
		for s := 0; s < steps; s++ {
			gs := make([]policy.Grant, len(dec.Proposals))
			for i, g := range dec.Proposals {
				switch {
				case len(wider[i]) == 0:
					gs[i] = g
				case s < len(wider[i]):
					gs[i] = wider[i][s]
				default:
					gs[i] = wider[i][len(wider[i])-1]
				}
			}
			add(gs, false)
		}
	}
	if dec.Grant.Tool != "" && !dec.Risks.Has(policy.Secret) && !dec.Risks.Has(policy.Unknown) {
		add([]policy.Grant{dec.Grant}, true)
	}
	return out
}

// offered reports whether grant is one of the options.
func offered(opts []api.Remember, grant string) bool {
	for _, o := range opts {
		if o.Grant == grant {
			return true
		}
	}
	return false
}

// chosenGrants returns the grants an answer records: the option it names,
// or the first (the narrowest).
func chosenGrants(opts []api.Remember, choice string) []policy.Grant {
	if len(opts) == 0 {
		return nil
	}
	pick := opts[0].Grant
	if choice != "" {
		if !offered(opts, choice) {
			return nil
		}
		pick = choice
	}
	var out []policy.Grant
	for _, s := range strings.Split(pick, grantSep) {
		if g, err := policy.ParseGrant(s); err == nil {
			out = append(out, g)
		}
	}
	return out
}

// commandOf is a shell call's command, as the catalog's tools name it.
func commandOf(args map[string]any) string {
	for _, k := range []string{"command", "script", "cmd"} {
		if s, ok := args[k].(string); ok {
			return s
		}
	}
	return ""
}

// canConfine reports whether a call's project code may run unasked in
// the sandbox: the person switched it on, the agent lets agate rewrite
// the command (Claude Code's Bash), the sandbox works here, and the same
// command did not just run confined (an agent running it again likely
// saw it fail there, and is asked).
func (d *Daemon) canConfine(cfg *policy.Config, r *api.DecideRequest, now time.Time) bool {
	if !cfg.Sandbox.ConfineProject || !rewritable(r) {
		return false
	}
	cmd := commandOf(r.Args)
	if cmd == "" || d.sessions.confinedBefore(r.Agent, r.Session, cmd, now) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	return d.SandboxDiagnostics(ctx).Available
}
