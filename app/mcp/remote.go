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
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/internal/strictjson"
	"github.com/agatehq/agate/policy"
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
	// HTTP is the client requests go through; nil is net/http's default
	// (with no overall timeout: a call's answer may stream, and the
	// HTTPS_PROXY of the environment, through which TLS still runs end
	// to end). Whoever made it, its redirects are not followed.
	HTTP *http.Client
	// SSE says the server speaks MCP's older HTTP+SSE transport (protocol
	// 2024-11-05): URL is its event stream, whose first event names
	// where messages are posted.
	SSE bool
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
	if r.URL.Scheme == "http" && !loopback(r.URL.Hostname()) {
		return 2, fmt.Errorf("mcp: %s: plain http:// only to this machine (localhost, 127.0.0.1, ::1): every call, and the headers sent with it, would cross the network in the clear", displayURL(r.URL))
	}
	if len(opts.Command) == 0 {
		opts.Command = []string{displayURL(r.URL)}
	}
	if err := opts.setDefaults(); err != nil {
		return 2, err
	}
	// A redirect is never followed, whoever made the client.
	c := http.Client{}
	if r.HTTP != nil {
		c = *r.HTTP
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r.HTTP = &c
	values := secretValues(r.Header, r.URL)
	if len(values) > 0 {
		// (What the server sends has them cut before the proxy sees it:
		// bridge.cutValues. The proxy's own log lines are cut here.)
		opts.hide = func(s string) string { return cutAll(s, values) }
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b := &bridge{r: r, opts: &opts, out: outW, done: make(chan struct{}), values: values}
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	if r.SSE {
		go b.runSSE(bctx, inR)
	} else {
		go b.run(bctx, inR)
	}
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
	// values are the person's secrets the server is sent (the headers',
	// the URL's query and long path segments), longest first: cut out of
	// everything the server sends back and of what agate writes.
	values []string

	mu       sync.Mutex // guards what follows
	session  string     // Mcp-Session-Id, once the server gave one
	protocol string     // the protocol version initialize agreed
	// listenStop ends the GET stream of the current session; nil when
	// none was opened.
	listenStop context.CancelFunc

	listenCtx context.Context // ends the GET streams once the posts are over
	listenWG  sync.WaitGroup  // the GET streams' readers

	outMu  sync.Mutex // guards writes to out, apart from mu: a write may block
	closed bool       // out is closed: what comes later is dropped
}

// maxInFlight bounds the requests the bridge has open at once; the next
// line waits for one to end (as a stdio server's full pipe would).
const maxInFlight = 64

// notificationWait bounds how long the next message waits for the server
// to take a notification.
const notificationWait = 5 * time.Second

// lineQueue holds the lines read and not yet sent, up to limit bytes
// (and always one, however long).
type lineQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	lines  [][]byte
	bytes  int
	limit  int
	closed bool
}

func newLineQueue(limit int) *lineQueue {
	q := &lineQueue{limit: limit}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// put adds a line, waiting while the queue is full.
func (q *lineQueue) put(line []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.lines) > 0 && q.bytes+len(line) > q.limit {
		q.cond.Wait()
	}
	q.lines = append(q.lines, line)
	q.bytes += len(line)
	q.cond.Broadcast()
}

// take returns the next line, waiting for one; ok is false once the
// queue is closed and empty.
func (q *lineQueue) take() (line []byte, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.lines) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.lines) == 0 {
		return nil, false
	}
	line, q.lines = q.lines[0], q.lines[1:]
	q.bytes -= len(line)
	q.cond.Broadcast()
	return line, true
}

// close ends the queue: take returns what is left, then ok false.
func (q *lineQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// head is what the bridge reads of a message: its id and method.
type head struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// request reports whether the message awaits an answer.
func (h head) request() bool { return len(h.ID) > 0 && string(h.ID) != "null" && h.Method != "" }

// run reads the proxy's lines until it closes its side, then ends the
// session (DELETE) and closes the proxy's input.
func (b *bridge) run(ctx context.Context, in io.Reader) {
	defer close(b.done)
	lctx, stopListening := context.WithCancel(ctx)
	defer stopListening()
	b.listenCtx = lctx
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxInFlight)
	q := b.readLines(in)
	for {
		line, ok := q.take()
		if !ok {
			break
		}
		msg := line
		var h head
		json.Unmarshal(msg, &h)
		h.ID = compactID(h.ID)
		sem <- struct{}{}
		ready, finished := make(chan struct{}), make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer close(finished)
			b.post(ctx, msg, h, sync.OnceFunc(func() { close(ready) }))
		}()
		// The answers are read side by side, a long call's stream
		// holding up no other, and a cancellation goes while the call it
		// cancels is still open. What must keep its order waits:
		// initialize until its answer is passed on (it names the session
		// and the protocol every later request carries), a notification
		// until the server took it (notifications/initialized before the
		// requests that follow it).
		switch {
		case h.Method == "initialize":
			<-finished
		case !h.request():
			select {
			case <-ready:
			case <-time.After(notificationWait):
				// A server that holds a notification holds up nothing
				// more than this.
			}
		}
	}
	wg.Wait()
	stopListening()
	b.listenWG.Wait()
	b.endSession()
	b.outMu.Lock()
	b.closed = true
	b.out.Close()
	b.outMu.Unlock()
}

