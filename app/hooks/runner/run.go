// Package runner runs one agent hook call: it reads the agent's hook
// JSON, asks the daemon, and prints what the agent expects. The agate
// command line runs it as `agate hook AGENT`, and the lean hook binary
// (agate-hook) runs nothing else, so that a call per tool pays only for
// this package, package api and the agents' adapters (package agents).
// What the daemon answers is rendered as it says: whether an allowed
// call runs confined is the daemon's to decide (DecideResponse.Sandbox);
// a call the runner cannot rewrite to run confined is denied.
//
// Whatever goes wrong (bad input, no daemon, a broken config, no answer
// in time) blocks the call, with the reason on stderr; the only way a
// call is allowed is the daemon saying so.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/managed"
	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/agents"
	"github.com/agatehq/agate/app/hooks/confine"
	"github.com/agatehq/agate/policy/schema"
	"github.com/agatehq/agate/policy/verdict"
)

// Options are one hook call's surroundings.
type Options struct {
	Agent  string // "claude-code", "gemini", "cursor" or "codex"
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the agent's variables (CLAUDE_PROJECT_DIR, ...); nil
	// reads the process's.
	Getenv func(string) string
	Config string // --config, "" for the default
	Socket string // --socket, "" for the default
	// AgentTimeout is how long the agent lets the hook run before it kills
	// it (what `agate hooks install` wrote in the agent's settings). The
	// hook answers before then: an agent that kills a hook may let the
	// call through. Zero means: read [approvals] timeout from the config.
	AgentTimeout time.Duration
	// CLIBin is the agate binary a sandboxed Bash call is rewritten to
	// run (`agate sandbox`); "" finds agate-cli or agate beside this one.
	CLIBin string
}

// maxInput bounds what a hook reads on stdin; past it the call is
// blocked. Payloads can be big: Cursor's beforeReadFile carries the whole
// file, Claude Code's Write the whole new content.
const maxInput = 16 << 20

// hookGrace is how much longer than [approvals] timeout a hook waits for
// the daemon, which denies on its own timeout first.
const hookGrace = 5 * time.Second

// killMargin is how long before the agent's own timeout the hook gives up
// and blocks the call itself.
const killMargin = 3 * time.Second

// Run answers one hook call and returns the process's exit code.
func Run(ctx context.Context, o Options) int {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if !hooks.Known(o.Agent) {
		fmt.Fprintf(o.Stderr, "agate hook: want one agent: %s\n", strings.Join(hooks.Agents(), ", "))
		return hooks.ExitBlock
	}
	data, err := readInput(o.Stdin)
	if err != nil {
		return write(&o, hooks.Blocked(fmt.Sprintf("agate: %v; the call was blocked", err)))
	}
	ev, err := agents.Parse(o.Agent, data, o.Getenv)
	if err != nil {
		return write(&o, hooks.Blocked(fmt.Sprintf("agate: %v; the call was blocked", err)))
	}
	surroundings(ev)
	if ev.Kind == hooks.KindOther {
		return write(&o, agents.Neutral(ev)) // the fast path: no config, no daemon
	}
	paths, err := api.ResolvePaths(o.Config, o.Socket)
	if err != nil {
		return write(&o, agents.Unreachable(ev, fmt.Sprintf("cannot find the daemon: %v", err), false))
	}
	r := &hookRun{ev: ev, paths: paths, client: &api.Client{Socket: paths.Socket}, cliBin: o.CLIBin, stderr: o.Stderr}
	if o.Config != "" {
		r.configFlag = paths.Config // absolute: the sandboxed command runs elsewhere
	}
	if o.AgentTimeout > 0 {
		// The config is read only if the daemon cannot be reached.
		margin := killMargin
		if ev.Agent == hooks.Codex {
			margin = codexKillMargin
		}
		r.budget = max(o.AgentTimeout-margin, time.Second)
	} else {
		r.loadConfig()
		r.budget = r.cfg.timeout + hookGrace
	}
	ctx, cancel := context.WithTimeout(ctx, r.budget)
	defer cancel()
	return write(&o, r.answer(ctx))
}

// loadConfig reads the config once, saying on stderr when it is broken.
func (r *hookRun) loadConfig() {
	if r.cfg.read {
		return
	}
	r.cfg = readHookConfig(r.paths)
	if r.cfg.err != nil {
		fmt.Fprintf(r.stderr, "agate: the config is broken, so a daemon that cannot be reached blocks every call (on_daemon_down = \"deny\"): %v\n", r.cfg.err)
	}
}

