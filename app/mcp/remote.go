package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// Remote is a server reached over MCP's Streamable HTTP transport, which
// RunRemote stands in front of in place of a command: the client speaks
// to the proxy over stdio as to any server, and the proxy speaks HTTP to
// the remote one, so every tools/call is gated, every tools/list pinned
// and every result cleaned exactly as for a stdio server. No port is
// opened on this machine: nothing but the client that started the proxy
// can reach it.
type Remote struct {
	// URL is the server's MCP endpoint (https://HOST/mcp).
	URL *url.URL
	// Header is sent with every request (Authorization and the like). It
	// is never logged, and never sent anywhere but URL's origin: a
	// redirect is not followed.
	Header http.Header
	// HTTP is the client requests go through; nil is one that follows no
	// redirect, with no overall timeout (a call's answer may stream).
	HTTP *http.Client
}

// The Streamable HTTP transport's headers.
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

// ErrRedirect means the remote server answered with a redirect, which
// the proxy does not follow: the request would go where agate's gate is
// not, with the person's headers.
var ErrRedirect = errors.New("the remote MCP server redirected the request, which agate does not follow")

// RunRemote proxies between the client and the remote server r until the
// client closes its side or ctx ends. It returns 0, or 1 with the error
// that ended it. opts.Command may be empty (r.URL names the server).
func RunRemote(ctx context.Context, opts Options, r Remote) (int, error) {
	if r.URL == nil || (r.URL.Scheme != "https" && r.URL.Scheme != "http") || r.URL.Host == "" {
		return 2, errors.New("mcp: the remote server's URL must be http:// or https://")
	}
	if r.URL.User != nil {
		return 2, errors.New("mcp: the remote server's URL must not hold a user or password (send them as a header)")
	}
	if len(opts.Command) == 0 {
		opts.Command = []string{r.URL.String()}
	}
	if err := opts.setDefaults(); err != nil {
		return 2, err
	}
	if r.HTTP == nil {
		r.HTTP = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b := &bridge{r: r, opts: &opts, out: outW, done: make(chan struct{})}
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	go b.run(bctx, inR)
	p := newProxy(opts, inW, outR)
	p.begin(ctx)
	var err error
	select {
	case <-p.serverDone:
	case <-p.clientDone:
	case <-ctx.Done():
		err = ctx.Err()
	}
	p.endCalls()
	inW.Close()
	// What the server sent before the end is passed on first.
	select {
	case <-b.done:
	case <-time.After(opts.StopGrace):
		// Cut what is still streaming, and a write the proxy no longer
		// reads.
		cancel()
		outR.Close()
		<-b.done
	}
	<-p.serverDone
	p.end()
	if err != nil {
		return 1, err
	}
	return 0, nil
}

// bridge carries the proxy's lines to the remote server, one POST each,
// and what the server answers back as lines.
type bridge struct {
	r    Remote
	opts *Options
	out  *io.PipeWriter
	done chan struct{}

	mu       sync.Mutex // guards what follows
	session  string     // Mcp-Session-Id, once the server gave one
	protocol string     // the protocol version initialize agreed
	listen   bool       // the GET stream was started

	outMu  sync.Mutex // guards writes to out, apart from mu: a write may block
	closed bool       // out is closed: what comes later is dropped
}

// run reads the proxy's lines until it closes its side, then ends the
// session (DELETE) and closes the proxy's input.
func (b *bridge) run(ctx context.Context, in io.Reader) {
	defer close(b.done)
	var wg sync.WaitGroup
	lr := newLineReader(in, b.opts.MaxLine)
	for {
		line, err := lr.next()
		if err != nil {
			var tl *TooLongError
			if errors.As(err, &tl) {
				continue // (the proxy never forwards one)
			}
			break
		}
		// The messages reach the server in the order the proxy sent them
		// (initialize first, whose answer names the session): the next
		// is sent once the server has answered this one's headers, and
		// the answers are read side by side, a long call's stream
		// holding up no other.
		msg := bytes.Clone(line)
		sent := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.post(ctx, msg, sync.OnceFunc(func() { close(sent) }))
		}()
		<-sent
	}
	wg.Wait()
	b.endSession()
	b.outMu.Lock()
	b.closed = true
	b.out.Close()
	b.outMu.Unlock()
}

