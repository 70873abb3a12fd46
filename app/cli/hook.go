package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"strings"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/runner"
)

func init() {
	register(&command{
		name:    "hook",
		args:    strings.Join(hooks.Agents(), "|") + " [--agent-timeout DURATION] [--config FILE] [--socket PATH]",
		summary: "answer an agent's hook: read its JSON on stdin, ask the daemon, print the agent's answer",
		run:     cmdHook,
	})
}

// cmdHook is `agate hook AGENT`: one hook event in, the agent's answer
// out (see package runner). It prints nothing on stdout but that answer.
func cmdHook(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "hook")
	var cf configFlags
	cf.add(fs)
	agentTimeout := fs.Duration("agent-timeout", 0, "how long the agent lets the hook run; the hook answers before (default: from [approvals] timeout)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		// Never exit 0 without an answer: an agent reads that as "no
		// opinion" (Gemini CLI as an allow).
		return &exitError{code: exitUsage, err: errSilent}
	}
	if err != nil {
		return err // exit 2: the call is blocked
	}
	if len(pos) != 1 || !hooks.Known(pos[0]) {
		fs.Usage()
		return usagef("want one agent: %s", strings.Join(hooks.Agents(), ", "))
	}
	run := runner.Run
	if e.Stdin == io.Reader(os.Stdin) {
		// The hook is this whole process: it ends in 0 or 2 whatever
		// happens, signals included (see runner.Main).
		run = runner.Main
	}
	code := run(ctx, runner.Options{
		Agent: pos[0], Stdin: e.Stdin, Stdout: e.Stdout, Stderr: e.Stderr, Getenv: os.Getenv,
		Config: cf.config, Socket: cf.socket, AgentTimeout: *agentTimeout,
	})
	if code != 0 {
		return &exitError{code: code, err: errSilent}
	}
	return nil
}
