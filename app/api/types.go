package api

import (
	"fmt"
	"strings"
	"time"

	"github.com/agatehq/agate/policy/verdict"
)

// Prefix is the version prefix of every route of the local API.
const Prefix = "/v1"

// DecideRequest asks the daemon about one tool call (POST /v1/decide).
type DecideRequest struct {
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"args,omitempty"`
	Agent     string         `json:"agent"`               // "claude-code", "gemini", "cursor", ...
	Session   string         `json:"session,omitempty"`   // the agent's session or conversation id
	Run       string         `json:"run,omitempty"`       // the run (one prompt's turn) within the session; "" = the session's current run
	Cwd       string         `json:"cwd"`                 // absolute
	Workspace string         `json:"workspace,omitempty"` // the project root, if the agent says
	// Interactive says a person is on the agent's side now (false for a
	// cron, an API client with nobody behind it, Claude Code in
	// bypassPermissions or dontAsk mode).
	Interactive bool `json:"interactive"`
	// AgentPrompt says the caller can ask the person itself: when no
	// prompter is attached to agate, an ask is handed back to it.
	AgentPrompt bool `json:"agent_prompt"`
	// Tainted marks the run as having taken in outside content, on top of
	// what the daemon already knows from /v1/taint.
	Tainted bool `json:"tainted,omitempty"`
	// Headless says the agent runs with nobody at its own prompt (Claude
	// Code's -p and SDK runs, Gemini CLI's -p, codex exec): an ask goes
	// to agate's own prompt when one is attached, else it is denied, and
	// the project's code loses its free pass unless agate's prompt is
	// there.
	Headless bool `json:"headless,omitempty"`
	// ToolUseID is the agent's id for this call (Claude Code's
	// tool_use_id), when it has one: what the agent later says became of
	// the call (POST /v1/outcome) is tied to the decision by it.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Reasks says the agent is about to show its own prompt for a call
	// its pre-tool hook put to agate already (Codex's PermissionRequest):
	// a call that asks, and that a person allowed in agate moments ago in
	// the same session, is allowed rather than asked twice.
	Reasks bool `json:"reasks,omitempty"`
	// AgentSandbox, when set, says the agent runs the call inside a
	// sandbox of its own that agate's cannot start within (Codex's
	// workspace-write): the call is judged as without confinement, never
	// rewritten to fail there.
	AgentSandbox string `json:"agent_sandbox,omitempty"`
	// MCP is set by agate's MCP proxy for a tools/call it forwards.
	MCP *MCPCall `json:"mcp,omitempty"`
}

// Answerer says who or what settled a decision.
type Answerer string

// The answerers, as the audit log records them.
const (
	ByPolicy     Answerer = "policy"      // the policy decided without asking
	ByPerson     Answerer = "person"      // a person answered (the Via field says where)
	ByTimeout    Answerer = "timeout"     // nobody answered in time: denied
	ByAgent      Answerer = "agent"       // handed to the agent's own prompt
	ByUnattended Answerer = "unattended"  // nobody could be asked: denied
	ByOverflow   Answerer = "overflow"    // too many questions waiting: denied
	ByShutdown   Answerer = "shutdown"    // the daemon stopped while the question waited: denied
	ByPrompter   Answerer = "prompter"    // the prompter failed (window closed, error): denied
	ByDaemonDown Answerer = "daemon_down" // the hook could not reach the daemon
	ByMCPProxy   Answerer = "mcp_proxy"   // a hook's call of a proxied server: the proxy decides it
)

// DecideResponse is the daemon's answer for one call.
type DecideResponse struct {
	Decision   verdict.Verdict `json:"decision"` // allow, deny, or ask (hand to the agent's prompt)
	Layer      verdict.Layer   `json:"layer"`
	Rule       string          `json:"rule,omitempty"`
	Source     string          `json:"source,omitempty"`
	Category   string          `json:"category"`
	Risks      []string        `json:"risks"`
	Reason     string          `json:"reason"`
	By         Answerer        `json:"by"`
	Via        string          `json:"via,omitempty"`         // where the person answered: "tray", "terminal", "api"
	ApprovalID string          `json:"approval_id,omitempty"` // set when a person was asked
	Scope      Scope           `json:"scope,omitempty"`       // the scope of the person's answer
	Note       string          `json:"note,omitempty"`        // the person's reason, if they gave one
	// Sandbox says an allowed shell call is to run confined. The daemon
	// alone decides it; the hook rewrites the call, or denies it when it
	// cannot.
	Sandbox bool `json:"sandbox,omitempty"`
	// Confine is the profile a confined call runs with (set with
	// Sandbox): cut to what agate judged of it.
	Confine *Confinement `json:"confine,omitempty"`
	// Kept, on an allow, is what agate kept a copy of before it answered:
	// what the call deletes or overwrites that git cannot give back.
	Kept *Kept `json:"kept,omitempty"`
}

// Kept is one keep: the copies agate made of what a call would destroy,
// which `agate undo ID` puts back.
type Kept struct {
	ID    string   `json:"id"`
	Paths []string `json:"paths"`
	Files int      `json:"files"`
	Bytes int64    `json:"bytes"`
}

// Confinement is how an allowed call runs in agate's sandbox, as the
// daemon judged it: in Work (the project), writable or not, with more
// writable paths where the judgment says so, the secret stores hidden;
// without the network, unless a person allowed the call as the popup
// showed it, with the network (Net). The hook carries all of it in the
// rewritten command (`agate sandbox --strict ...`).
type Confinement struct {
	Work     string   `json:"work"`
	ReadOnly bool     `json:"read_only,omitempty"` // nothing writable but a private /tmp
	Writable []string `json:"writable,omitempty"`  // besides Work, when it is writable
	Why      string   `json:"why,omitempty"`       // what was judged: "it only reads"
	// Cache is the toolchains' cache of confined builds (GOCACHE, npm's,
	// pip's), writable, apart from the person's own: set when the call
	// runs the project's code.
	Cache string `json:"cache,omitempty"`
	// Net opens the network: only for a call a person allowed so.
	Net bool `json:"net,omitempty"`
	// What the config adds to the sandbox's built-in lists, carried in
	// the rewritten line so that its runner reads no config: [auto]
	// protected_paths (kept read-only), [auto] secret_paths (hidden), the
	// variables [secrets] names (never passed on).
	Protected []string `json:"protected,omitempty"`
	Secrets   []string `json:"secrets,omitempty"`
	SecretEnv []string `json:"secret_env,omitempty"`
}

// Describe says how a confined call runs, for the agent, the audit log
// and the Activity row.
func (c *Confinement) Describe() string {
	if c == nil {
		return ""
	}
	w := "the project writable"
	if c.ReadOnly {
		w = "read-only but a private /tmp"
	}
	if len(c.Writable) > 0 {
		w += ", " + strings.Join(c.Writable, ", ") + " writable"
	}
	net := "no network"
	if c.Net {
		net = "with the network"
	}
	return "in agate's sandbox, " + w + ", " + net + ", the credential stores hidden"
}

// Brief says how a confined call runs in a few words, for the popup:
// "the project writable, no network, credential stores hidden".
func (c *Confinement) Brief() string {
	if c == nil {
		return ""
	}
	var w string
	switch {
	case c.ReadOnly && len(c.Writable) == 0:
		w = "nothing writable"
	case c.ReadOnly:
		w = strings.Join(c.Writable, ", ") + " writable"
	case len(c.Writable) > 0:
		w = "the project and " + strings.Join(c.Writable, ", ") + " writable"
	default:
		w = "the project writable"
	}
	net := "no network"
	if c.Net {
		net = "with the network"
	}
	return w + ", " + net + ", credential stores hidden"
}

// Rewritable reports whether agate's hook can rewrite agent's calls of
// tool to run confined: Claude Code's Bash (PreToolUse's updatedInput
// replaces the input), Gemini CLI's run_shell_command (BeforeTool's
// hookSpecificOutput.tool_input) and Codex's Bash (PreToolUse's
// updatedInput, the one allow it takes), OpenCode's bash (agate's
// plugin replaces the arguments OpenCode runs) and Copilot CLI's bash
// (preToolUse's modifiedArgs). Qwen Code's PreToolUse reads no rewritten
// input (its updatedInput is documented, and ignored). The daemon confines only
// these; the hook denies a confined allow of any other.
func Rewritable(agent, tool string) bool {
	switch agent {
	case "claude-code", "codex":
		return tool == "Bash"
	case "gemini":
		return tool == "run_shell_command"
	case "opencode", "copilot":
		return tool == "bash"
	}
	return false
}

// RunChoice is one way an asked shell call can run once a person allows
// it, as the popup offers it: confined (RunConfined) to what it was
// judged to need, or not (RunUnconfined).
type RunChoice struct {
	ID   string `json:"id"`   // RunConfined or RunUnconfined
	Text string `json:"text"` // what it means, for the person
}

// The ways an allowed call runs.
const (
	RunConfined   = "confined"
	RunUnconfined = "unconfined"
)

// ConfinedGrantSuffix marks, in the saved grants the daemon lists, a grant
// whose calls run confined (a person's "always" to run a call confined);
// revoking takes the grant with it or without it.
const ConfinedGrantSuffix = " (runs confined)"

// Scope is how far a person's answer reaches (Pepe's six answers).
type Scope string

// The scopes of an answer.
const (
	ScopeOnce       Scope = "once"        // this call only
	ScopeRun        Scope = "this_run"    // calls shaped like this one, for the rest of this (tainted) run
	ScopeSession    Scope = "session"     // this call's risk set, for the rest of the session
	ScopeSessionAny Scope = "session_any" // this tool with any parameters, for the rest of the session
	ScopeAlways     Scope = "always"      // saved as a grant on the agent
	ScopeDeny       Scope = "deny"        // refuse; never remembered
)

// ParseScope checks a scope name.
func ParseScope(s string) (Scope, error) {
	switch sc := Scope(s); sc {
	case ScopeOnce, ScopeRun, ScopeSession, ScopeSessionAny, ScopeAlways, ScopeDeny:
		return sc, nil
	}
	return "", fmt.Errorf("unknown scope %q (want once, this_run, session, session_any, always or deny)", s)
}

// Approval is a call waiting for a person.
type Approval struct {
	ID       string    `json:"id"`
	Agent    string    `json:"agent"`
	Session  string    `json:"session,omitempty"`
	Run      string    `json:"run,omitempty"`
	Tool     string    `json:"tool"`
	Category string    `json:"category"`
	Subject  string    `json:"subject"` // the command, path or URL, in full
	Args     any       `json:"args,omitempty"`
	Cwd      string    `json:"cwd"`
	Risks    []string  `json:"risks"`
	Tainted  bool      `json:"tainted,omitempty"`
	Layer    string    `json:"layer"`
	Rule     string    `json:"rule,omitempty"`
	Source   string    `json:"source,omitempty"`
	Reason   string    `json:"reason"`
	Grant    string    `json:"grant,omitempty"` // Pepe's broad grant for the call (the widest answer offered)
	Scopes   []Scope   `json:"scopes"`          // the answers offered
	Created  time.Time `json:"created"`
	Expires  time.Time `json:"expires"`

	// Why is why the call asks, as one sentence a person reads; Reason,
	// Layer, Rule and Source stay for the details.
	Why string `json:"why,omitempty"`
	// Headless says the agent runs with nobody at its own prompt (claude
	// -p, gemini -p, codex exec): agate's prompt is the only one.
	Headless bool `json:"headless,omitempty"`
	// Commands are a shell call's simple commands, each with what it does
	// and whether it asks on its own.
	Commands []CommandInfo `json:"commands,omitempty"`
	// Effects are what the call does, when it is not a shell command.
	Effects []EffectInfo `json:"effects,omitempty"`
	// Impact is what is at the paths the call deletes or overwrites, and
	// the hosts it reaches, looked at when it asked.
	Impact *Impact `json:"impact,omitempty"`
	// Remember are what a "session", "this_run" or "always" answer may
	// record, narrowest first; the first is the default. An answer names
	// the one chosen (AnswerRequest.Remember).
	Remember []Remember `json:"remember,omitempty"`
	// Runs are how the call can run once allowed, the first the default;
	// empty when it runs as it is (no sandbox can hold it, or the agent's
	// call cannot be rewritten). An allow names the one chosen
	// (Answer.Runs), and the call runs so.
	Runs []RunChoice `json:"runs,omitempty"`
}

// EffectInfo is one thing a call does, for people.
type EffectInfo struct {
	Kind    string `json:"kind"`              // read, write, delete, network, upload, exec, project, secret, system, elevated, persist, unknown
	Path    string `json:"path,omitempty"`    // the path read, written or deleted
	Host    string `json:"host,omitempty"`    // the host reached
	What    string `json:"what,omitempty"`    // a few words on it
	Text    string `json:"text"`              // the whole effect in words: "deletes /home/me/proj/build"
	Outside bool   `json:"outside,omitempty"` // the path is outside the project
}

// CommandInfo is one simple command of a shell call.
type CommandInfo struct {
	Text    string       `json:"text"`
	Prefix  []string     `json:"prefix,omitempty"` // program, subcommands, key operands
	Effects []EffectInfo `json:"effects,omitempty"`
	Free    bool         `json:"free,omitempty"`    // it would run unasked on its own
	Granted string       `json:"granted,omitempty"` // the grant covering it
	Why     string       `json:"why,omitempty"`     // why it asks
}

// Impact is what a call that asks would reach, looked at by the daemon
// (bounded in time and entries, links not followed).
type Impact struct {
	Paths []PathImpact `json:"paths,omitempty"`
	Hosts []HostImpact `json:"hosts,omitempty"`
}

// PathImpact is what is at one path a call deletes or overwrites.
type PathImpact struct {
	Path        string   `json:"path"`
	Exists      bool     `json:"exists"`
	Dir         bool     `json:"dir,omitempty"`
	Files       int      `json:"files"`           // files at or under it (counted up to a bound)
	Bytes       int64    `json:"bytes"`           // their size
	Names       []string `json:"names,omitempty"` // the first few, relative to Path
	More        bool     `json:"more,omitempty"`  // the count stopped at its bound
	Outside     bool     `json:"outside,omitempty"`
	Recoverable bool     `json:"recoverable,omitempty"` // git can give it back as it is
}

// HostImpact is one host a call reaches.
type HostImpact struct {
	Host  string `json:"host"`
	Sends bool   `json:"sends,omitempty"` // data goes out to it
}

// Remember is one thing an answer may record.
type Remember struct {
	Grant string `json:"grant"` // the grant, as grants.toml and `agate grants` write it
	Text  string `json:"text"`  // what it covers, in plain words
	Broad bool   `json:"broad,omitempty"`
}

// AnswerRequest answers one or more waiting approvals (POST
// /v1/approvals/answer): the batch of eVi, all, none or a chosen subset.
type AnswerRequest struct {
	IDs []string `json:"ids"`
	Answer
}

// Answer is a person's answer to one approval: what a prompter returns,
// and what /v1/approvals/answer carries for each of its ids.
type Answer struct {
	Decision verdict.Verdict `json:"decision"` // allow or deny
	// Scope is how far an allow reaches: once, this_run, session,
	// session_any, always.
	Scope  Scope  `json:"scope,omitempty"`
	Reason string `json:"reason,omitempty"` // the person's words, if any
	Via    string `json:"via,omitempty"`    // where they answered: "tray", "terminal", "api"
	// Remember is the grant a "session", "this_run" or "always" answer
	// records: one of the approval's Remember, "" for its first (the
	// narrowest). Anything not offered is refused.
	Remember string `json:"remember,omitempty"`
	// Runs is how an allowed call runs: one of the approval's Runs, ""
	// for its first. Anything not offered is refused.
	Runs string `json:"runs,omitempty"`
}

// AnswerResult says, per id, whether the answer landed.
type AnswerResult struct {
	Answered []string          `json:"answered"`
	Missing  map[string]string `json:"missing,omitempty"` // id -> why (unknown, expired, already answered)
}

// TaintRequest marks a run as having taken in outside content (POST
// /v1/taint), or starts a new run (POST /v1/runs).
type TaintRequest struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Run     string `json:"run,omitempty"`
	Source  string `json:"source,omitempty"` // what brought the content in (the tool)
	// Prompt, when a new run starts, is the person's prompt: the daemon
	// looks in it for credentials pasted into the chat (a credential in a
	// chat is compromised) and records each by kind, never the text.
	Prompt string `json:"prompt,omitempty"`
}

// Event is one item of the event stream (GET /v1/events).
type Event struct {
	Type     string          `json:"type"` // "approval.requested", "approval.granted", "approval.denied", "approval.expired", "decision", "config", "status"
	Time     time.Time       `json:"time"`
	Approval *Approval       `json:"approval,omitempty"`
	Decision *DecideResponse `json:"decision,omitempty"`
	Agent    string          `json:"agent,omitempty"`
	Tool     string          `json:"tool,omitempty"`
	Subject  string          `json:"subject,omitempty"`
	Error    string          `json:"error,omitempty"` // for "config": the config error, file:line: key: ...
	Pending  int             `json:"pending"`
}

// Status is the daemon's state (GET /v1/status).
type Status struct {
	Version      string           `json:"version"`
	PID          int              `json:"pid"`
	Socket       string           `json:"socket"`
	Mode         string           `json:"mode"`
	Paused       bool             `json:"paused,omitempty"`
	PolicySource string           `json:"policy_source"`
	ConfigError  string           `json:"config_error,omitempty"`
	LoadedAt     time.Time        `json:"loaded_at"`
	Prompters    []string         `json:"prompters"` // who can ask a person: "tray", "terminal"
	Pending      int              `json:"pending"`
	Counts       map[string]int64 `json:"counts"` // decisions by verdict and answerer
	Sessions     int              `json:"sessions"`
	Sandbox      any              `json:"sandbox,omitempty"`
	// ConfineUnasked says whether what agate lets through on its own
	// judgment runs confined here, and why not.
	ConfineUnasked string    `json:"confine_unasked,omitempty"`
	Started        time.Time `json:"started"`
	AuditLog       string    `json:"audit_log"`
	// Leaks are the secrets seen pasted into an agent's chat and not
	// rotated since; LeaksError says why the record could not be read.
	Leaks      []Leak `json:"leaks,omitempty"`
	LeaksError string `json:"leaks_error,omitempty"`
	// Proxies are the live MCP proxies (`agate mcp run`): the agents'
	// hooks step aside for the tools they have listed.
	Proxies []ProxyStatus `json:"mcp_proxies,omitempty"`
	// Managed is the managed policy an administrator installed, when
	// there is one.
	Managed *ManagedStatus `json:"managed,omitempty"`
	// Export is how the audit log's export stands, when [audit.export]
	// names a collector.
	Export *ExportStatus `json:"export,omitempty"`
	// Containers are the dev containers given a socket (`agate
	// container add`).
	Containers []ContainerStatus `json:"containers,omitempty"`
}

