package mcp

import (
	"context"
	"encoding/json"
)

// Gate is what the proxy asks. The daemon implements it over its API; a
// nil Gate is refused by Run, and every error a method returns is taken
// as a no (see each method). Its methods are called from several
// goroutines at once.
type Gate interface {
	// Start tells that a proxy for s.Server runs, so that an agent's
	// hook steps aside for that server's calls (one call, one
	// decision). An error is reported on stderr and the proxy goes on:
	// every call is still decided through Decide.
	Start(ctx context.Context, s Session) error
	// Stop tells that the proxy has ended. Its error is ignored.
	Stop(ctx context.Context, s Session) error

	// Decide answers one tools/call. The call is forwarded only on a
	// nil error and v.Allow; else the client is answered with the
	// reason. Decide must not change c.Arguments: what the proxy
	// forwards is the arguments as they were when Decide was called,
	// encoded again.
	Decide(ctx context.Context, c Call) (v Verdict, err error)

	// Pin is given every tool of each tools/list result (one page at a
	// time) before the client sees it, and returns the tools whose
	// definition is not the one pinned for s.Server. A tool never seen
	// before is pinned as it is and is not a change. The proxy passes
	// the changes on to Decide, in Call.Changed, for every call of
	// those tools until a later listing is pinned without a change. On
	// an error the listing goes to the client all the same, and each
	// of its tools is pinned again, alone, before its first call; a
	// call whose tool cannot be pinned is denied.
	Pin(ctx context.Context, s Session, tools []ToolDef) (changes []ToolChange, err error)

	// Taint is told of each answer to a forwarded tools/call (a result,
	// an error result or an error) before the client gets it: content
	// from outside has entered the run. On an error the client gets a
	// denial instead of the result (the call has run on the server, but
	// the model does not read what agate could not account for). tool
	// is "" for the result of a task whose call this proxy did not see.
	Taint(ctx context.Context, s Session, tool string) error
}

// Session is one running proxy: one client connected to one server.
type Session struct {
	// ID is random, new for each proxy.
	ID string `json:"id"`
	// Server is the server's name, as the policy knows its tools:
	// "mcp__" + Server + "__" + tool.
	Server string `json:"server"`
	// Command is the server's command line.
	Command []string `json:"command"`
	// PID is the proxy's process id; ServerPID the server's.
	PID       int `json:"pid"`
	ServerPID int `json:"server_pid"`
	// Client, ClientVersion and ProtocolVersion are what the client
	// said in initialize ("" before it has); ServerInfo is the
	// server's serverInfo, as it sent it.
	Client          string          `json:"client,omitempty"`
	ClientVersion   string          `json:"client_version,omitempty"`
	ProtocolVersion string          `json:"protocol_version,omitempty"`
	ServerInfo      json.RawMessage `json:"server_info,omitempty"`
}

// Call is one tools/call to decide.
type Call struct {
	Session Session `json:"session"`
	// Tool is the tool's name as the server knows it; PolicyTool as the
	// policy does: "mcp__SERVER__TOOL".
	Tool       string `json:"tool"`
	PolicyTool string `json:"policy_tool"`
	// Arguments are the call's arguments, decoded with duplicate keys
	// refused and numbers kept as json.Number; never nil.
	Arguments map[string]any `json:"arguments"`
	// ID is the request's id, as the client wrote it; Seq counts the
	// calls of this session from 1.
	ID  string `json:"id"`
	Seq int64  `json:"seq"`
	// Meta is the request's params._meta (the progress token, what a
	// client adds of its own), nil when there is none.
	Meta map[string]any `json:"meta,omitempty"`
	// Def is the tool's definition as last listed to the client, nil
	// when it was never listed in this session. Changed is set when
	// that definition is not the one pinned: the daemon asks again,
	// naming Changed.Fields, whatever a rule or a grant says.
	Def     *ToolDef    `json:"def,omitempty"`
	Changed *ToolChange `json:"changed,omitempty"`
	// Base is the folder the server resolves a relative path against:
	// the first root the client gave it in its last answer to the
	// server's roots/list (a file: URI, as a path), "" when it has given
	// none (the server then uses folders of its own, which the proxy does
	// not know).
	Base string `json:"base,omitempty"`
}

// Verdict is a Gate's answer to a call.
type Verdict struct {
	Allow bool
	// Reason says why; for a denial it is what the client, and the
	// model, read after "agate denied this call: ".
	Reason string
}

// PolicyToolName is the name agate's policy knows a server's tool by.
func PolicyToolName(server, tool string) string { return "mcp__" + server + "__" + tool }
