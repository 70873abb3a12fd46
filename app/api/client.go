package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Client talks to the daemon's local API over its unix socket. The zero
// value works: it finds the socket the way the daemon does (AGATE_SOCKET,
// $XDG_RUNTIME_DIR/agate/agate.sock, ...). The command line, the hook
// adapters and the desktop app all use it. It is safe for concurrent use.
type Client struct {
	// Socket is the daemon's socket; "" finds it from the environment.
	Socket string
	// Timeout bounds a request that has no deadline of its own; 0 means
	// none (a decision may wait for a person).
	Timeout time.Duration
	// Token is a scoped token (`agate tokens add`, `agate container
	// add`), sent as a bearer token to the tokens' socket or a
	// container's; "" takes AGATE_TOKEN from the environment, or the
	// file AGATE_TOKEN_FILE names (a container's mounted token), and
	// none is the person's own socket.
	Token string

	once sync.Once
	err  error
}

func (c *Client) init() {
	c.once.Do(func() {
		if c.Token == "" {
			c.Token = os.Getenv("AGATE_TOKEN")
		}
		if f := os.Getenv("AGATE_TOKEN_FILE"); c.Token == "" && f != "" {
			if c.Token, c.err = readTokenFile(f); c.err != nil {
				return
			}
		}
		if c.Socket == "" {
			p, err := ResolvePaths("", "")
			if err != nil {
				c.err = err
				return
			}
			c.Socket = p.Socket
		}
	})
}

// do sends a request and decodes a JSON answer into out (nil: discard).
func (c *Client) do(ctx context.Context, method, route string, in, out any) error {
	c.init()
	if c.err != nil {
		return c.err
	}
	var body []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = b
	}
	resp, err := exchange(ctx, c.Socket, c.Token, method, Prefix+route, body, c.Timeout)
	if err != nil {
		return err
	}
	defer resp.Close()
	if resp.status/100 != 2 {
		return readAPIError(resp)
	}
	if out == nil {
		io.Copy(io.Discard, resp)
		return nil
	}
	if err := json.NewDecoder(resp).Decode(out); err != nil {
		return fmt.Errorf("decode the daemon's answer: %w", err)
	}
	return nil
}

func readAPIError(resp *response) error {
	b, _ := io.ReadAll(io.LimitReader(resp, 4096))
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	return &APIError{Status: resp.status, Message: msg}
}

// Decide asks the daemon about one call. It may wait for a person, up to
// the approval timeout; ctx bounds the wait too.
func (c *Client) Decide(ctx context.Context, r *DecideRequest) (*DecideResponse, error) {
	var out DecideResponse
	if err := c.do(ctx, "POST", "/decide", r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Pending lists the approvals waiting for a person.
func (c *Client) Pending(ctx context.Context) ([]Approval, error) {
	var out []Approval
	err := c.do(ctx, "GET", "/approvals", nil, &out)
	return out, err
}

// Answer answers one or more waiting approvals.
func (c *Client) Answer(ctx context.Context, a *AnswerRequest) (*AnswerResult, error) {
	var out AnswerResult
	if err := c.do(ctx, "POST", "/approvals/answer", a, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Taint marks a run as having taken in outside content.
func (c *Client) Taint(ctx context.Context, t *TaintRequest) error {
	return c.do(ctx, "POST", "/taint", t, nil)
}

// StartRun starts a new run in a session: the old run's taint and its
// this_run grants end.
func (c *Client) StartRun(ctx context.Context, t *TaintRequest) error {
	return c.do(ctx, "POST", "/runs", t, nil)
}

// Status returns the daemon's state.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	var out Status
	if err := c.do(ctx, "GET", "/status", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Grants returns the saved grants, per agent.
func (c *Client) Grants(ctx context.Context) (map[string][]string, error) {
	var out map[string][]string
	err := c.do(ctx, "GET", "/grants", nil, &out)
	return out, err
}

// RevokeGrants removes an agent's saved grants (all, or the one for tool).
func (c *Client) RevokeGrants(ctx context.Context, agent, tool string) error {
	return c.do(ctx, "POST", "/grants/revoke", map[string]string{"agent": agent, "tool": tool}, nil)
}

// SessionGrants returns the grants of live sessions, per agent and
// session.
func (c *Client) SessionGrants(ctx context.Context) ([]SessionInfo, error) {
	var out []SessionInfo
	err := c.do(ctx, "GET", "/sessions", nil, &out)
	return out, err
}

// Events streams the daemon's events until ctx ends or the daemon goes
// away. With approver set, this client counts as a person who can be
// asked (a terminal approver) while the stream is open.
func (c *Client) Events(ctx context.Context, approver bool, fn func(Event) error) error {
	c.init()
	if c.err != nil {
		return c.err
	}
	path := Prefix + "/events"
	if approver {
		path += "?approver=terminal"
	}
	// The stream is long-lived: no client timeout applies.
	resp, err := exchange(ctx, c.Socket, c.Token, "GET", path, nil, 0)
	if err != nil {
		return err
	}
	defer resp.Close()
	if resp.status != 200 {
		return readAPIError(resp)
	}
	r := bufio.NewReaderSize(resp, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var ev Event
			if jerr := json.Unmarshal(line, &ev); jerr != nil {
				return fmt.Errorf("decode event: %w", jerr)
			}
			if ferr := fn(ev); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// SessionInfo describes a live session's state, for the grants panel.
type SessionInfo struct {
	Agent     string    `json:"agent"`
	Session   string    `json:"session"`
	Run       string    `json:"run,omitempty"`
	Tainted   bool      `json:"tainted"`
	Grants    []string  `json:"grants"`
	RunGrants []string  `json:"run_grants,omitempty"`
	LastSeen  time.Time `json:"last_seen"`
}

// Outcome tells the daemon what became of a call whose ask was handed to
// the agent's own prompt.
func (c *Client) Outcome(ctx context.Context, o *OutcomeRequest) (*OutcomeResult, error) {
	var out OutcomeResult
	if err := c.do(ctx, "POST", "/outcome", o, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// readTokenFile reads a token from a file of at most 4 KiB (one line).
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%w: AGATE_TOKEN_FILE: %w", ErrDaemonDown, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4<<10))
	if err != nil {
		return "", fmt.Errorf("%w: AGATE_TOKEN_FILE %s: %w", ErrDaemonDown, path, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("%w: AGATE_TOKEN_FILE %s holds no token", ErrDaemonDown, path)
	}
	return tok, nil
}