// readLines reads the proxy's lines as they come, whatever the server is
// slow to take, so that the proxy always sees its client's end; what is
// not sent yet waits in the queue, up to a bound.
func (b *bridge) readLines(in io.Reader) *lineQueue {
	q := newLineQueue(2 * b.opts.MaxLine)
	go func() {
		defer q.close()
		lr := newLineReader(in, b.opts.MaxLine)
		for {
			line, err := lr.next()
			if err != nil {
				var tl *TooLongError
				if errors.As(err, &tl) {
					// (The proxy never forwards one: see proxy.decide.)
					b.logf("a message of more than %d bytes was not sent", b.opts.MaxLine)
					continue
				}
				return
			}
			q.put(bytes.Clone(line))
		}
	}()
	return q
}

// compactID is id without spaces, as the server's answer will spell it.
func compactID(id json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if len(id) == 0 || json.Compact(&buf, id) != nil {
		return id
	}
	return buf.Bytes()
}

// post sends one message and passes on what the server answers. A
// request the server does not answer (an HTTP error, a redirect, a
// network failure, a stream that ends first) is answered with a JSON-RPC
// error, so the client is never left waiting. ready is called once the
// server has answered the POST's headers, or the POST has failed.
func (b *bridge) post(ctx context.Context, msg []byte, h head, ready func()) {
	defer ready()
	answered := false
	// fail logs why the POST failed and, for a request not yet
	// answered, answers it with told (which names no header value).
	fail := func(told string, err error) {
		if ctx.Err() == nil && !errors.Is(err, io.ErrClosedPipe) {
			b.logf("%s: %v", orMessage(h.Method), err)
		}
		if h.request() && !answered {
			answered = true
			b.emit(errorResponse(h.ID, -32603, "agate could not get an answer from the remote MCP server: "+b.hide(told)))
		}
	}
	initialize := h.Method == "initialize"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.r.URL.String(), bytes.NewReader(msg))
	if err != nil {
		fail("the request could not be made", err)
		return
	}
	sentSession := b.headers(req, initialize)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := b.r.HTTP.Do(req)
	if err != nil {
		reason := b.hide(bareError(err).Error())
		fail(reason, errors.New(reason))
		return
	}
	defer resp.Body.Close()
	if initialize && resp.StatusCode/100 == 2 {
		// A new session replaces whatever the last initialize gave.
		b.mu.Lock()
		b.session, b.protocol = resp.Header.Get(headerSession), ""
		b.endStreamLocked()
		b.mu.Unlock()
	}
	ready()
	// deliver passes a message on, noting whether it answers h.
	deliver := func(data []byte) {
		if b.deliver(data, initialize, h.ID) && h.request() {
			answered = true
		}
	}
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		fail(fmt.Sprintf("%v (%s)", ErrRedirect, resp.Status), fmt.Errorf("%w (%s to %q)", ErrRedirect, resp.Status, b.hide(resp.Header.Get("Location"))))
		return
	case resp.StatusCode == http.StatusNotFound && sentSession != "":
		// The server no longer knows the session: it is over, and the
		// client must initialize again (which carries none).
		b.mu.Lock()
		if b.session == sentSession {
			b.session, b.protocol = "", ""
			b.endStreamLocked()
		}
		b.mu.Unlock()
		fail("the server ended the session (404 Not Found): connect again", errors.New("the server ended the session (404)"))
		return
	case resp.StatusCode/100 != 2:
		// The body is the server's and may say anything (echo a
		// header): it goes on stderr, cut, and not to the client.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		fail("the server answered "+resp.Status, fmt.Errorf("the server answered %s: %s", resp.Status, b.hide(strings.TrimSpace(string(body)))))
		return
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		// A notification or a response, taken.
	default:
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		switch ct {
		case "application/json":
			data, err := io.ReadAll(io.LimitReader(resp.Body, int64(b.opts.MaxLine)+1))
			if err != nil || len(data) > b.opts.MaxLine {
				fail("its answer could not be read", fmt.Errorf("read the answer: %v (at most %d bytes)", err, b.opts.MaxLine))
				return
			}
			if len(bytes.TrimSpace(data)) > 0 {
				deliver(data)
			}
		case "text/event-stream":
			err := b.events(resp.Body, func(data []byte) bool {
				deliver(data)
				return answered // the stream is over for this request
			})
			if err != nil {
				fail("its event stream broke off", err)
				return
			}
		default:
			fail("it answered with neither JSON nor an event stream", fmt.Errorf("the server answered with %q, neither JSON nor an event stream", ct))
			return
		}
	}
	if h.request() && !answered {
		fail("it ended the request without answering it", fmt.Errorf("the server ended the POST (%s) without answering it", resp.Status))
		return
	}
	if h.Method == "notifications/initialized" {
		b.startListening()
	}
}

