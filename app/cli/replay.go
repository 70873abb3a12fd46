package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agatehq/agate/app/cli/replay"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/policy"
)

func init() {
	register(&command{
		name: "replay",
		args: "[--config FILE] [--answer once|run|session|always|deny] [--remember narrowest|widest|broad] [--agent NAME] [--saved-grants] [--no-facts] [--all] [--json] FILE.jsonl",
		summary: "re-decide recorded calls (the audit log, or agents' hook payloads) under a config, " +
			"answering every prompt alike, and print what changes",
		run: cmdReplay,
	})
}

func cmdReplay(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "replay")
	var cf configFlags
	cf.add(fs)
	answer := fs.String("answer", "session", "what the person answers to every prompt: once, run, session, always or deny")
	remember := fs.String("remember", "narrowest", "which remember option an answer picks: narrowest (the popup's default), widest, or broad")
	agent := fs.String("agent", "", "the agent of hook payloads: claude-code, gemini or cursor (default: told from each payload)")
	savedGrants := fs.Bool("saved-grants", false, "start from the grants saved in grants.toml (default: none)")
	noFacts := fs.Bool("no-facts", false, "judge without looking at the disk (what git could give back, what a glob names)")
	all := fs.Bool("all", false, "print every call, not only those that change or that a remembered answer lets through")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	keep := fs.String("keep", "config", "whether agate keeps a copy of what a call deletes or overwrites, as the daemon does, taking the store to have room: "+
		"config ([undo] keep), on or off; with --no-facts on takes every such file to be one git cannot give back (the worst case, which keeping allows)")
	confine := fs.String("confine", "config", "whether what the sandbox can hold runs confined, as where agate rewrites the agent's calls and bwrap or Landlock works: "+
		"config ([sandbox] confine_unasked), on or off")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usagef("want one file of recorded calls (- for standard input)")
	}
	ans, err := replay.ParseAnswer(*answer)
	if err != nil {
		return usagef("--answer: %v", err)
	}
	rem, err := replay.ParseRemember(*remember)
	if err != nil {
		return usagef("--remember: %v", err)
	}
	paths, pol, err := cf.policy()
	if err != nil {
		return err
	}

	var in io.Reader = e.Stdin
	name := "standard input"
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		defer f.Close()
		in, name = f, pos[0]
	}
	calls, skips, src, err := replay.Read(in, *agent)
	if err != nil {
		return fmt.Errorf("replay %s: %w", name, err)
	}

	o := replay.Options{Policy: pol, Answer: ans, Remember: rem}
	switch on := pol.Config().Sandbox.ConfineUnasked; *confine {
	case "on", "config":
		if *confine == "on" || on {
			// The agents whose shell calls agate rewrites (Codex only
			// where it runs them with full access: taken as so here).
			o.Confine = func(agent string) bool { return agent == "claude-code" || agent == "gemini" || agent == "codex" }
		}
	case "off":
	default:
		return usagef("--confine: want config, on or off, not %q", *confine)
	}
	if home, err := os.UserHomeDir(); err == nil {
		o.Workspace = home
	}
	if *savedGrants {
		g, err := grants.Load(paths.Grants)
		if err != nil {
			return usageErr(err)
		}
		o.Grants = g.For
	}
	if !*noFacts {
		f := machine.NewFacts()
		o.Facts = func(r *policy.Request) {
			r.Resolve, r.Glob, r.Files, r.Repo, r.ReadPatch = machine.ResolvePath, machine.Glob, f.Files, f.Repo, f.ReadPatch
		}
	}
	switch *keep {
	case "config", "on", "off":
	default:
		return usagef("--keep: want config, on or off, not %q", *keep)
	}
	if *keep == "on" || *keep == "config" && pol.Config().Undo.Keep {
		// What the daemon keeps, taken to fit its limits: replay keeps
		// nothing, and the recorded sessions' files are not here to
		// measure. Without the disk's facts every file a call destroys is
		// taken as one git cannot give back.
		facts := o.Facts
		o.Facts = func(r *policy.Request) {
			if facts != nil {
				facts(r)
			} else {
				r.Files = func(p string) policy.FileState {
					if strings.Contains(p, "/node_modules/.bin/") || strings.HasSuffix(p, "/.venv/pyvenv.cfg") {
						// Whether a program or an environment is
						// installed is not known here, and taking it as
						// installed would let npx and uv run run as the
						// project's code with nothing to download.
						return policy.FileUnknown
					}
					return policy.FileUnrecoverable
				}
			}
			r.Keep = func(string, string) policy.KeepAnswer { return policy.KeepAnswer{OK: true} }
		}
	}
	// Each project's overlay, as the daemon applies it.
	overlays := map[string]*policy.Policy{}
	o.PolicyFor = func(cwd string) *policy.Policy {
		if p, ok := overlays[cwd]; ok {
			return p
		}
		p := config.WithOverlay(pol, cwd)
		overlays[cwd] = p
		return p
	}
	rep, err := replay.Run(calls, o)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeReplayJSON(e.Stdout, rep, skips)
	}
	writeReplay(e.Stdout, rep, skips, replayHeader{
		file: name, source: src, config: paths.Config, answer: ans, remember: rem, all: *all,
	})
	return nil
}

