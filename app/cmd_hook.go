package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agatehq/agate/app/hook"
	"github.com/agatehq/agate/policy"
)

func init() {
	register(&command{
		name:    "hook",
		args:    "claude-code|gemini|cursor [--config FILE] [--socket PATH]",
		summary: "answer an agent's hook: read its JSON on stdin, ask the daemon, print the agent's answer",
		run:     cmdHook,
	})
}

// maxHookInput bounds what a hook reads on stdin; past it the call is
// blocked. Payloads can be big: Cursor's beforeReadFile carries the whole
// file, Claude Code's Write the whole new content.
const maxHookInput = 16 << 20

// hookGrace is how much longer than [approvals] timeout a hook waits for
// the daemon, which denies on its own timeout first.
const hookGrace = 5 * time.Second

// cmdHook is `agate hook AGENT`: one hook event in, the agent's answer out.
// It prints nothing on stdout but that answer. Whatever goes wrong (bad
// input, no daemon, a broken config) blocks the call, with the reason on
// stderr; the only way a call is allowed is the daemon saying so.
func cmdHook(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "hook")
	var cf configFlags
	cf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err // exit 2: the call is blocked
	}
	if len(pos) != 1 || !hook.Known(pos[0]) {
		fs.Usage()
		return usagef("want one agent: %s", strings.Join(hook.Agents(), ", "))
	}
	agent := pos[0]

	data, err := readHookInput(e.Stdin)
	if err != nil {
		return writeHookOutput(e, hook.Blocked(fmt.Sprintf("agate: %v; the call was blocked", err)))
	}
	ev, err := hook.Parse(agent, data, os.Getenv)
	if err != nil {
		return writeHookOutput(e, hook.Blocked(fmt.Sprintf("agate: %v; the call was blocked", err)))
	}
	if ev.Kind == hook.KindOther {
		return writeHookOutput(e, hook.Neutral(ev)) // the fast path: no config, no daemon
	}
	paths, err := cf.paths()
	if err != nil {
		return writeHookOutput(e, hook.Unreachable(ev, fmt.Sprintf("cannot find the daemon: %v", err), false))
	}
	hc := readHookConfig(paths)
	if hc.err != nil {
		fmt.Fprintf(e.Stderr, "agate: the config is broken, so a daemon that cannot be reached blocks every call (on_daemon_down = \"deny\"): %v\n", hc.err)
	}
	r := &hookRun{ev: ev, paths: paths, cfg: hc, client: &Client{Socket: paths.Socket}}
	if cf.config != "" {
		r.configFlag = paths.Config // absolute: the sandboxed command runs elsewhere
	}
	ctx, cancel := context.WithTimeout(ctx, hc.timeout+hookGrace)
	defer cancel()
	return writeHookOutput(e, r.answer(ctx))
}

// readHookInput reads the hook's stdin, up to maxHookInput.
func readHookInput(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no hook input")
	}
	data, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
	if err != nil {
		return nil, fmt.Errorf("read the hook input: %w", err)
	}
	if len(data) > maxHookInput {
		return nil, fmt.Errorf("the hook input is larger than %d MiB", maxHookInput>>20)
	}
	return data, nil
}

// writeHookOutput prints out and returns the exit it asks for.
func writeHookOutput(e *Env, out hook.Output) error {
	if len(out.Stdout) > 0 {
		if _, err := e.Stdout.Write(out.Stdout); err != nil {
			fmt.Fprintf(e.Stderr, "agate: write the answer: %v; the call was blocked\n", err)
			return &exitError{code: hook.ExitBlock, err: errSilent}
		}
	}
	if out.Stderr != "" {
		fmt.Fprint(e.Stderr, out.Stderr)
	}
	if out.Code != 0 {
		return &exitError{code: out.Code, err: errSilent}
	}
	return nil
}

// hookConfig is what a hook needs from the config.
type hookConfig struct {
	timeout     time.Duration // [approvals] timeout
	onDownAsk   bool          // [hooks] on_daemon_down = "ask"
	sandboxBash bool          // [hooks] sandbox_bash and [tools] sandbox
	err         error         // the config could not be read: the defaults, failing closed
}

// readHookConfig reads the config without writing it (a hook runs for
// every call, and must not create files), and without compiling the
// policy: the daemon decides. A broken config gives the defaults with
// on_daemon_down = "deny" and no sandbox rewrite.
func readHookConfig(p Paths) hookConfig {
	def := policy.DefaultConfig()
	hc := hookConfig{timeout: def.ApprovalTimeout()}
	data, err := readConfigFile(p.Config, false)
	if err != nil {
		hc.err = err
		return hc
	}
	cfg, err := policy.Parse(p.Config, data)
	if err != nil {
		hc.err = err
		return hc
	}
	hc.timeout = cfg.ApprovalTimeout()
	hc.onDownAsk = cfg.Hooks.OnDaemonDown == "ask"
	hc.sandboxBash = cfg.Hooks.SandboxBash && cfg.SandboxEnabled()
	return hc
}

