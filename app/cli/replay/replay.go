// Package replay re-decides recorded tool calls under a policy, as if a
// person answered every prompt the same way, and reports what would
// change: the verdicts that differ from the recorded ones, how many
// prompts a person would have seen, and which calls ran unasked only
// because an earlier answer was remembered.
//
// Its input is JSON Lines in one of two shapes, told apart line by line:
// agate's own audit log (records with "seq" and "event"), or hook payloads
// as an agent sends them to `agate hook AGENT` (Claude Code's PreToolUse,
// Gemini CLI's BeforeTool, Cursor's events, Codex's PreToolUse, told from Claude
// Code's by its turn_id; see package agents). Only the
// calls are replayed; the events around them keep a run's taint and its
// boundaries as the daemon keeps them.
//
// Replay is pure but for what the caller passes in: the policy, and the
// facts about the disk (Request.Files, Glob, Resolve) if the caller wants
// them. It never touches the grants file or the audit log.
package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/agents"
	"github.com/agatehq/agate/policy"
)

// Answer is what the simulated person answers to every prompt.
type Answer string

// The answers: allow this call only; allow and remember for the run, the
// session, or always; deny.
const (
	AnswerOnce    Answer = "once"
	AnswerRun     Answer = "run"
	AnswerSession Answer = "session"
	AnswerAlways  Answer = "always"
	AnswerDeny    Answer = "deny"
)

// ParseAnswer checks an answer's name.
func ParseAnswer(s string) (Answer, error) {
	switch a := Answer(s); a {
	case AnswerOnce, AnswerRun, AnswerSession, AnswerAlways, AnswerDeny:
		return a, nil
	}
	return "", fmt.Errorf("answer %q: want once, run, session, always or deny", s)
}

// Remember is which of the popup's remember options the person picks
// when the answer remembers.
type Remember string

// The options, as the popup offers them: the narrowest (its default),
// the widest narrow one, or the broad grant by risks (Pepe's).
const (
	RememberNarrowest Remember = "narrowest"
	RememberWidest    Remember = "widest"
	RememberBroad     Remember = "broad"
)

// ParseRemember checks an option's name.
func ParseRemember(s string) (Remember, error) {
	switch r := Remember(s); r {
	case RememberNarrowest, RememberWidest, RememberBroad:
		return r, nil
	}
	return "", fmt.Errorf("remember %q: want narrowest, widest or broad", s)
}

// Call is one recorded tool call.
type Call struct {
	Line      int // where it is in the input, from 1
	Agent     string
	Session   string
	Run       string
	Tool      string
	Args      map[string]any
	Cwd       string
	Workspace string
	// Interactive is false for a call nobody could be asked about.
	Interactive bool
	// Tainted is set for a call made after outside content came in, as
	// recorded (the audit log) or as the events before it say (hooks).
	Tainted bool
	// Recorded is the verdict the call got when it was made ("" for a
	// hook payload, which carries none), and RecordedBy who gave it.
	Recorded   string
	RecordedBy string
	// Subject is the call's command, path or URL, for the report.
	Subject string
}

// Source says which shape an input line had.
type Source string

// The shapes.
const (
	SourceAudit Source = "audit log"
	SourceHook  Source = "hook payloads"
)

// maxLine bounds one input line.
const maxLine = 16 << 20

// ErrTruncated marks an audit record whose subject was cut when it was
// written: the call cannot be replayed exactly.
var ErrTruncated = errors.New("the recorded subject was truncated")

// Skip is an input line that was not replayed, and why.
type Skip struct {
	Line int
	Err  error
}

// Read reads the calls in r. agent forces the agent of hook payloads
// ("" tells it from each payload's shape). A line that is not a call
// (another event, a config record) is used for its effect on runs and
// taint, or passed over; a line that cannot be read is a Skip, with its
// line number, and reading goes on.
func Read(r io.Reader, agent string) ([]Call, []Skip, Source, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		calls []Call
		skips []Skip
		src   Source
		st    = newRunState()
	)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, errLong) {
			skips = append(skips, Skip{Line: n, Err: err})
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			c, ok, lerr := st.line(n, line, agent, &src)
			switch {
			case lerr != nil:
				skips = append(skips, Skip{Line: n, Err: lerr})
			case ok:
				calls = append(calls, c)
			}
		}
		if err == io.EOF {
			return calls, skips, src, nil
		}
		if err != nil {
			return calls, skips, src, fmt.Errorf("line %d: %w", n, err)
		}
	}
}

// errLong is a line longer than maxLine.
var errLong = fmt.Errorf("a line longer than %d bytes", maxLine)