// ExportStatus is the audit export's state.
type ExportStatus struct {
	Endpoint  string `json:"endpoint"`
	Delivered uint64 `json:"delivered"` // the last seq the collector accepted
	// Waiting counts records read and not yet accepted (at most a batch
	// is read at once): 0 when caught up.
	Waiting     uint64    `json:"waiting"`
	LastSent    time.Time `json:"last_sent,omitzero"`
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
}

// ContainerStatus is one dev container's socket.
type ContainerStatus struct {
	Name    string `json:"name"`
	Project string `json:"project"`
	Inside  string `json:"inside"`
	Open    bool   `json:"open"` // the daemon listens on its socket
	Error   string `json:"error,omitempty"`
}

// ManagedStatus is the managed policy's state.
type ManagedStatus struct {
	File    string `json:"file"`
	InForce bool   `json:"in_force"`
	// Error says why it is not in force (the policy then fails closed:
	// manual mode, yolo off).
	Error string `json:"error,omitempty"`
	// Refused are what it refused of the person's config, each naming the
	// file, line and key.
	Refused []string `json:"refused,omitempty"`
	// Locked are the keys of config.toml it speaks for.
	Locked []string `json:"locked,omitempty"`
}

// ProxyStatus is one live MCP proxy.
type ProxyStatus struct {
	Server    string    `json:"server"`     // NAME in mcp__NAME__TOOL
	Client    string    `json:"client"`     // the agent the client said it is
	PID       int       `json:"pid"`        // the proxy's process
	ClientPID int       `json:"client_pid"` // the client that started it
	Tools     int       `json:"tools"`      // tools it has listed
	Since     time.Time `json:"since"`
}

