// Command roundtrip times the daemon's side of a hook call from a client
// already running: a fresh connection per request, as agate-hook makes,
// for GET /v1/approvals (the socket and HTTP, with nothing to compute) and POST /v1/decide of
// one allowed call (the decision, its audit line synced to disk, and the
// answer), interleaved round by round, with their medians. bench/hook.sh
// runs it beside the whole-process times, so that what the hook process
// adds is the difference.
//
//	roundtrip -n 200 -cwd DIR -command 'git status --short'
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy/verdict"
)

func main() {
	n := flag.Int("n", 200, "rounds")
	cwd := flag.String("cwd", "", "the call's working folder")
	command := flag.String("command", "git status --short", "the Bash command decided")
	flag.Parse()
	ctx := context.Background()
	req := &api.DecideRequest{Tool: "Bash", Args: map[string]any{"command": *command},
		Agent: "claude-code", Session: "bench", Cwd: *cwd, Workspace: *cwd}
	// As agate-hook sends it: the agent's prompt behind it, and a run
	// that can be rewritten into the sandbox.
	hookReq := &api.DecideRequest{Tool: "Bash", Args: map[string]any{"command": *command},
		Agent: "claude-code", Session: "bench", Cwd: *cwd, Interactive: true, AgentPrompt: true, ToolUseID: "toolu_bench"}
	var status, decide, hook []time.Duration
	for i := 0; i < 5+*n; i++ {
		c := &api.Client{} // a new client: a new connection, as a hook process has
		start := time.Now()
		if _, err := c.Pending(ctx); err != nil {
			fail(err)
		}
		ds := time.Since(start)
		c = &api.Client{}
		start = time.Now()
		resp, err := c.Decide(ctx, req)
		if err != nil {
			fail(err)
		}
		dd := time.Since(start)
		if resp.Decision != verdict.Allow {
			fail(fmt.Errorf("the call was not allowed: %s (%s)", resp.Decision, resp.Reason))
		}
		c = &api.Client{}
		start = time.Now()
		resp, err = c.Decide(ctx, hookReq)
		if err != nil {
			fail(err)
		}
		dh := time.Since(start)
		if resp.Decision != verdict.Allow {
			fail(fmt.Errorf("the hook's call was not allowed: %s (%s)", resp.Decision, resp.Reason))
		}
		if i >= 5 {
			status, decide, hook = append(status, ds), append(decide, dd), append(hook, dh)
		}
	}
	fmt.Printf("%-28s %10s %10s\n", "request", "median", "p90")
	for _, r := range []struct {
		name string
		d    []time.Duration
	}{{"approvals (socket+HTTP)", status}, {"decide (audit synced)", decide}, {"decide as agate-hook asks", hook}} {
		sort.Slice(r.d, func(i, j int) bool { return r.d[i] < r.d[j] })
		fmt.Printf("%-28s %10v %10v\n", r.name, r.d[len(r.d)/2].Round(time.Microsecond), r.d[len(r.d)*9/10].Round(time.Microsecond))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "roundtrip:", err)
	os.Exit(1)
}