// readLine reads one line, of at most maxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		part, isPrefix, err := br.ReadLine()
		out = append(out, part...)
		if len(out) > maxLine {
			// Drain the rest of the line, then refuse it.
			for isPrefix && err == nil {
				_, isPrefix, err = br.ReadLine()
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, errLong
		}
		if err != nil || !isPrefix {
			return out, err
		}
	}
}

// runState follows the runs and taint of hook payloads.
type runState struct {
	runs    map[string]int  // agent+session: the run number, for agents that do not name runs
	tainted map[string]bool // agent+session+run
}

func newRunState() *runState {
	return &runState{runs: map[string]int{}, tainted: map[string]bool{}}
}

// auditLine is the part of an audit record replay reads.
type auditLine struct {
	Seq     *uint64 `json:"seq"`
	Event   string  `json:"event"`
	Agent   string  `json:"agent"`
	Session string  `json:"session"`
	Run     string  `json:"run"`
	Tool    string  `json:"tool"`
	Subject string  `json:"subject"`
	Cwd     string  `json:"cwd"`
	Verdict string  `json:"decision"`
	By      string  `json:"by"`
	Tainted bool    `json:"tainted"`
}

func (st *runState) line(n int, line []byte, agent string, src *Source) (Call, bool, error) {
	var probe struct {
		Seq   *uint64 `json:"seq"`
		Event string  `json:"event"`
		Hook  string  `json:"hook_event_name"`
		Turn  string  `json:"turn_id"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return Call{}, false, fmt.Errorf("not a JSON object: %w", err)
	}
	if probe.Seq != nil && probe.Event != "" {
		setSource(src, SourceAudit)
		return auditCall(n, line)
	}
	setSource(src, SourceHook)
	if agent == "" && probe.Turn != "" && probe.Hook != "" {
		// Codex names its events as Claude Code does; only Codex's
		// payloads carry the turn's id.
		agent = hooks.Codex
	}
	return st.hookCall(n, line, agent, probe.Hook)
}

func setSource(src *Source, s Source) {
	if *src == "" {
		*src = s
	}
}

// auditCall reads a decision record. The record keeps the call's subject,
// not its arguments: they are rebuilt from it.
func auditCall(n int, line []byte) (Call, bool, error) {
	var a auditLine
	if err := json.Unmarshal(line, &a); err != nil {
		return Call{}, false, err
	}
	if a.Event != "decision" {
		return Call{}, false, nil
	}
	if strings.HasSuffix(a.Subject, " more bytes)") && strings.Contains(a.Subject, "… (") {
		return Call{}, false, ErrTruncated
	}
	if a.Tool == "" || a.Cwd == "" {
		return Call{}, false, errors.New("a decision with no tool or no cwd")
	}
	return Call{
		Line: n, Agent: a.Agent, Session: a.Session, Run: a.Run, Tool: a.Tool, Cwd: a.Cwd,
		Args:        argsFromSubject(a.Tool, a.Subject),
		Interactive: a.By != "unattended",
		Tainted:     a.Tainted, Recorded: a.Verdict, RecordedBy: a.By, Subject: a.Subject,
	}, true, nil
}

// argsFromSubject rebuilds a call's arguments from its recorded subject:
// a JSON object is the arguments themselves; anything else is the
// command, path or URL, under each name the tools of its kind use.
func argsFromSubject(tool, subject string) map[string]any {
	if strings.HasPrefix(subject, "{") {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(subject))
		d.UseNumber()
		if d.Decode(&m) == nil {
			return m
		}
	}
	if subject == "" || subject == tool {
		return map[string]any{}
	}
	if strings.Contains(subject, "://") && !strings.ContainsAny(subject, " \t\n") {
		return map[string]any{"url": subject}
	}
	if strings.HasPrefix(subject, "/") && !strings.ContainsAny(subject, " \t\n") {
		return map[string]any{"file_path": subject, "path": subject, "absolute_path": subject, "notebook_path": subject}
	}
	return map[string]any{"command": subject}
}

// agentOf tells a hook payload's agent from its event's name.
func agentOf(event string) (string, error) {
	switch {
	case event == "":
		return "", errors.New("neither an audit record nor a hook payload (no hook_event_name)")
	case strings.HasPrefix(event, "Before") || strings.HasPrefix(event, "After") || event == "SessionEnd" || event == "PreCompress":
		return hooks.Gemini, nil // events both name alike (SessionStart) are read as Claude Code's
	case event[0] >= 'a' && event[0] <= 'z':
		return hooks.Cursor, nil // Cursor's events are camelCase
	default:
		return hooks.ClaudeCode, nil
	}
}

func (st *runState) hookCall(n int, line []byte, agent, event string) (Call, bool, error) {
	if agent == "" {
		var err error
		if agent, err = agentOf(event); err != nil {
			return Call{}, false, err
		}
	}
	ev, err := agents.Parse(agent, line, nil)
	if err != nil {
		return Call{}, false, err
	}
	key := ev.Agent + "\x00" + ev.Session
	run := ev.Run
	if run == "" {
		run = fmt.Sprint(st.runs[key])
	}
	switch ev.Kind {
	case hooks.KindNewRun:
		if ev.Run == "" {
			st.runs[key]++
		}
		return Call{}, false, nil
	case hooks.KindTaint:
		st.tainted[key+"\x00"+run] = true
		return Call{}, false, nil
	case hooks.KindCall:
	default:
		return Call{}, false, nil
	}
	cwd := ev.Cwd
	if cwd == "" {
		cwd = ev.Workspace
	}
	if cwd == "" {
		return Call{}, false, errors.New("a call with no cwd")
	}
	return Call{
		Line: n, Agent: ev.Agent, Session: ev.Session, Run: run, Tool: ev.Tool, Args: ev.Args,
		Cwd: cwd, Workspace: ev.Workspace, Interactive: ev.Interactive,
		Tainted: st.tainted[key+"\x00"+run], Subject: subjectOf(ev.Tool, ev.Args),
	}, true, nil
}

// subjectOf is a short form of a call for the report.
func subjectOf(tool string, args map[string]any) string {
	for _, k := range []string{"command", "file_path", "path", "absolute_path", "notebook_path", "url", "pattern", "query"} {
		if s, ok := args[k].(string); ok && s != "" {
			return s
		}
	}
	b, err := json.Marshal(args)
	if err != nil || len(args) == 0 {
		return tool
	}
	return string(b)
}

// Options says how to replay.
type Options struct {
	// Policy decides; PolicyFor, if set, returns the policy for a call's
	// folder instead (with the project's overlay). Facts, if set, fills
	// each request's facts about the disk before it is decided.
	Policy    *policy.Policy
	PolicyFor func(cwd string) *policy.Policy
	Facts     func(*policy.Request)
	// Grants are the grants saved before the first call, by agent.
	Grants func(agent string) []policy.Grant
	// Answer is what the person answers to every prompt, and Remember
	// which option an answer that remembers picks.
	Answer   Answer
	Remember Remember
	// Workspace is the folder the remember options are described for.
	Workspace string
	// Confine, if set, reports whether an agent's shell calls can run in
	// agate's sandbox (agate rewrites its calls, and the sandbox works):
	// what the sandbox can hold is then decided as the daemon decides it
	// there, and runs confined instead of asking.
	Confine func(agent string) bool
}

// Outcome is what one call gets in the replay.
type Outcome struct {
	Call     Call
	Decision policy.Decision
	// Prompted is set when a person would have been asked; Verdict is
	// then the simulated answer's.
	Prompted bool
	Verdict  policy.Verdict
	// Remembered, for a call that ran unasked because of an earlier
	// answer, is the line of that answer's call and the grant it left.
	Remembered     int
	RememberedWhat string
	// Confined is set when the call runs in the sandbox, cut to what
	// was judged of it.
	Confined bool
	// Changed is set when the verdict differs from the recorded one.
	Changed bool
}

// Report is what a replay found.
type Report struct {
	Outcomes []Outcome
	Prompts  int
	// RecordedPrompts counts the calls recorded as answered by a person.
	RecordedPrompts int
	Changed         int
	LetThrough      int // calls allowed only by a remembered answer
	// Confined counts the calls allowed to run in the sandbox (Options.
	// Confine), of which ConfinedNotKnown are those agate cannot tell,
	// which would ask without it.
	Confined, ConfinedNotKnown int
	ByVerdict                  map[policy.Verdict]int
}

// remembered is a grant left by an answer, with where it came from.
type remembered struct {
	grant policy.Grant
	line  int
}

// Run replays calls in order.
func Run(calls []Call, o Options) (*Report, error) {
	if o.Policy == nil {
		return nil, errors.New("no policy to replay under")
	}
	rep := &Report{ByVerdict: map[policy.Verdict]int{}}
	always := map[string][]remembered{}  // agent
	session := map[string][]remembered{} // agent, session
	run := map[string][]remembered{}     // agent, session, run
	for _, c := range calls {
		skey := c.Agent + "\x00" + c.Session
		rkey := skey + "\x00" + c.Run
		var saved []policy.Grant
		if o.Grants != nil {
			saved = o.Grants(c.Agent)
		}
		mem := append(append([]remembered(nil), always[c.Agent]...), session[skey]...)
		req := func(extra []remembered, runs []remembered) *policy.Request {
			r := &policy.Request{
				Tool: c.Tool, Args: c.Args, Agent: c.Agent, Cwd: c.Cwd, Workspace: c.Workspace,
				Interactive: c.Interactive, Tainted: c.Tainted,
				Grants: append(append([]policy.Grant(nil), saved...), grantsOf(extra)...),
			}
			r.RunGrants = grantsOf(runs)
			r.Sandbox = o.Confine != nil && o.Confine(c.Agent)
			if o.Facts != nil {
				o.Facts(r)
			}
			return r
		}
		pol := o.Policy
		if o.PolicyFor != nil {
			pol = o.PolicyFor(c.Cwd)
		}
		dec := pol.Decide(req(mem, run[rkey]))
		out := Outcome{Call: c, Decision: dec, Verdict: dec.Verdict}
		if o.Confine != nil && o.Confine(c.Agent) && dec.Judged() && dec.Confine.Possible {
			out.Confined = true
			rep.Confined++
			if dec.Risks.Has(policy.Unknown) {
				rep.ConfinedNotKnown++
			}
		}
		if dec.Verdict == policy.Allow && dec.Layer == policy.LayerGrant {
			// Which remembered answer let it through? Decide without each.
			if base := pol.Decide(req(nil, nil)); base.Verdict != policy.Allow {
				out.Remembered, out.RememberedWhat = firstCovering(pol, req, mem, run[rkey])
				if out.Remembered > 0 {
					rep.LetThrough++
				}
			}
		}
		if dec.Verdict == policy.Ask {
			out.Prompted = true
			rep.Prompts++
			switch o.Answer {
			case AnswerDeny:
				out.Verdict = policy.Deny
			default:
				out.Verdict = policy.Allow
				gs := pick(dec, o.Remember, o.Workspace)
				for _, g := range gs {
					m := remembered{grant: g, line: c.Line}
					switch o.Answer {
					case AnswerRun:
						run[rkey] = append(run[rkey], m)
					case AnswerSession:
						session[skey] = append(session[skey], m)
					case AnswerAlways:
						always[c.Agent] = append(always[c.Agent], m)
					}
				}
			}
		}
		if c.RecordedBy == "person" {
			rep.RecordedPrompts++
		}
		if c.Recorded != "" && c.Recorded != dec.Verdict.String() {
			out.Changed = true
			rep.Changed++
		}
		rep.ByVerdict[dec.Verdict]++
		rep.Outcomes = append(rep.Outcomes, out)
	}
	return rep, nil
}

func grantsOf(ms []remembered) []policy.Grant {
	out := make([]policy.Grant, len(ms))
	for i, m := range ms {
		out[i] = m.grant
	}
	return out
}

// firstCovering finds the remembered answer that lets c through: the
// first whose grant alone allows it.
func firstCovering(p *policy.Policy, req func(extra, runs []remembered) *policy.Request, mem, runs []remembered) (int, string) {
	for _, m := range mem {
		if p.Decide(req([]remembered{m}, nil)).Verdict == policy.Allow {
			return m.line, m.grant.String()
		}
	}
	for _, m := range runs {
		if p.Decide(req(nil, []remembered{m})).Verdict == policy.Allow {
			return m.line, m.grant.String()
		}
	}
	return 0, ""
}

// pick returns the grants the person's remember option leaves, as the
// popup offers them: the narrow proposals, widened, or the broad grant.
// An ask that offers nothing to remember (a secret read, an unknown
// program, for the broad grant) leaves nothing: it is allowed once.
func pick(dec policy.Decision, r Remember, workspace string) []policy.Grant {
	switch r {
	case RememberBroad:
		if dec.Grant.Tool != "" && !dec.Risks.Has(policy.Secret) && !dec.Risks.Has(policy.Unknown) {
			return []policy.Grant{dec.Grant}
		}
		return nil
	case RememberWidest:
		out := make([]policy.Grant, 0, len(dec.Proposals))
		for _, g := range dec.Proposals {
			if w := g.Wider(workspace); len(w) > 0 {
				g = w[len(w)-1]
			}
			out = append(out, g)
		}
		return out
	default:
		return append([]policy.Grant(nil), dec.Proposals...)
	}
}
