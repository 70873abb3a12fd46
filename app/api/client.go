package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Client talks to the daemon's local API over its unix socket. The zero
// value works: it finds the socket the way the daemon does (AGATE_SOCKET,
// $XDG_RUNTIME_DIR/agate/agate.sock, ...). The command line, the hook
// adapters and the desktop app all use it.
type Client struct {
	// Socket is the daemon's socket; "" finds it from the environment.
	Socket string
	// Timeout bounds a request that has no deadline of its own; 0 means
	// none (a decision may wait for a person).
	Timeout time.Duration

	once sync.Once
	hc   *http.Client
	err  error
}

func (c *Client) init() {
	c.once.Do(func() {
		if c.Socket == "" {
			p, err := ResolvePaths("", "")
			if err != nil {
				c.err = err
				return
			}
			c.Socket = p.Socket
		}
		sock := c.Socket
		tr := &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "unix", sock)
			},
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     30 * time.Second,
		}
		c.hc = &http.Client{Transport: tr, Timeout: c.Timeout}
	})
}

// do sends a request and decodes a JSON answer into out (nil: discard).
func (c *Client) do(ctx context.Context, method, route string, in, out any) error {
	c.init()
	if c.err != nil {
		return c.err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://agate"+Prefix+route, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.transportErr(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return readAPIError(resp)
	}
	if out == nil {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode the daemon's answer: %w", err)
	}
	return nil
}

// transportErr turns a failure to reach the socket into ErrDaemonDown.
func (c *Client) transportErr(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return fmt.Errorf("%w (socket %s): %v", ErrDaemonDown, c.Socket, op.Err)
	}
	return err
}

func readAPIError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	return &APIError{Status: resp.StatusCode, Message: msg}
}

// Decide asks the daemon about one call. It may wait for a person, up to
// the approval timeout; ctx bounds the wait too.
func (c *Client) Decide(ctx context.Context, r *DecideRequest) (*DecideResponse, error) {
	var out DecideResponse
	if err := c.do(ctx, http.MethodPost, "/decide", r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Pending lists the approvals waiting for a person.
func (c *Client) Pending(ctx context.Context) ([]Approval, error) {
	var out []Approval
	err := c.do(ctx, http.MethodGet, "/approvals", nil, &out)
	return out, err
}

// Answer answers one or more waiting approvals.
func (c *Client) Answer(ctx context.Context, a *AnswerRequest) (*AnswerResult, error) {
	var out AnswerResult
	if err := c.do(ctx, http.MethodPost, "/approvals/answer", a, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Taint marks a run as having taken in outside content.
func (c *Client) Taint(ctx context.Context, t *TaintRequest) error {
	return c.do(ctx, http.MethodPost, "/taint", t, nil)
}

// StartRun starts a new run in a session: the old run's taint and its
// this_run grants end.
func (c *Client) StartRun(ctx context.Context, t *TaintRequest) error {
	return c.do(ctx, http.MethodPost, "/runs", t, nil)
}

// Status returns the daemon's state.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	var out Status
	if err := c.do(ctx, http.MethodGet, "/status", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Grants returns the saved grants, per agent.
func (c *Client) Grants(ctx context.Context) (map[string][]string, error) {
	var out map[string][]string
	err := c.do(ctx, http.MethodGet, "/grants", nil, &out)
	return out, err
}

// RevokeGrants removes an agent's saved grants (all, or the one for tool).
func (c *Client) RevokeGrants(ctx context.Context, agent, tool string) error {
	return c.do(ctx, http.MethodPost, "/grants/revoke", map[string]string{"agent": agent, "tool": tool}, nil)
}

// SessionGrants returns the grants of live sessions, per agent and
// session.
func (c *Client) SessionGrants(ctx context.Context) ([]SessionInfo, error) {
	var out []SessionInfo
	err := c.do(ctx, http.MethodGet, "/sessions", nil, &out)
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
	q := url.Values{}
	if approver {
		q.Set("approver", "terminal")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://agate"+Prefix+"/events?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	// The stream is long-lived: no client timeout applies.
	hc := *c.hc
	hc.Timeout = 0
	resp, err := hc.Do(req)
	if err != nil {
		return c.transportErr(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return readAPIError(resp)
	}
	r := bufio.NewReaderSize(resp.Body, 64<<10)
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
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return ctx.Err()
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
