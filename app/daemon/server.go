package daemon

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/strictjson"
	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// ErrAlreadyRunning means another daemon answers on the socket.
var ErrAlreadyRunning = errors.New("another agate daemon is already running on this socket")

// handler answers one request of the API.
type handler func(d *Daemon, w http.ResponseWriter, r *http.Request)

// route is one entry of the API's table.
type route struct {
	pattern string // "METHOD /v1/path"
	handler handler
}

// routes is the local API, versioned under /v1, in one table.
var routes = []route{
	{"POST " + api.Prefix + "/decide", jsonRoute((*Daemon).handleDecide)},
	{"GET " + api.Prefix + "/approvals", plainRoute(func(d *Daemon, _ *http.Request) (any, error) { return d.Pending(), nil })},
	{"POST " + api.Prefix + "/approvals/answer", jsonRoute((*Daemon).handleAnswer)},
	{"GET " + api.Prefix + "/events", (*Daemon).handleEvents},
	{"GET " + api.Prefix + "/status", plainRoute(func(d *Daemon, _ *http.Request) (any, error) { return d.Status(), nil })},
	{"POST " + api.Prefix + "/taint", jsonRoute((*Daemon).handleTaint)},
	{"POST " + api.Prefix + "/runs", jsonRoute((*Daemon).handleRun)},
	{"POST " + api.Prefix + "/leaks/rotated", jsonRoute((*Daemon).handleRotated)},
	{"GET " + api.Prefix + "/grants", plainRoute(func(d *Daemon, _ *http.Request) (any, error) { return d.SavedGrants(), nil })},
	{"POST " + api.Prefix + "/grants/revoke", jsonRoute((*Daemon).handleRevoke)},
	{"GET " + api.Prefix + "/sessions", plainRoute(func(d *Daemon, _ *http.Request) (any, error) { return d.Sessions(), nil })},
	{"POST " + api.Prefix + "/reload", plainRoute((*Daemon).handleReload)},
	{"POST " + api.Prefix + "/outcome", jsonRoute((*Daemon).handleOutcome)},
	{"POST " + api.Prefix + "/mcp/proxies", (*Daemon).handleMCPProxies},
	{"POST " + api.Prefix + "/mcp/pin", jsonRoute((*Daemon).handleMCPPin)},
	{"POST " + api.Prefix + "/mcp/result", jsonRoute((*Daemon).handleMCPResult)},
	{"POST " + api.Prefix + "/mcp/redact", jsonRoute((*Daemon).handleMCPRedact)},
}

// Handler returns the API's HTTP handler.
func (d *Daemon) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes {
		h := rt.handler
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { h(d, w, r) })
	}
	return d.guard(mux)
}

// guard refuses what a browser sends (a page the person has open must not
// be able to drive the gate, even through a socket bridge), and bounds
// what a request body may take: its size, the time to read it, and its
// share of the memory all bodies in flight may hold.
func (d *Daemon) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") != "" || r.Header.Get("Sec-Fetch-Mode") != "" {
			writeError(w, http.StatusForbidden, "requests from a browser are refused")
			return
		}
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		switch {
		case r.ContentLength < 0:
			writeError(w, http.StatusLengthRequired, "a request body needs a Content-Length")
			return
		case r.ContentLength > maxBody:
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is %d bytes, more than the %d allowed", r.ContentLength, maxBody))
			return
		}
		deadline := time.Now().Add(bodyTimeout)
		http.NewResponseController(w).SetReadDeadline(deadline)
		ctx, cancel := context.WithDeadline(r.Context(), deadline)
		release, err := d.bodies.take(ctx, r.ContentLength)
		cancel()
		if err != nil {
			writeError(w, http.StatusServiceUnavailable, errBusy.Error())
			return
		}
		defer release()
		r.Body = http.MaxBytesReader(w, r.Body, r.ContentLength)
		next.ServeHTTP(w, r)
	})
}

// jsonRoute makes a handler of fn, which takes the request's JSON body:
// the body is read strictly (a 400 with the reason when it cannot be),
// and fn's answer written by reply.
func jsonRoute[Req any](fn func(d *Daemon, r *http.Request, req *Req) (any, error)) handler {
	return func(d *Daemon, w http.ResponseWriter, r *http.Request) {
		var req Req
		if err := readJSON(r, &req); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		v, err := fn(d, r, &req)
		reply(w, v, err)
	}
}