// hookRun answers one event that needs the daemon.
type hookRun struct {
	ev         *hook.Event
	paths      Paths
	cfg        hookConfig
	configFlag string // --config, made absolute, passed on to `agate sandbox`
	client     *Client
}

func (r *hookRun) answer(ctx context.Context) hook.Output {
	ev := r.ev
	switch ev.Kind {
	case hook.KindCall:
		resp, err := r.client.Decide(ctx, decideRequest(ev))
		if err != nil {
			ask := r.cfg.onDownAsk && errors.Is(err, ErrDaemonDown) && ev.CanAsk()
			tail := "the call was blocked"
			if ask {
				tail = "agate could not check this call, so it is yours to approve or not (on_daemon_down = \"ask\")"
			}
			return hook.Unreachable(ev, r.failure(ctx, err, tail), ask)
		}
		a := hook.Answer{
			Decision: hook.Decision(resp.Decision.String()),
			Layer:    string(resp.Layer),
			Rule:     resp.Rule,
			Reason:   resp.Reason,
			By:       string(resp.By),
		}
		if a.Decision == hook.Allow && r.cfg.sandboxBash && ev.Agent == hook.ClaudeCode && ev.Tool == "Bash" {
			a = r.sandboxed(a)
		}
		return hook.Render(ev, a)
	case hook.KindTaint:
		err := r.client.Taint(ctx, &TaintRequest{Agent: ev.Agent, Session: ev.Session, Run: ev.Run, Source: ev.Tool})
		if err != nil {
			return hook.Unreachable(ev, r.failure(ctx, err,
				"agate could not record that "+ev.Tool+" brought outside content into this run"), false)
		}
		return hook.Neutral(ev)
	case hook.KindNewRun:
		err := r.client.StartRun(ctx, &TaintRequest{Agent: ev.Agent, Session: ev.Session, Run: ev.Run})
		if err != nil {
			return hook.Unreachable(ev, r.failure(ctx, err,
				"no new run was started, so the last one's taint still applies"), false)
		}
		return hook.Neutral(ev)
	}
	return hook.Neutral(ev)
}

// failure says why the daemon gave no answer, and what follows (tail).
func (r *hookRun) failure(ctx context.Context, err error, tail string) string {
	switch {
	case errors.Is(err, ErrDaemonDown):
		return fmt.Sprintf("the daemon is not running (socket %s): start it with `agate` or `agate serve`; %s", r.paths.Socket, tail)
	case ctx.Err() != nil:
		return fmt.Sprintf("the daemon did not answer in %v; %s", r.cfg.timeout+hookGrace, tail)
	}
	return fmt.Sprintf("the daemon could not answer (socket %s): %v; %s", r.paths.Socket, err, tail)
}

// sandboxed returns an allowed Claude Code Bash call's answer with its
// command rewritten to run under `agate sandbox`; a command that cannot
// be rewritten is denied, since it was allowed only confined.
func (r *hookRun) sandboxed(a hook.Answer) hook.Answer {
	ev := r.ev
	bin, err := os.Executable()
	if err == nil {
		work := ev.Workspace
		if work == "" {
			work = ev.Cwd
		}
		sb := hook.Sandbox{Bin: bin, Work: work, Config: r.configFlag}
		if ev.Cwd != "" && ev.Cwd != work && !hookWithin(ev.Cwd, work) {
			sb.Writable = []string{ev.Cwd} // a worktree outside the project
		}
		var upd []byte
		if upd, err = hook.SandboxBash(ev.Input, sb); err == nil {
			a.UpdatedInput = upd
			return a
		}
	}
	return hook.Answer{Decision: hook.Deny, Layer: a.Layer, Rule: a.Rule,
		Reason: fmt.Sprintf("the command was allowed only in the sandbox, and could not be confined: %v", err), By: a.By}
}

// decideRequest is the daemon's request for a call.
func decideRequest(ev *hook.Event) *DecideRequest {
	cwd := ev.Cwd
	if cwd == "" {
		cwd = ev.Workspace
	}
	return &DecideRequest{
		Tool:        ev.Tool,
		Args:        ev.Args,
		Agent:       ev.Agent,
		Session:     ev.Session,
		Run:         ev.Run,
		Cwd:         cwd,
		Workspace:   ev.Workspace,
		Interactive: ev.Interactive,
		AgentPrompt: ev.AgentPrompt,
	}
}

// hookWithin reports whether path is inside dir.
func hookWithin(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
