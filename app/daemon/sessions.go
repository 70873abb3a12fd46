package daemon

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/policy"
)

// sessions holds what agate remembers about agents' sessions in memory:
// the grants given for the session, and per run its taint and this_run
// grants. Nothing here is persisted: a restart forgets it, as Pepe's
// session answers are forgotten.
type sessions struct {
	mu   sync.Mutex // guards byID
	byID map[sessionKey]*session
	idle time.Duration // sessions unused this long are dropped
}

type sessionKey struct{ agent, id string }

type session struct {
	grants []policy.Grant // session and session_any answers
	// confinedGrants are the session answers of a person who chose to
	// let the call run confined: what they cover runs confined again,
	// never unconfined.
	confinedGrants []policy.Grant
	run            string // the current run's id
	runs           map[string]*runState
	lastSeen       time.Time
	// confined are the commands that ran unasked in the sandbox, and
	// when: the same command again is decided without that free pass, so
	// that one that failed confined can be asked for unconfined.
	confined map[string]time.Time
	// calls are the confined calls by the agent's tool_use_id (their
	// command), and failed the commands that ran confined and failed,
	// and when: the same command again asks (failedConfined).
	calls  map[string]confinedCall
	failed map[string]time.Time
	// allowed are the calls (callKey) a person allowed in agate, and
	// when: the agent's own prompt about the same call is answered
	// allow for a short while (Codex's PermissionRequest, after its
	// PreToolUse hook asked agate).
	allowed map[string]time.Time
	// made are the files the session wrote into being, by path: deleting
	// or rewriting one it left as it was loses nothing of the person's.
	made map[string]*madeFile
}

type runState struct {
	tainted        bool
	grants         []policy.Grant // this_run answers
	confinedGrants []policy.Grant // this_run answers to run confined
}

func newSessions(idle time.Duration) *sessions {
	return &sessions{byID: map[sessionKey]*session{}, idle: idle}
}

// runKey is the run a request belongs to: the one it names, else the
// session's current one.
func (s *session) runFor(id string) (string, *runState) {
	if id == "" {
		id = s.run
	}
	r := s.runs[id]
	if r == nil {
		r = &runState{}
		s.runs[id] = r
	}
	return id, r
}

func (ss *sessions) get(agent, id string, now time.Time) *session {
	k := sessionKey{agent, id}
	s := ss.byID[k]
	if s == nil {
		s = &session{runs: map[string]*runState{}, run: "1"}
		ss.byID[k] = s
	}
	s.lastSeen = now
	return s
}

// snapshot is what a decision needs from a session.
type snapshot struct {
	run       string
	tainted   bool
	grants    []policy.Grant
	runGrants []policy.Grant
	// confined and runConfined are the grants whose calls run confined.
	confined, runConfined []policy.Grant
}

// view returns the state a call of agent in session (and run) decides
// under.
func (ss *sessions) view(agent, id, run string, now time.Time) snapshot {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	rid, r := s.runFor(run)
	return snapshot{run: rid, tainted: r.tainted, grants: append([]policy.Grant(nil), s.grants...),
		runGrants: append([]policy.Grant(nil), r.grants...),
		confined:  append([]policy.Grant(nil), s.confinedGrants...), runConfined: append([]policy.Grant(nil), r.confinedGrants...)}
}

// taint marks a run as having taken in outside content.
func (ss *sessions) taint(agent, id, run string, now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	_, r := s.runFor(run)
	r.tainted = true
}

// newRun starts a new run: the previous run's taint and this_run grants
// end with it.
func (ss *sessions) newRun(agent, id, run string, now time.Time) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	delete(s.runs, s.run)
	s.forgetUnfixed()
	if run == "" {
		run = now.UTC().Format("20060102T150405.000000000")
	}
	s.run = run
	s.runs[run] = &runState{}
	return run
}

// grant records a session-scoped grant, widening an existing grant for
// the same tool in place.
func (ss *sessions) grant(agent, id string, g policy.Grant, now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	s.grants = grants.Widen(s.grants, g)
}

// grantConfined records a grant whose calls run confined: for the run
// when run is set, else for the session. Such grants are kept apart from
// the others (never widened into one that runs unconfined).
func (ss *sessions) grantConfined(agent, id, run string, g policy.Grant, now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	if run != "" {
		_, r := s.runFor(run)
		r.confinedGrants = grants.Widen(r.confinedGrants, g)
		return
	}
	s.confinedGrants = grants.Widen(s.confinedGrants, g)
}

// grantRun records a this_run grant.
func (ss *sessions) grantRun(agent, id, run string, g policy.Grant, now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	_, r := s.runFor(run)
	r.grants = grants.Widen(r.grants, g)
}

// confineAgain is how long after a command ran confined the same command
// is decided without the sandbox's free pass.
const confineAgain = 10 * time.Minute

// ranConfined notes a command that runs unasked in the sandbox.
func (ss *sessions) ranConfined(agent, id, command string, now time.Time) {
	if command == "" {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	if s.confined == nil {
		s.confined = map[string]time.Time{}
	}
	s.confined[command] = now
}

// confinedBefore reports whether command ran confined in the session
// lately: an agent running it again most likely saw it fail there.
func (ss *sessions) confinedBefore(agent, id, command string, now time.Time) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.byID[sessionKey{agent, id}]
	if s == nil || s.confined == nil {
		return false
	}
	at, ok := s.confined[command]
	return ok && now.Sub(at) < confineAgain
}