// plainRoute makes a handler of fn, which reads no body.
func plainRoute(fn func(d *Daemon, r *http.Request) (any, error)) handler {
	return func(d *Daemon, w http.ResponseWriter, r *http.Request) {
		v, err := fn(d, r)
		reply(w, v, err)
	}
}

// reply writes a route's answer: an error as {"error": ...} with its
// status (400 unless it is a statusError), a withStatus with its status,
// anything else as JSON with 200.
func reply(w http.ResponseWriter, v any, err error) {
	if err != nil {
		status := http.StatusBadRequest
		var se *statusError
		if errors.As(err, &se) {
			status = se.status
		}
		writeError(w, status, err.Error())
		return
	}
	ws, ok := v.(withStatus)
	if !ok {
		ws = withStatus{status: http.StatusOK, body: v}
	}
	writeJSON(w, ws.status, ws.body)
	if ws.after != nil {
		ws.after()
	}
}

// statusError is a route's error with the HTTP status it answers with.
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// errStatus is err, answered with status.
func errStatus(status int, err error) error { return &statusError{status: status, err: err} }

// withStatus is a route's answer with a status other than 200, or with
// work to do once the answer is written.
type withStatus struct {
	status int
	body   any
	after  func() // run after the answer is written, when not nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// readJSON reads a request body strictly: one JSON value, no member
// named twice (see package strictjson).
func readJSON(r *http.Request, v any) error {
	// guard made sure of the length: read it into a buffer of that size,
	// not one that grows by doubling.
	data := make([]byte, max(r.ContentLength, 0))
	if _, err := io.ReadFull(r.Body, data); err != nil {
		return fmt.Errorf("read the request body: %w", err)
	}
	if err := strictjson.Unmarshal(data, v); err != nil {
		return fmt.Errorf("bad request body: %w", err)
	}
	return nil
}

func (d *Daemon) handleDecide(r *http.Request, req *api.DecideRequest) (any, error) {
	resp, err := d.Decide(r.Context(), req)
	if t := tokenOf(r.Context()); t != nil && t.Container && resp != nil {
		resp = insideAnswer(t, resp)
	}
	return resp, err
}

func (d *Daemon) handleAnswer(_ *http.Request, req *api.AnswerRequest) (any, error) {
	if len(req.IDs) == 0 {
		return nil, errors.New("no approval ids")
	}
	if req.Decision == policy.Ask {
		return nil, errors.New("decision must be allow or deny")
	}
	if req.Scope != "" {
		if _, err := api.ParseScope(string(req.Scope)); err != nil {
			return nil, err
		}
	}
	ans := req.Answer
	ans.Via = cmp.Or(ans.Via, "api")
	res := api.AnswerResult{Answered: []string{}}
	for _, id := range req.IDs {
		if d.Answer(id, ans) {
			res.Answered = append(res.Answered, id)
		} else {
			if res.Missing == nil {
				res.Missing = map[string]string{}
			}
			res.Missing[id] = "not waiting (unknown, already answered or expired)"
		}
	}
	if len(res.Answered) == 0 {
		return withStatus{status: http.StatusNotFound, body: res}, nil
	}
	return res, nil
}

// heartbeat keeps an idle event stream alive and notices dead readers.
const heartbeat = 15 * time.Second

func (d *Daemon) handleEvents(w http.ResponseWriter, r *http.Request) {
	approver := r.URL.Query().Get("approver")
	if approver != "" && approver != "terminal" {
		writeError(w, http.StatusBadRequest, "approver must be \"terminal\"")
		return
	}
	ch, stop := d.Subscribe(approver)
	defer stop()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	rc := http.NewResponseController(w)
	// A reader that stops reading is dropped, not waited for.
	send := func(ev api.Event) error {
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if err := enc.Encode(ev); err != nil {
			return err
		}
		return rc.Flush()
	}
	// What is already waiting comes first, so a new approver sees it.
	pending := d.Pending()
	if send(api.Event{Type: "status", Time: time.Now(), Pending: len(pending)}) != nil {
		return
	}
	for i := range pending {
		if send(api.Event{Type: "approval.requested", Time: pending[i].Created, Approval: &pending[i], Pending: len(pending)}) != nil {
			return
		}
	}
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-ch:
			if !ok {
				return // dropped for falling behind
			}
			if send(ev) != nil {
				return
			}
		case <-t.C:
			if send(api.Event{Type: "heartbeat", Time: time.Now(), Pending: d.broker.count()}) != nil {
				return
			}
		}
	}
}