// readInput reads the hook's stdin, up to maxInput.
func readInput(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no hook input")
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("read the hook input: %w", err)
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("the hook input is larger than %d MiB", maxInput>>20)
	}
	return data, nil
}

// write prints out and returns the exit code it asks for.
func write(o *Options, out hooks.Output) int {
	if len(out.Stdout) > 0 {
		if _, err := o.Stdout.Write(out.Stdout); err != nil {
			fmt.Fprintf(o.Stderr, "agate: write the answer: %v; the call was blocked\n", err)
			return hooks.ExitBlock
		}
	}
	if out.Stderr != "" {
		fmt.Fprint(o.Stderr, out.Stderr)
	}
	return out.Code
}

// hookConfig is what a hook needs from the config.
type hookConfig struct {
	timeout   time.Duration // [approvals] timeout
	onDownAsk bool          // [hooks] on_daemon_down = "ask"
	err       error         // the config could not be read: the defaults, failing closed
	read      bool          // the config was read (not only the defaults assumed)
}

// defaultApprovalTimeout is [approvals] timeout when the config does not
// say (policy.DefaultConfig's; the hook binary does not link the policy).
const defaultApprovalTimeout = 120 * time.Second

// readHookConfig reads the few keys a hook needs, without writing the file
// (a hook runs for every call and must not create files) and without
// compiling the policy (the daemon decides, and the hook binary stays
// small). The daemon checks the whole file; here a file that is not TOML,
// or has an unknown key in [hooks] or [approvals], gives the defaults, with
// on_daemon_down = "deny": it fails closed. Whether a call runs confined
// is the daemon's to say (DecideResponse.Sandbox), not the hook's.
func readHookConfig(p api.Paths) hookConfig {
	hc := readUserHookConfig(p)
	return underManaged(hc)
}

// hookKeys are the keys of config.toml (and the managed file) a hook
// reads.
type hookKeys struct {
	Approvals struct {
		Timeout any `toml:"timeout"`
	} `toml:"approvals"`
	Hooks struct {
		OnDaemonDown string `toml:"on_daemon_down"`
	} `toml:"hooks"`
}

// underManaged is hc under the managed policy (managed.Path): with a
// managed file, a call with the daemon down is denied unless the file
// says on_daemon_down = "ask" (whatever the person's config says), and
// its timeout is a ceiling; a managed file that cannot be trusted or read
// fails closed (deny).
func underManaged(hc hookConfig) hookConfig {
	data, ok, err := managed.Read()
	if !ok {
		return hc
	}
	if err != nil {
		hc.onDownAsk = false
		return hc
	}
	var cfg hookKeys
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		hc.onDownAsk = false
		return hc
	}
	// What a managed file says cannot be checked whole here (the hook
	// does not link the policy): with one in place, a call with the daemon
	// down is denied unless the file itself says "ask".
	if !md.IsDefined("hooks", "on_daemon_down") || cfg.Hooks.OnDaemonDown != "ask" {
		hc.onDownAsk = false
	}
	if d := durationOf(cfg.Approvals.Timeout); d > 0 && d < hc.timeout {
		hc.timeout = d
	}
	return hc
}

// durationOf is a timeout as config.toml writes it ("120s", or seconds),
// 0 when it is neither.
func durationOf(v any) time.Duration {
	switch v := v.(type) {
	case string:
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	case int64:
		if v > 0 {
			return time.Duration(v) * time.Second
		}
	}
	return 0
}

// readUserHookConfig reads the person's config.toml for readHookConfig.
func readUserHookConfig(p api.Paths) hookConfig {
	hc := hookConfig{timeout: defaultApprovalTimeout, read: true}
	data, err := os.ReadFile(p.Config)
	if errors.Is(err, fs.ErrNotExist) {
		return hc // no file yet: the defaults
	}
	if err != nil {
		hc.err = fmt.Errorf("read config: %w", err)
		return hc
	}
	var cfg hookKeys
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		hc.err = fmt.Errorf("%s: %w", p.Config, err)
		return hc
	}
	// A key of the sections it reads that the engine does not know either
	// is a typo the daemon refuses too: fail closed rather than guess.
	// Every key the engine knows is accepted (package schema holds the
	// names), so agate's own default file reads here.
	for _, k := range md.Undecoded() {
		if len(k) >= 2 && (k[0] == "hooks" || k[0] == "approvals") && !schema.Known(k[0], k[1]) {
			hc.err = fmt.Errorf("%s: %s: unknown key", p.Config, k)
			return hc
		}
	}
	if d := durationOf(cfg.Approvals.Timeout); d > 0 {
		hc.timeout = d
	}
	hc.onDownAsk = cfg.Hooks.OnDaemonDown == "ask"
	return hc
}

