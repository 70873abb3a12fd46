// Package mcptest is an in-memory mcp.Gate for tests: it decides by a
// function, keeps pins in memory as the daemon keeps them on disk, and
// records what it was told.
package mcptest

import (
	"context"
	"strings"
	"sync"

	"github.com/agatehq/agate/app/mcp"
)

// Gate is an mcp.Gate in memory. Its zero value allows every call but
// those of a tool whose definition changed since it was pinned, which
// it denies naming what changed. It is safe for concurrent use; set its
// fields before the proxy starts.
type Gate struct {
	// Policy decides a call in place of the default. It may block until
	// ctx ends.
	Policy func(ctx context.Context, c mcp.Call) (mcp.Verdict, error)

	mu       sync.Mutex
	pins     map[string]map[string]mcp.ToolDef // server → tool → pinned definition
	calls    []mcp.Call
	taints   []string
	started  []mcp.Session
	stopped  []mcp.Session
	pinCalls int
	pinErr   error
	taintErr error
}

var _ mcp.Gate = (*Gate)(nil)

// Start records s.
func (g *Gate) Start(ctx context.Context, s mcp.Session) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.started = append(g.started, s)
	return nil
}

// Stop records s.
func (g *Gate) Stop(ctx context.Context, s mcp.Session) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = append(g.stopped, s)
	return nil
}

// Decide records c and decides it with Policy, or by default.
func (g *Gate) Decide(ctx context.Context, c mcp.Call) (mcp.Verdict, error) {
	g.mu.Lock()
	g.calls = append(g.calls, c)
	policy := g.Policy
	g.mu.Unlock()
	if policy != nil {
		return policy(ctx, c)
	}
	return Default(c), nil
}

// Default is the zero Gate's decision: allow, unless the tool's
// definition changed.
func Default(c mcp.Call) mcp.Verdict {
	if c.Changed != nil {
		return mcp.Verdict{Reason: "the definition of " + c.PolicyTool + " changed since it was approved (" + strings.Join(c.Changed.Fields, ", ") + ")"}
	}
	return mcp.Verdict{Allow: true, Reason: "allowed by the test"}
}

// Pin pins the tools not pinned yet and reports those whose definition
// differs from their pin; a changed tool keeps its old pin until
// Approve. It fails with the error SetPinError gave.
func (g *Gate) Pin(ctx context.Context, s mcp.Session, tools []mcp.ToolDef) ([]mcp.ToolChange, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pinCalls++
	if g.pinErr != nil {
		return nil, g.pinErr
	}
	if g.pins == nil {
		g.pins = map[string]map[string]mcp.ToolDef{}
	}
	pins := g.pins[s.Server]
	if pins == nil {
		pins = map[string]mcp.ToolDef{}
		g.pins[s.Server] = pins
	}
	var changes []mcp.ToolChange
	for _, t := range tools {
		old, ok := pins[t.Name]
		if !ok {
			pins[t.Name] = t
			continue
		}
		if old.Hash != t.Hash {
			changes = append(changes, mcp.ToolChange{Tool: t.Name, OldHash: old.Hash, NewHash: t.Hash, Fields: mcp.ChangedFields(old, t)})
		}
	}
	return changes, nil
}

// Approve pins def for server, as a person approving a changed
// definition would.
func (g *Gate) Approve(server string, def mcp.ToolDef) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pins == nil {
		g.pins = map[string]map[string]mcp.ToolDef{}
	}
	if g.pins[server] == nil {
		g.pins[server] = map[string]mcp.ToolDef{}
	}
	g.pins[server][def.Name] = def
}

// Pinned returns the pin of a server's tool.
func (g *Gate) Pinned(server, tool string) (mcp.ToolDef, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, ok := g.pins[server][tool]
	return d, ok
}

// Taint records tool, or fails with the error SetTaintError gave.
func (g *Gate) Taint(ctx context.Context, s mcp.Session, tool string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.taintErr != nil {
		return g.taintErr
	}
	g.taints = append(g.taints, tool)
	return nil
}

// SetPinError makes Pin fail with err (nil: succeed again).
func (g *Gate) SetPinError(err error) { g.mu.Lock(); g.pinErr = err; g.mu.Unlock() }

// SetTaintError makes Taint fail with err (nil: succeed again).
func (g *Gate) SetTaintError(err error) { g.mu.Lock(); g.taintErr = err; g.mu.Unlock() }

// Calls returns the calls decided so far.
func (g *Gate) Calls() []mcp.Call {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]mcp.Call(nil), g.calls...)
}

// Taints returns the tools whose results tainted the run, in order.
func (g *Gate) Taints() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.taints...)
}

// PinCalls returns how many times Pin was called.
func (g *Gate) PinCalls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pinCalls
}

// Sessions returns the sessions started and stopped.
func (g *Gate) Sessions() (started, stopped []mcp.Session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]mcp.Session(nil), g.started...), append([]mcp.Session(nil), g.stopped...)
}