// reaskWindow is how long after a person allowed a call in agate the
// agent's own prompt about the same call is answered for them.
const reaskWindow = 2 * time.Minute

// personAllowed notes a call a person allowed in agate.
func (ss *sessions) personAllowed(agent, id, call string, now time.Time) {
	if id == "" {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	if s.allowed == nil {
		s.allowed = map[string]time.Time{}
	}
	for k, at := range s.allowed {
		if now.Sub(at) >= reaskWindow {
			delete(s.allowed, k)
		}
	}
	if call != "" {
		s.allowed[call] = now
	}
}

// allowedLately reports whether a person allowed call in agate, in this
// session, within reaskWindow.
func (ss *sessions) allowedLately(agent, id, call string, now time.Time) bool {
	if id == "" {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.byID[sessionKey{agent, id}]
	if s == nil || s.allowed == nil {
		return false
	}
	at, ok := s.allowed[call]
	return call != "" && ok && now.Sub(at) < reaskWindow
}

// sweep drops sessions idle for longer than the idle limit.
func (ss *sessions) sweep(now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for k, s := range ss.byID {
		if now.Sub(s.lastSeen) > ss.idle {
			delete(ss.byID, k)
		}
	}
}

func (ss *sessions) count() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.byID)
}

// list describes the live sessions, for the grants panel.
func (ss *sessions) list() []api.SessionInfo {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out []api.SessionInfo
	for k, s := range ss.byID {
		info := api.SessionInfo{Agent: k.agent, Session: k.id, Run: s.run, LastSeen: s.lastSeen}
		for _, g := range s.grants {
			info.Grants = append(info.Grants, g.String())
		}
		if r := s.runs[s.run]; r != nil {
			info.Tainted = r.tainted
			for _, g := range r.grants {
				info.RunGrants = append(info.RunGrants, g.String())
			}
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Agent != out[j].Agent {
			return out[i].Agent < out[j].Agent
		}
		return out[i].Session < out[j].Session
	})
	return out
}

// callKey names one call exactly: its tool, the folder it runs in (a
// relative path is another file elsewhere) and its arguments, encoded
// with their keys sorted. A string argument's trailing newlines are not
// part of it: Codex's PermissionRequest gives a patch without the one its
// PreToolUse had.
func callKey(tool, cwd string, args map[string]any) string {
	norm := make(map[string]any, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok {
			v = strings.TrimRight(s, "\n")
		}
		norm[k] = v
	}
	b, err := json.Marshal(norm)
	if err != nil {
		return "" // never matches a noted call: see personAllowed's callers
	}
	return tool + "\x00" + cwd + "\x00" + string(b)
}

// confinedCall notes a call that runs confined, by the agent's id for it
// (or by its command, for an agent that gives calls no id), so that its
// outcome can say whether it failed there.
func (ss *sessions) confinedCall(agent, id, toolUseID, command, how string, now time.Time) {
	if command == "" {
		return
	}
	toolUseID = confinedKey(toolUseID, command)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	if s.calls == nil {
		s.calls = map[string]confinedCall{}
	}
	if len(s.calls) >= maxConfinedCalls {
		clear(s.calls) // the oldest outcomes are long in
	}
	s.calls[toolUseID] = confinedCall{command: command, how: how}
}

// confinedCall is a call that runs confined, waiting for its outcome.
type confinedCall struct {
	command string
	how     string // Confinement.Describe
}

// confinedKey is what a confined call waits for its outcome under: the
// agent's id for the call, or, for an agent that gives none (Gemini CLI),
// its command.
func confinedKey(toolUseID, command string) string {
	if toolUseID != "" {
		return toolUseID
	}
	return "command\x00" + command
}

// maxConfinedCalls bounds the confined calls a session keeps waiting for
// their outcome.
const maxConfinedCalls = 256

// confinedOutcome records what became of a confined call: one that failed
// there asks the next time; one that ran clears that. It returns how the
// call was confined, "" for a call that was not.
func (ss *sessions) confinedOutcome(agent, id, toolUseID string, failed bool, now time.Time) string {
	if toolUseID == "" {
		return ""
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.byID[sessionKey{agent, id}]
	if s == nil || s.calls == nil {
		return ""
	}
	c, ok := s.calls[toolUseID]
	if !ok {
		return ""
	}
	delete(s.calls, toolUseID)
	if s.failed == nil {
		s.failed = map[string]time.Time{}
	}
	if failed {
		s.failed[c.command] = now
	} else {
		delete(s.failed, c.command)
	}
	return c.how
}

// failedConfined reports whether command ran confined in the session
// lately and failed there.
func (ss *sessions) failedConfined(agent, id, command string, now time.Time) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.byID[sessionKey{agent, id}]
	if s == nil || s.failed == nil {
		return false
	}
	at, ok := s.failed[command]
	return ok && now.Sub(at) < confineAgain
}