type replayHeader struct {
	file     string
	source   replay.Source
	config   string
	answer   replay.Answer
	remember replay.Remember
	all      bool
}

func writeReplay(w io.Writer, rep *replay.Report, skips []replay.Skip, h replayHeader) {
	n := len(rep.Outcomes)
	fmt.Fprintf(w, "replayed %d calls from %s (%s) under %s, answering %q", n, filepath.Base(h.file), orWord(string(h.source), "no calls"), h.config, h.answer)
	if h.answer != replay.AnswerOnce && h.answer != replay.AnswerDeny {
		fmt.Fprintf(w, ", remembering the %s option", h.remember)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  allowed %d, asked %d, denied %d\n", rep.ByVerdict[policy.Allow], rep.ByVerdict[policy.Ask], rep.ByVerdict[policy.Deny])
	fmt.Fprintf(w, "  prompts a person would see: %d (%s of calls)", rep.Prompts, percent(rep.Prompts, n))
	if h.source == replay.SourceAudit {
		fmt.Fprintf(w, "; recorded: %d", rep.RecordedPrompts)
	}
	fmt.Fprintln(w)
	if h.source == replay.SourceAudit {
		fmt.Fprintf(w, "  verdicts that change from the recorded ones: %d\n", rep.Changed)
	}
	fmt.Fprintf(w, "  calls a remembered answer let through unasked: %d\n", rep.LetThrough)
	fmt.Fprintf(w, "  calls run confined, unasked: %d, of which %d agate cannot tell and would ask about without the sandbox\n", rep.Confined, rep.ConfinedNotKnown)
	if len(skips) > 0 {
		fmt.Fprintf(w, "  lines not replayed: %d\n", len(skips))
	}
	for _, o := range rep.Outcomes {
		if !h.all && !o.Changed && o.Remembered == 0 {
			continue
		}
		fmt.Fprintf(w, "\nline %d  %s  %s\n", o.Call.Line, o.Call.Tool, oneLine(o.Call.Subject, 120))
		switch {
		case o.Changed:
			fmt.Fprintf(w, "  %s, recorded %s: %s\n", o.Decision.Verdict, o.Call.Recorded, o.Decision.Reason)
		default:
			fmt.Fprintf(w, "  %s: %s\n", o.Decision.Verdict, o.Decision.Reason)
		}
		if o.Prompted {
			fmt.Fprintf(w, "  a person is asked, and answers %s\n", h.answer)
		}
		if o.Remembered > 0 {
			fmt.Fprintf(w, "  let through by the answer at line %d, which remembered %s\n", o.Remembered, o.RememberedWhat)
		}
	}
	for _, s := range skips {
		fmt.Fprintf(w, "\nline %d not replayed: %v\n", s.Line, s.Err)
	}
}

func writeReplayJSON(w io.Writer, rep *replay.Report, skips []replay.Skip) error {
	type outcome struct {
		Line       int    `json:"line"`
		Tool       string `json:"tool"`
		Subject    string `json:"subject"`
		Decision   string `json:"decision"`
		Reason     string `json:"reason"`
		Recorded   string `json:"recorded,omitempty"`
		Changed    bool   `json:"changed,omitempty"`
		Prompted   bool   `json:"prompted,omitempty"`
		Answered   string `json:"answered,omitempty"`
		Remembered int    `json:"let_through_by_line,omitempty"`
		Grant      string `json:"let_through_by_grant,omitempty"`
	}
	type skip struct {
		Line int    `json:"line"`
		Err  string `json:"error"`
	}
	out := struct {
		Calls      int       `json:"calls"`
		Prompts    int       `json:"prompts"`
		Recorded   int       `json:"recorded_prompts"`
		Changed    int       `json:"changed"`
		LetThrough int       `json:"let_through"`
		Confined   int       `json:"confined"`
		NotKnown   int       `json:"confined_not_known"`
		Outcomes   []outcome `json:"outcomes"`
		Skipped    []skip    `json:"skipped"`
	}{Calls: len(rep.Outcomes), Prompts: rep.Prompts, Recorded: rep.RecordedPrompts, Changed: rep.Changed, LetThrough: rep.LetThrough,
		Confined: rep.Confined, NotKnown: rep.ConfinedNotKnown,
		Outcomes: []outcome{}, Skipped: []skip{}}
	for _, o := range rep.Outcomes {
		oc := outcome{Line: o.Call.Line, Tool: o.Call.Tool, Subject: o.Call.Subject, Decision: o.Decision.Verdict.String(),
			Reason: o.Decision.Reason, Recorded: o.Call.Recorded, Changed: o.Changed, Prompted: o.Prompted,
			Remembered: o.Remembered, Grant: o.RememberedWhat}
		if o.Prompted {
			oc.Answered = o.Verdict.String()
		}
		out.Outcomes = append(out.Outcomes, oc)
	}
	for _, s := range skips {
		out.Skipped = append(out.Skipped, skip{Line: s.Line, Err: s.Err.Error()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func percent(n, of int) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

func orWord(s, w string) string {
	if s == "" {
		return w
	}
	return s
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