func (d *Daemon) handleTaint(r *http.Request, req *api.TaintRequest) (any, error) {
	if t := tokenOf(r.Context()); t != nil {
		req.Agent = tokenAgent(t)
	}
	d.Taint(req)
	return map[string]bool{"tainted": true}, nil
}

func (d *Daemon) handleRun(r *http.Request, req *api.TaintRequest) (any, error) {
	if t := tokenOf(r.Context()); t != nil {
		req.Agent = tokenAgent(t)
	}
	return withStatus{status: http.StatusOK, body: map[string]string{"run": d.StartRun(req)},
		after: func() { d.notePrompt(req) }, // after the answer: the scan never holds the prompt up
	}, nil
}

func (d *Daemon) handleRotated(r *http.Request, req *api.RotatedRequest) (any, error) {
	if strings.TrimSpace(req.Which) == "" {
		return nil, errors.New("which: a fingerprint or a secret's name")
	}
	cleared, err := d.Rotated(r.Context(), req.Which)
	if err != nil {
		return nil, errStatus(http.StatusInternalServerError, err)
	}
	if cleared == nil {
		cleared = []api.Leak{}
	}
	return &api.RotatedResult{Cleared: cleared}, nil
}

// revokeRequest names the saved grants to revoke.
type revokeRequest struct{ Agent, Tool string }

func (d *Daemon) handleRevoke(_ *http.Request, req *revokeRequest) (any, error) {
	if err := d.RevokeGrants(req.Agent, req.Tool); err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, api.ErrNotFound) {
			status = http.StatusNotFound
		}
		return nil, errStatus(status, err)
	}
	return map[string]bool{"revoked": true}, nil
}

func (d *Daemon) handleReload(*http.Request) (any, error) {
	if err := d.Reload(); err != nil {
		return nil, errStatus(http.StatusUnprocessableEntity, err)
	}
	return d.Status(), nil
}

// Listen opens the daemon's socket: its folder private to this user
// (0700, created so when missing, an error when it is open to others or
// belongs to someone else), the socket 0600. What is already at the path
// is removed only when it is a socket and a dial to it failed (a daemon
// that died); a daemon that answers is ErrAlreadyRunning, and anything
// else (a file, a folder) is an error naming the path.
func Listen(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	if err := osutil.MakeDir(dir, true); err != nil {
		return nil, fmt.Errorf("socket folder: %w", err)
	}
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s is not a socket (%s): agate will not replace it; choose another --socket", path, st.Mode().Type())
		}
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("%w (%s)", ErrAlreadyRunning, path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("socket mode: %w", err)
	}
	return newPeerListener(l), nil
}

// Serve answers the local API on l until ctx ends.
func (d *Daemon) Serve(ctx context.Context, l net.Listener) error {
	d.mu.Lock()
	d.listener = l
	d.mu.Unlock()
	go d.sweep(ctx)
	go d.pruneUndo(ctx)
	return d.serveHTTP(ctx, l, d.Handler(), func() {
		d.broker.closeAll()
		d.proxies.closeAll()
	})
}

// serveHTTP answers h on l until ctx ends (then stop, then a shutdown of
// at most 3 s). Each request's context holds its peer's process and uid,
// for the MCP proxies' registrations, the hooks that step aside for them
// and the tokens' socket.
func (d *Daemon) serveHTTP(ctx context.Context, l net.Listener, h http.Handler, stop func()) error {
	if pl, ok := l.(*peerListener); ok {
		pl.setLogger(d.logger)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          d.logger,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if lc, ok := c.(*limitedConn); ok {
				return context.WithValue(withPeer(ctx, lc.pid), uidKey{}, lc.uid)
			}
			return ctx
		},
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		if stop != nil {
			stop()
		}
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) || errors.Is(err, net.ErrClosed) {
			return nil
		}
		return err
	}
}

// sweep drops idle sessions now and then.
func (d *Daemon) sweep(ctx context.Context) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			d.sessions.sweep(now)
		}
	}
}

var _ io.Closer = (*peerListener)(nil)
