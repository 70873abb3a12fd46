package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// The older HTTP+SSE transport (MCP 2024-11-05): the client opens an
// event stream (GET URL); the server's first event, "endpoint", names
// the URL the client posts each message to; every message of the
// server's, the answers among them, comes on the stream.

// ErrEndpointElsewhere means an SSE server named, for its messages, a URL
// of another origin than its stream's: the person's headers and every
// call would go where agate was not pointed.
var ErrEndpointElsewhere = errors.New("the remote MCP server named another origin for its messages, which agate does not post to")

// sseEndpointWait bounds the wait for the endpoint event.
const sseEndpointWait = 30 * time.Second

// ssePostTimeout bounds one POST of the SSE transport, which the server
// answers at once (202): the answer itself comes on the stream.
const ssePostTimeout = 30 * time.Second

// runSSE is run for the HTTP+SSE transport. The messages are posted one
// at a time, in the order the proxy sent them (their answers come on one
// stream, in the server's order). When the stream ends, the server is
// gone, as a stdio server that exits.
func (b *bridge) runSSE(ctx context.Context, in io.Reader) {
	defer close(b.done)
	q := b.readLines(in)
	sctx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	endpoint := make(chan *url.URL, 1)
	streamDone := make(chan struct{})
	var why atomic.Pointer[string] // why nothing is posted, once the stream is over
	go func() {
		defer close(streamDone)
		err := b.sseStream(sctx, endpoint)
		if err != nil && sctx.Err() == nil {
			b.logf("the event stream: %v", err)
		}
		if len(endpoint) == 0 && err != nil {
			// It never opened: the requests are answered with why.
			msg := err.Error()
			why.Store(&msg)
			return
		}
		// The server is gone: so the proxy learns.
		b.closeOut()
	}()
	var post *url.URL
	select {
	case post = <-endpoint:
	case <-streamDone:
	case <-time.After(sseEndpointWait):
		b.logf("the server named no endpoint in %v", sseEndpointWait)
	}
	for {
		line, ok := q.take()
		if !ok {
			break
		}
		var h head
		json.Unmarshal(line, &h)
		h.ID = compactID(h.ID)
		if post == nil {
			reason := "the server's event stream did not name where to post"
			if w := why.Load(); w != nil {
				reason = *w
			}
			b.failRequest(h, reason)
			continue
		}
		b.ssePost(ctx, post, line, h)
	}
	stopStream()
	<-streamDone
	b.closeOut()
}

// closeOut closes the proxy's input: what comes later is dropped.
func (b *bridge) closeOut() {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	if !b.closed {
		b.closed = true
		b.out.Close()
	}
}

// failRequest answers a request the server will not get with an error.
func (b *bridge) failRequest(h head, why string) {
	if h.request() {
		b.emit(errorResponse(h.ID, -32603, "agate could not get an answer from the remote MCP server: "+b.hide(why)))
	}
}

// sseStream opens the event stream, sends the endpoint it names on
// endpoint (once), and passes on every message until the stream ends.
func (b *bridge) sseStream(ctx context.Context, endpoint chan<- *url.URL) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.r.URL.String(), nil)
	if err != nil {
		return err
	}
	b.headers(req, true)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := b.r.HTTP.Do(req)
	if err != nil {
		return errors.New(b.hide(bareError(err).Error()))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return fmt.Errorf("%w (%s)", ErrRedirect, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the server answered %s", resp.Status)
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		return fmt.Errorf("the server answered with %q, not an event stream", ct)
	}
	named := false
	var refused error
	err = b.eventsNamed(resp.Body, func(event string, data []byte) bool {
		switch {
		case event == "endpoint" && !named:
			named = true
			u, err := b.sseEndpoint(string(bytes.TrimSpace(data)))
			if err != nil {
				refused = err
				return true // nowhere to post: the server is of no use
			}
			endpoint <- u
		case event == "" || event == "message":
			b.deliver(data, false, nil)
		}
		return false
	})
	if refused != nil {
		return refused
	}
	return err
}

// sseEndpoint is the URL the endpoint event names, resolved against the
// stream's; one of another origin is refused.
func (b *bridge) sseEndpoint(raw string) (*url.URL, error) {
	ref, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("the endpoint event: %v", err)
	}
	u := b.r.URL.ResolveReference(ref)
	if u.Scheme != b.r.URL.Scheme || !strings.EqualFold(u.Host, b.r.URL.Host) || u.User != nil {
		return nil, fmt.Errorf("%w (%s)", ErrEndpointElsewhere, displayURL(u))
	}
	return u, nil
}

// ssePost posts one message to the endpoint; a request it could not
// deliver is answered with an error.
func (b *bridge) ssePost(ctx context.Context, endpoint *url.URL, msg []byte, h head) {
	pctx, cancel := context.WithTimeout(ctx, ssePostTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(pctx, http.MethodPost, endpoint.String(), bytes.NewReader(msg))
	if err != nil {
		b.failRequest(h, "the request could not be made")
		return
	}
	b.headers(req, true)
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.r.HTTP.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			b.logf("%s: %v", orMessage(h.Method), bareError(err))
		}
		b.failRequest(h, bareError(err).Error())
		return
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		b.logf("%s: the server answered %s", orMessage(h.Method), resp.Status)
		b.failRequest(h, "the server answered "+resp.Status)
	}
}