// hookRun answers one event that needs the daemon.
type hookRun struct {
	ev         *hooks.Event
	paths      api.Paths
	cfg        hookConfig
	configFlag string // --config, made absolute, passed on to `agate sandbox`
	client     *api.Client
	cliBin     string
	budget     time.Duration // how long the daemon may take
	stderr     io.Writer
}

func (r *hookRun) answer(ctx context.Context) hooks.Output {
	ev := r.ev
	note := r.sendOutcome(ctx)
	switch ev.Kind {
	case hooks.KindCall:
		resp, err := r.client.Decide(ctx, decideRequest(ev))
		if err != nil {
			r.loadConfig()
			ask := r.cfg.onDownAsk && errors.Is(err, api.ErrDaemonDown) && ev.CanAsk()
			tail := "the call was blocked"
			if ask {
				tail = "agate could not check this call, so it is yours to approve or not (on_daemon_down = \"ask\")"
			}
			return agents.Unreachable(ev, r.failure(ctx, err, tail), ask)
		}
		a := hooks.Answer{
			Decision: resp.Decision,
			Layer:    string(resp.Layer),
			Rule:     resp.Rule,
			Reason:   resp.Reason,
			By:       string(resp.By),
		}
		if resp.Sandbox && a.Decision == verdict.Allow {
			a = r.confined(a, resp.Confine)
		}
		return agents.Render(ev, a)
	case hooks.KindTaint:
		err := r.client.Taint(ctx, &api.TaintRequest{Agent: ev.Agent, Session: ev.Session, Run: ev.Run, Source: ev.Tool})
		if err != nil {
			return agents.Unreachable(ev, r.failure(ctx, err,
				"agate could not record that "+ev.Tool+" brought outside content into this run"), false)
		}
		return agents.Neutral(ev)
	case hooks.KindNewRun:
		err := r.client.StartRun(ctx, &api.TaintRequest{Agent: ev.Agent, Session: ev.Session, Run: ev.Run, Prompt: ev.Prompt})
		if err != nil {
			return agents.Unreachable(ev, r.failure(ctx, err,
				"no new run was started, so the last one's taint still applies"), false)
		}
		return agents.Neutral(ev)
	}
	if note != "" && ev.Kind == hooks.KindOutcome {
		return agents.PostContext(ev, note)
	}
	return agents.Neutral(ev)
}

// failure says why the daemon gave no answer, and what follows (tail).
func (r *hookRun) failure(ctx context.Context, err error, tail string) string {
	switch {
	case errors.Is(err, api.ErrUntrusted):
		return fmt.Sprintf("%v; nothing was sent to it, as if no daemon ran; %s", err, tail)
	case errors.Is(err, api.ErrDaemonDown):
		return fmt.Sprintf("the daemon is not running (socket %s): start it with `agate` or `agate serve`; %s", r.paths.Socket, tail)
	case ctx.Err() != nil:
		return fmt.Sprintf("the daemon did not answer in %v; %s", r.budget, tail)
	}
	return fmt.Sprintf("the daemon could not answer (socket %s): %v; %s", r.paths.Socket, err, tail)
}

