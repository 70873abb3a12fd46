// Command agate-hook is agate's hook for agents and the runner of the
// calls it confines, and nothing else: the smallest binary that reads an
// agent's hook JSON, asks the daemon and prints the answer, and that runs
// a confined call's line. Agents run it once per tool call, and once more
// per confined command, so it links only the hook adapters, the API
// client and the sandbox, not the policy engine, the daemon or the GUI.
// `agate hooks install` points the agents at it.
//
//	agate-hook hook claude-code|gemini|cursor|codex [--agent-timeout 135s] [--config FILE] [--socket PATH]
//	agate-hook sandbox --strict --work DIR [flags] -- CMD [ARGS...]
//
// As a hook it exits 0 with the answer on stdout, or 2 with the reason on
// stderr, and never otherwise (see runner.Main). As the runner it exits
// with the command's status, or 2 or 125 with the reason on stderr (see
// strict.Run): the line is the one the hook wrote (confine.Shell), its
// profile in its flags, fail-closed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/confine/strict"
	"github.com/agatehq/agate/app/hooks/runner"
	"github.com/agatehq/agate/sandbox"
)

func main() {
	// The Landlock launcher re-executes this binary to confine a command:
	// that child applies its rules and execs the command here.
	sandbox.MaybeReexec()
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "sandbox" {
		os.Exit(strict.Run(context.Background(), args[1:], strict.Stdio{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Getenv))
	}
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintf(os.Stderr, "usage: agate-hook hook %s [--agent-timeout DURATION] [--config FILE] [--socket PATH]\n", strings.Join(hooks.Agents(), "|"))
		os.Exit(hooks.ExitBlock)
	}
	agent := args[0]
	fs := flag.NewFlagSet("agate-hook", flag.ContinueOnError)
	config := fs.String("config", "", "config file")
	socket := fs.String("socket", "", "daemon socket")
	agentTimeout := fs.Duration("agent-timeout", 0, "how long the agent lets the hook run")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "agate: bad hook arguments; the call was blocked")
		os.Exit(hooks.ExitBlock)
	}
	os.Exit(runner.Main(context.Background(), runner.Options{
		Agent: agent, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		Config: *config, Socket: *socket, AgentTimeout: *agentTimeout,
	}))
}
