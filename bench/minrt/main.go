// Command minrt is the floor for a hook that asks a daemon: it reads the
// agent's JSON, sends one decision request to agate's daemon over its
// socket (AGATE_SOCKET) with agate's API client, and prints an allow,
// and does nothing else: no adapter, no signal guard, no rendering, no
// sandbox linked. bench/hook.sh times agate's hook against it and
// against minhook (the payload alone): what agate-hook costs above
// minrt is its own, what minrt costs above minhook is the daemon's
// round trip, its audit line synced to disk included.
package main

import (
	"context"
	"encoding/json"
	"os"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy/verdict"
)

func main() {
	var in struct {
		Cwd       string         `json:"cwd"`
		Session   string         `json:"session_id"`
		ToolName  string         `json:"tool_name"`
		ToolInput map[string]any `json:"tool_input"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		os.Exit(2)
	}
	c := &api.Client{Socket: os.Getenv("AGATE_SOCKET")}
	resp, err := c.Decide(context.Background(), &api.DecideRequest{Tool: in.ToolName, Args: in.ToolInput,
		Agent: "claude-code", Session: in.Session, Cwd: in.Cwd, Workspace: in.Cwd})
	if err != nil || resp.Decision != verdict.Allow {
		os.Exit(2)
	}
	os.Stdout.WriteString(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` + "\n")
}