// The outcomes an agent reports for a call whose ask agate handed to the
// agent's own prompt (OutcomeRequest.Outcome).
const (
	OutcomeRan    = "ran"    // the call ran: the person allowed it in the agent's prompt
	OutcomeDenied = "denied" // the agent says the call was denied
	OutcomeEnded  = "ended"  // the turn or session ended: calls of it still waiting did not run
	OutcomeFailed = "failed" // the call ran and failed (Claude Code's PostToolUseFailure)
)

// OutcomeRequest tells the daemon what became of a call after agate
// handed its ask to the agent's own prompt (POST /v1/outcome): it ran
// (Claude Code's PostToolUse, PostToolUseFailure), it was denied
// (PermissionDenied), or the turn ended without it running (Stop, the
// next prompt, the end of the session). The daemon records the person's
// answer in the audit log, tied to the decision that asked.
type OutcomeRequest struct {
	Agent     string         `json:"agent"`
	Session   string         `json:"session"`
	ToolUseID string         `json:"tool_use_id,omitempty"` // the call, when the agent names it
	Tool      string         `json:"tool,omitempty"`        // else the tool and its arguments name it
	Args      map[string]any `json:"args,omitempty"`
	Outcome   string         `json:"outcome"`          // OutcomeRan, OutcomeDenied or OutcomeEnded
	Event     string         `json:"event,omitempty"`  // the agent's event that says so ("PostToolUse")
	Reason    string         `json:"reason,omitempty"` // the agent's reason, if it gives one
}

// OutcomeResult says which decisions an outcome settled.
type OutcomeResult struct {
	Settled int `json:"settled"` // how many calls it settled (0: none was waiting)
	// Note is for the model, when the call ran confined and failed: what
	// the sandbox cut, and what running it again does.
	Note string `json:"note,omitempty"`
	// Confined says how the call ran confined (Confinement.Describe), ""
	// when it did not.
	Confined string `json:"confined,omitempty"`
}
