package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ErrSignIn means a remote server answered that it wants a sign-in
// (401 or 403 to a request without one): its client signs in with
// OAuth, which agate's bridge cannot do for it.
var ErrSignIn = errors.New("the remote MCP server wants a sign-in (OAuth) that only its client can do")

// probeInitialize is the initialize a probe sends: the least a server
// answers to.
const probeInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"agate-probe","version":"1"}}}`

// ProbeRemote asks the remote server r whether it takes agate's bridge
// as a client: an initialize over Streamable HTTP (its session then
// ended), or the event stream of the SSE transport opened and closed.
// It returns nil when the server answers, ErrSignIn when it wants a
// sign-in, ErrRedirect when it redirects, and an error naming the status
// or the failure otherwise. Nothing the server sends is kept, and its
// URL is never in the error (it may hold a key).
func ProbeRemote(ctx context.Context, r Remote) error {
	if r.URL == nil || (r.URL.Scheme != "https" && r.URL.Scheme != "http") || r.URL.Host == "" {
		return errors.New("mcp: the remote server's URL must be http:// or https://")
	}
	c := http.Client{}
	if r.HTTP != nil {
		c = *r.HTTP
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var req *http.Request
	var err error
	if r.SSE {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, r.URL.String(), nil)
		if err == nil {
			req.Header.Set("Accept", "text/event-stream")
		}
	} else {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, r.URL.String(), bytes.NewReader([]byte(probeInitialize)))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
	}
	if err != nil {
		return fmt.Errorf("mcp: probe: %w", bareError(err))
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("mcp: probe: %w", bareError(err))
	}
	// An SSE stream stays open: only its status is read.
	if !r.SSE {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w (it answers %s)", ErrSignIn, resp.Status)
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return ErrRedirect
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		return fmt.Errorf("mcp: the remote server answers %s", resp.Status)
	}
	if s := resp.Header.Get(headerSession); s != "" && !r.SSE {
		// The session the probe began ends.
		if del, err := http.NewRequestWithContext(ctx, http.MethodDelete, r.URL.String(), nil); err == nil {
			for k, vs := range r.Header {
				for _, v := range vs {
					del.Header.Add(k, v)
				}
			}
			del.Header.Set(headerSession, s)
			if resp, err := c.Do(del); err == nil {
				resp.Body.Close()
			}
		}
	}
	return nil
}