// orMessage names a message in a log line.
func orMessage(method string) string {
	if method == "" {
		return "a response"
	}
	return method
}

// bareError is err without the URL net/http wraps around it (which may
// carry a token in its query).
func bareError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// headers sets what every request carries: the person's headers, and
// (but on initialize, which begins a session) the session and the
// protocol version. It returns the session it set.
func (b *bridge) headers(req *http.Request, initialize bool) string {
	for k, vs := range b.r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if initialize {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.session != "" {
		req.Header.Set(headerSession, b.session)
	}
	if b.protocol != "" {
		req.Header.Set(headerProtocol, b.protocol)
	}
	return b.session
}

// events passes on each message of an event stream, until the stream
// ends or message (nil: none) says the rest is not wanted.
func (b *bridge) events(body io.Reader, message func([]byte) bool) error {
	return b.eventsNamed(body, func(name string, data []byte) bool {
		return (name == "" || name == "message") && message(data)
	})
}

// eventsNamed calls fn with each event of a stream that holds data, its
// name and its data, until the stream ends or fn says the rest is not
// wanted; an event longer than the bound is an error.
func (b *bridge) eventsNamed(body io.Reader, fn func(name string, data []byte) bool) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), b.opts.MaxLine+16)
	var data bytes.Buffer
	event := ""
	dispatch := func() bool {
		done := false
		if data.Len() > 0 {
			done = fn(event, bytes.Clone(data.Bytes()))
		}
		data.Reset()
		event = ""
		return done
	}
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if dispatch() {
				return nil
			}
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
	if err := sc.Err(); err != nil {
		return err
	}
	dispatch()
	return nil
}

// deliver writes one message (or batch) to the proxy as one line, and
// reports whether it answers the request id.
func (b *bridge) deliver(data []byte, initialize bool, id json.RawMessage) bool {
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		b.logf("the server sent what is not JSON; dropped")
		return false
	}
	line := b.cutValues(buf.Bytes())
	// What counts as the answer is what the proxy takes as one: well
	// formed, its id the same id however spelled, one of result and
	// error.
	want, wantOK := idKey(id)
	wellFormed := strictjson.Check(line) == nil
	msgs := []json.RawMessage{line}
	if line[0] == '[' {
		msgs = nil
		json.Unmarshal(line, &msgs)
	}
	answers := false
	for _, raw := range msgs {
		m, err := parseMessage(raw)
		if err != nil || m.method != "" || m.has("result") == m.has("error") || !wellFormed || !wantOK {
			continue
		}
		if got, ok := idKey(m.id); !ok || got != want {
			continue
		}
		answers = true
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if initialize && json.Unmarshal(m.members["result"], &res) == nil && res.ProtocolVersion != "" {
			b.mu.Lock()
			b.protocol = res.ProtocolVersion
			b.mu.Unlock()
		}
	}
	b.emit(line)
	return answers
}

// cutValues is the message line with the person's secret values (the
// headers', the URL's) cut out of every string in it, keys and ids
// included, however the server escaped them; line itself when none is
// there. A line that is not strict JSON is left for the proxy to refuse.
func (b *bridge) cutValues(line []byte) []byte {
	if len(b.values) == 0 || strictjson.Check(line) != nil {
		return line
	}
	v, err := decodeNumber(line)
	if err != nil {
		return line
	}
	changed := false
	var walk func(any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case string:
			if c := cutAll(t, b.values); c != t {
				changed = true
				return c
			}
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case map[string]any:
			for k, e := range t {
				e = walk(e)
				if c := cutAll(k, b.values); c != k {
					changed = true
					delete(t, k)
					k = c
				}
				t[k] = e
			}
		}
		return v
	}
	v = walk(v)
	if !changed {
		return line
	}
	out, err := marshal(v)
	if err != nil {
		return line
	}
	return out
}

// cutAll replaces each of values (longest first) in s.
func cutAll(s string, values []string) string {
	for _, v := range values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, "[REDACTED]")
		}
	}
	return s
}

// emit writes one line to the proxy.
func (b *bridge) emit(line []byte) {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	if !b.closed {
		b.out.Write(append(line, '\n')) // (fails only once the proxy is gone)
	}
}