// confined returns an allowed call's answer with its command rewritten
// to run under `agate sandbox`, as the daemon said it must, with the
// profile it gave (c; nil from a daemon that gives none: the project
// writable). The rewritten command carries the whole profile and runs
// fail-closed (--strict). A call that cannot be rewritten (a command that
// cannot be quoted, no agate binary with the sandbox command, an agent or
// a tool agate cannot rewrite the calls of) is denied, since it was
// allowed only confined.
func (r *hookRun) confined(a hooks.Answer, c *api.Confinement) hooks.Answer {
	ev := r.ev
	var err error
	if !api.Rewritable(ev.Agent, ev.Tool) {
		err = fmt.Errorf("agate cannot rewrite %s's %s calls", ev.Agent, ev.Tool)
	} else {
		var bin string
		if bin, err = r.sandboxBin(c != nil); err == nil {
			sb := confine.Sandbox{Bin: bin, Config: r.configFlag}
			if c != nil {
				// The paths are the daemon's judgment, never the call's own.
				sb.Work, sb.ReadOnly, sb.Writable, sb.Cache, sb.Net, sb.Strict = c.Work, c.ReadOnly, c.Writable, c.Cache, c.Net, true
				sb.Protected, sb.Secrets, sb.SecretEnv = c.Protected, c.Secrets, c.SecretEnv
				if ev.Cwd != "" && filepath.IsAbs(ev.Cwd) {
					sb.Cwd = ev.Cwd // where the agent's shell is: not made writable
				}
				a.Context = "agate runs this command " + c.Describe() + " (" + c.Why +
					"). A read of a credential there fails with \"permission denied\"; if it needs the network or a write outside, it fails, and running it again asks the person."
				if c.Net {
					a.Context = "agate runs this command " + c.Describe() + ", as the person allowed it (" + c.Why +
						"). A read of a credential there fails with \"permission denied\", and so does a write outside what is writable."
				}
			} else {
				sb.Work = ev.Workspace
				if sb.Work == "" {
					sb.Work = ev.Cwd
				}
				if ev.Cwd != "" && filepath.IsAbs(ev.Cwd) {
					sb.Cwd = ev.Cwd
				}
				if ev.Agent == hooks.ClaudeCode && ev.Cwd != "" && ev.Cwd != sb.Work && !hookWithin(ev.Cwd, sb.Work) {
					// A worktree outside the project. Only Claude Code's: the
					// others' cwd is the model's choice (Codex's workdir,
					// Gemini's dir_path).
					sb.Writable = []string{ev.Cwd}
				}
			}
			var upd []byte
			if upd, err = confine.Shell(ev.Input, sb); err == nil {
				a.UpdatedInput = upd
				return a
			}
		}
	}
	return hooks.Answer{Decision: verdict.Deny, Layer: a.Layer, Rule: a.Rule,
		Reason: fmt.Sprintf("the command was allowed only in the sandbox, and could not be confined: %v", err), By: a.By}
}

// decideRequest is the daemon's request for a call.
func decideRequest(ev *hooks.Event) *api.DecideRequest {
	cwd := ev.Cwd
	if cwd == "" {
		cwd = ev.Workspace
	}
	return &api.DecideRequest{
		Tool:         ev.Tool,
		Args:         ev.Args,
		Agent:        ev.Agent,
		Session:      ev.Session,
		Run:          ev.Run,
		Cwd:          cwd,
		Workspace:    ev.Workspace,
		Interactive:  ev.Interactive,
		AgentPrompt:  ev.AgentPrompt,
		Headless:     ev.Headless,
		ToolUseID:    ev.ToolUseID,
		Reasks:       ev.Reasks,
		AgentSandbox: ev.AgentSandbox,
	}
}

// hookWithin reports whether path is inside dir.
func hookWithin(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// sandboxBin is the binary a confined call's line names. A strict line
// (the daemon's profile, all in its flags) runs under agate-hook, the
// smallest binary that can run it: this one when the hook is agate-hook,
// else the one beside it. A line without the profile ([hooks]
// sandbox_bash with no profile from the daemon) needs `agate sandbox`'s
// config reading: agate-cli or agate. Options.CLIBin overrides both.
func (r *hookRun) sandboxBin(strict bool) (string, error) {
	if r.cliBin != "" {
		return r.cliBin, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find agate's binary: %w", err)
	}
	isHook := strings.TrimSuffix(filepath.Base(exe), ".exe") == "agate-hook"
	if strict {
		if isHook {
			return exe, nil
		}
		if p, ok := api.SiblingBinary("agate-hook"); ok {
			return p, nil
		}
		return exe, nil // agate-cli and agate run strict lines too
	}
	if p, ok := api.SiblingBinary("agate-cli", "agate"); ok {
		return p, nil
	}
	if isHook {
		return "", errors.New("no agate-cli or agate beside agate-hook to run the sandbox")
	}
	return exe, nil
}