// post sends one message and passes on what the server answers. A
// request the server does not answer (an HTTP error, a redirect, a
// network failure) is answered with a JSON-RPC error, so the client is
// never left waiting.
func (b *bridge) post(ctx context.Context, msg []byte, sent func()) {
	defer sent()
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(msg, &head)
	fail := func(err error) {
		fmt.Fprintf(b.opts.Stderr, "agate mcp: %s: %v\n", b.opts.Name, err)
		if len(head.ID) > 0 && head.Method != "" {
			b.emit(errorResponse(head.ID, -32603, "agate could not reach the remote MCP server: "+err.Error()))
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.r.URL.String(), bytes.NewReader(msg))
	if err != nil {
		fail(err)
		return
	}
	b.headers(req)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := b.r.HTTP.Do(req)
	if err != nil {
		fail(err)
		return
	}
	defer resp.Body.Close()
	if head.Method == "initialize" {
		b.mu.Lock()
		if s := resp.Header.Get(headerSession); s != "" && b.session == "" {
			b.session = s
		}
		b.mu.Unlock()
	}
	sent()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		fail(fmt.Errorf("%w (%s to %q)", ErrRedirect, resp.Status, resp.Header.Get("Location")))
		return
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		return // a notification or a response, taken
	case resp.StatusCode/100 != 2:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		fail(fmt.Errorf("the server answered %s: %s", resp.Status, strings.TrimSpace(string(body))))
		return
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		data, err := io.ReadAll(io.LimitReader(resp.Body, int64(b.opts.MaxLine)+1))
		if err != nil || len(data) > b.opts.MaxLine {
			fail(fmt.Errorf("read the answer: %v (at most %d bytes)", err, b.opts.MaxLine))
			return
		}
		b.deliver(data, head.Method == "initialize")
	case "text/event-stream":
		if err := b.events(resp.Body, head.Method == "initialize"); err != nil && ctx.Err() == nil {
			fail(err)
		}
	default:
		fail(fmt.Errorf("the server answered with %q, neither JSON nor an event stream", ct))
	}
	if head.Method == "notifications/initialized" {
		b.startListening(ctx)
	}
}

// headers sets what every request carries: the person's headers, the
// session and the protocol version.
func (b *bridge) headers(req *http.Request) {
	for k, vs := range b.r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.session != "" {
		req.Header.Set(headerSession, b.session)
	}
	if b.protocol != "" {
		req.Header.Set(headerProtocol, b.protocol)
	}
}

// events passes on each message of an event stream.
func (b *bridge) events(body io.Reader, initialize bool) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), b.opts.MaxLine+16)
	var data bytes.Buffer
	event := ""
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if data.Len() > 0 && (event == "" || event == "message") {
				b.deliver(bytes.Clone(data.Bytes()), initialize)
			}
			data.Reset()
			event = ""
		case bytes.HasPrefix(line, []byte("data:")):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" ")))
			if data.Len() > b.opts.MaxLine {
				return fmt.Errorf("an event of more than %d bytes", b.opts.MaxLine)
			}
		case bytes.HasPrefix(line, []byte("event:")):
			event = strings.TrimSpace(string(line[len("event:"):]))
		}
	}
	if data.Len() > 0 && (event == "" || event == "message") {
		b.deliver(bytes.Clone(data.Bytes()), initialize)
	}
	return sc.Err()
}

// deliver writes one message (or batch) to the proxy as one line.
func (b *bridge) deliver(data []byte, initialize bool) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		fmt.Fprintf(b.opts.Stderr, "agate mcp: %s: the server sent what is not JSON; dropped\n", b.opts.Name)
		return
	}
	if initialize {
		var res struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(buf.Bytes(), &res) == nil && res.Result.ProtocolVersion != "" {
			b.mu.Lock()
			b.protocol = res.Result.ProtocolVersion
			b.mu.Unlock()
		}
	}
	b.emit(buf.Bytes())
}

// emit writes one line to the proxy.
func (b *bridge) emit(line []byte) {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	if !b.closed {
		b.out.Write(append(line, '\n')) // (fails only once the proxy is gone)
	}
}

// startListening opens the stream on which the server sends what is not
// an answer to a request (notifications, its own requests), once: a
// server that offers none (405) has none to send.
func (b *bridge) startListening(ctx context.Context) {
	b.mu.Lock()
	if b.listen {
		b.mu.Unlock()
		return
	}
	b.listen = true
	b.mu.Unlock()
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.r.URL.String(), nil)
		if err != nil {
			return
		}
		b.headers(req)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := b.r.HTTP.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return
		}
		if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/event-stream" {
			b.events(resp.Body, false)
		}
	}()
}

// endSession tells the server the session is over, if it gave one.
func (b *bridge) endSession() {
	b.mu.Lock()
	s := b.session
	b.mu.Unlock()
	if s == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, b.r.URL.String(), nil)
	if err != nil {
		return
	}
	b.headers(req)
	if resp, err := b.r.HTTP.Do(req); err == nil {
		resp.Body.Close()
	}
}

// ExpandHeader is a header value with ${NAME} replaced by the variable
// NAME of env (getenv): a client's config holds `--header
// "Authorization: Bearer ${TOKEN}"`, and the token stays in the server's
// environment, out of the proxy's command line, which any process of the
// machine can read. A variable that is not set is an error.
func ExpandHeader(v string, getenv func(string) (string, bool)) (string, error) {
	var missing string
	out := os.Expand(v, func(name string) string {
		val, ok := getenv(name)
		if !ok && missing == "" {
			missing = name
		}
		return val
	})
	if missing != "" {
		return "", fmt.Errorf("the header names ${%s}, which is not set", missing)
	}
	if strings.ContainsAny(out, "\r\n") {
		return "", errors.New("a header value holds a line break")
	}
	return out, nil
}