// hide is s with the person's secret values cut out.
func (b *bridge) hide(s string) string { return cutAll(s, b.values) }

// logf writes one line on stderr, the person's header values cut out.
func (b *bridge) logf(format string, args ...any) {
	fmt.Fprintf(b.opts.Stderr, "agate mcp: %s: %s\n", b.opts.Name, b.hide(fmt.Sprintf(format, args...)))
}

// startListening opens the stream on which the server sends what is not
// an answer to a request (notifications, its own requests), once a
// session: a server that offers none (405) has none to send. It ends
// with the session, or with the bridge's posts.
func (b *bridge) startListening() {
	b.mu.Lock()
	if b.listenStop != nil {
		b.mu.Unlock()
		return
	}
	ctx, stop := context.WithCancel(b.listenCtx)
	b.listenStop = stop
	b.mu.Unlock()
	b.listenWG.Add(1)
	go func() {
		defer b.listenWG.Done()
		defer stop()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.r.URL.String(), nil)
		if err != nil {
			return
		}
		b.headers(req, false)
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
			b.events(resp.Body, func(data []byte) bool {
				b.deliver(data, false, nil)
				return false
			})
		}
	}()
}

// endStreamLocked ends the GET stream of a session that is over (a new
// one begins, or the server ended it), so that the next session opens
// its own; b.mu is held.
func (b *bridge) endStreamLocked() {
	if b.listenStop != nil {
		b.listenStop()
		b.listenStop = nil
	}
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
	b.headers(req, false)
	if resp, err := b.r.HTTP.Do(req); err == nil {
		resp.Body.Close()
	}
}

// ExpandHeader is a header value with each ${NAME} replaced by what
// lookup gives for NAME: a client's config holds `--header
// "Authorization: Bearer ${TOKEN}"`, and the token stays in the server's
// environment, out of the proxy's command line, which any process of the
// machine can read. Only ${NAME} is expanded ($NAME and a lone $ stay as
// they are); an error from lookup, a ${ that is not a NAME, or a line
// break in the result is an error.
func ExpandHeader(v string, lookup func(name string) (string, error)) (string, error) {
	var out strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			out.WriteString(v)
			break
		}
		out.WriteString(v[:i])
		end := strings.IndexByte(v[i:], '}')
		if end < 0 {
			return "", errors.New("a ${ without its }")
		}
		name := v[i+2 : i+end]
		if !policy.ValidEnvName(name) {
			return "", fmt.Errorf("${%s} is not a variable's name", name)
		}
		val, err := lookup(name)
		if err != nil {
			return "", err
		}
		out.WriteString(val)
		v = v[i+end+1:]
	}
	if strings.ContainsAny(out.String(), "\r\n\x00") {
		return "", errors.New("a header value holds a line break")
	}
	return out.String(), nil
}

// secretValues are the person's secrets the server is sent: each header
// value (whole, and each word of eight bytes or more), each value of the
// URL's query (as written and decoded), and each segment of its path of
// sixteen bytes or more (a key in the path: /s/KEY/mcp); longest first.
func secretValues(h http.Header, u *url.URL) []string {
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= 8 {
			seen[s] = true
		}
	}
	for _, vs := range h {
		for _, v := range vs {
			add(v)
			for _, w := range strings.Fields(v) {
				add(w)
			}
		}
	}
	if u != nil {
		for _, kv := range strings.Split(u.RawQuery, "&") {
			_, v, _ := strings.Cut(kv, "=")
			add(v)
			if d, err := url.QueryUnescape(v); err == nil {
				add(d)
			}
		}
		for _, seg := range strings.Split(u.EscapedPath(), "/") {
			if len(seg) >= 16 {
				add(seg)
				if d, err := url.PathUnescape(seg); err == nil {
					add(d)
				}
			}
		}
	}
	values := make([]string, 0, len(seen))
	for s := range seen {
		values = append(values, s)
	}
	sort.Slice(values, func(i, j int) bool { return len(values[i]) > len(values[j]) })
	return values
}

// displayURL is u as agate shows it: without its query and fragment,
// and with each path segment of sixteen bytes or more as "…": either may
// carry a key.
func displayURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	q := c.RawQuery != "" || c.ForceQuery
	c.RawQuery, c.ForceQuery = "", false
	segs := strings.Split(c.EscapedPath(), "/")
	for i, seg := range segs {
		if len(seg) >= 16 {
			segs[i] = "…"
		}
	}
	c.RawPath, c.Path = "", ""
	out := c.String() + strings.Join(segs, "/")
	if q {
		out += "?…"
	}
	return out
}

// loopback reports whether host names this machine.
func loopback(host string) bool { return policy.LoopbackHost(host) }
