package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MCPCall is what agate's MCP proxy adds to a decide request for one
// tools/call it forwards (DecideRequest.MCP). The daemon checks Def
// against the pin it keeps for Server and Tool itself; Changed is what
// the proxy saw change, added to what the daemon sees.
type MCPCall struct {
	// Proxy is the proxy's session id, as it registered (POST
	// /v1/mcp/proxies).
	Proxy string `json:"proxy"`
	// Server is the server's name; Tool the tool's name as the server
	// knows it. DecideRequest.Tool is "mcp__" + Server + "__" + Tool.
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Def is the tool's definition as last listed to the client (an
	// mcp.ToolDef in JSON), absent when the client called it without
	// listing it in this session.
	Def json.RawMessage `json:"def,omitempty"`
	// Changed names the fields the proxy saw change since the pin.
	Changed []string `json:"changed,omitempty"`
	// Base is the folder the server resolves relative paths against, as
	// the proxy learnt it (the first root the client gave the server,
	// absolute), "" when it does not know.
	Base string `json:"base,omitempty"`
	// Known is the name agate's catalog knows the server by, from the
	// command the proxy started it with (mcp.KnownServer); "" when it
	// does not know the command (policy.MCPTool.Known).
	Known string `json:"known,omitempty"`
}

// MCPPinRequest pins the tools of one tools/list page (POST
// /v1/mcp/pin). Each tool is an mcp.ToolDef in JSON.
type MCPPinRequest struct {
	Proxy  string            `json:"proxy,omitempty"` // the proxy's session id
	Server string            `json:"server"`
	Tools  []json.RawMessage `json:"tools"`
}

// MCPToolChange is a tool whose definition is not the one pinned.
type MCPToolChange struct {
	Tool    string   `json:"tool"`
	OldHash string   `json:"old_hash"`
	NewHash string   `json:"new_hash"`
	Fields  []string `json:"fields"`
}

// MCPPinResult lists the tools of a page whose definition changed.
type MCPPinResult struct {
	Changes []MCPToolChange `json:"changes"`
}

// MCPProxy registers a running proxy (POST /v1/mcp/proxies): while the
// request's connection is open, an agent's hook that calls a tool of
// Server from the process that started the proxy is answered allow, the
// proxy deciding the call itself. The daemon takes the proxy's process
// from the connection, never from the request.
type MCPProxy struct {
	Session       string   `json:"session"` // the proxy's session id
	Server        string   `json:"server"`
	Command       []string `json:"command,omitempty"`
	Client        string   `json:"client,omitempty"` // the client's clientInfo name, when known
	ClientVersion string   `json:"client_version,omitempty"`
}

// MCPProxyEvent is one line of a registration's stream: the first says
// it is in force, then heartbeats.
type MCPProxyEvent struct {
	Type      string `json:"type"`                 // "registered", "heartbeat"
	ClientPID int    `json:"client_pid,omitempty"` // the process whose hooks step aside
	// Secrets says the daemon knows secret values to cut out of
	// results (POST /v1/mcp/redact).
	Secrets bool `json:"secrets,omitempty"`
}

// MCPRedact asks the daemon to cut the secret values it knows out of
// one string of a result (POST /v1/mcp/redact). The values never leave
// the daemon.
type MCPRedact struct {
	Text string `json:"text"`
}

// MCPRedacted is the string with each known value replaced by
// "[secret LABEL]"; Found says there was one.
type MCPRedacted struct {
	Text  string `json:"text"`
	Found bool   `json:"found"`
}

// MCPResult tells the daemon that a forwarded call's answer is on its
// way to the client (POST /v1/mcp/result): it taints the run, unless
// the catalog knows the tool for one that reads only this machine's
// files.
type MCPResult struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Run     string `json:"run,omitempty"`
	Server  string `json:"server"`
	Tool    string `json:"tool"` // "" when the proxy cannot tell
}

// ErrStreamEnded means the daemon ended a long-lived stream.
var ErrStreamEnded = errors.New("the daemon ended the stream")

// PinMCP pins the tools of one tools/list page.
func (c *Client) PinMCP(ctx context.Context, r *MCPPinRequest) (*MCPPinResult, error) {
	var out MCPPinResult
	if err := c.do(ctx, "POST", "/mcp/pin", r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MCPResult tells the daemon of one answer to a forwarded call.
func (c *Client) MCPResult(ctx context.Context, r *MCPResult) error {
	return c.do(ctx, "POST", "/mcp/result", r, nil)
}

// RedactMCP cuts the secret values the daemon knows out of s.
func (c *Client) RedactMCP(ctx context.Context, s string) (*MCPRedacted, error) {
	var out MCPRedacted
	if err := c.do(ctx, "POST", "/mcp/redact", &MCPRedact{Text: s}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RegisterMCPProxy registers a proxy and holds the registration until
// ctx ends or the daemon goes: then it returns (ctx's error, or why the
// stream ended). ready is called once the daemon has the registration in
// force (first set), then with each heartbeat.
func (c *Client) RegisterMCPProxy(ctx context.Context, p *MCPProxy, ready func(ev MCPProxyEvent, first bool)) error {
	c.init()
	if c.err != nil {
		return c.err
	}
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	resp, err := exchange(ctx, c.Socket, c.Token, "POST", Prefix+"/mcp/proxies", body, 0)
	if err != nil {
		return err
	}
	defer resp.Close()
	if resp.status != 200 {
		return readAPIError(resp)
	}
	r := bufio.NewReaderSize(resp, 4<<10)
	first := true
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 1 {
			var ev MCPProxyEvent
			if jerr := json.Unmarshal(line, &ev); jerr != nil {
				return fmt.Errorf("decode the registration: %w", jerr)
			}
			if ready != nil {
				ready(ev, first)
			}
			first = false
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, io.EOF) {
				return ErrStreamEnded
			}
			return err
		}
	}
}
