package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/tokens"
	"github.com/agatehq/agate/policy"
)

// Scoped tokens (`agate tokens add`) let callers that are not the person
// (a CI runner's user, a home-made agent running as a service user) ask
// the daemon, on a second socket, with a bearer token. Such a caller
// reaches only what an agent needs (decide, outcome, runs, taint), never
// approvals, grants, status or reload; its calls are decided as agent
// "token:NAME" (so no grant of the person's agents applies), in its
// project only, at least as strictly as its mode, never handed to an
// agent's own prompt: with nobody attached, what asks is denied. Its
// name is in every audit line it causes.

// tokenRoutes are the routes the tokens' socket serves.
var tokenRoutes = map[string]bool{
	"POST " + api.Prefix + "/decide":  true,
	"POST " + api.Prefix + "/outcome": true,
	"POST " + api.Prefix + "/runs":    true,
	"POST " + api.Prefix + "/taint":   true,
}

// tokenKey holds the token a request came with, in its context.
type tokenKey struct{}

// uidKey holds the peer's uid, in a request's context.
type uidKey struct{}

// tokenOf is the token a request came with, nil for the person's own
// socket.
func tokenOf(ctx context.Context) *tokens.Token {
	t, _ := ctx.Value(tokenKey{}).(*tokens.Token)
	return t
}

// tokenSet caches tokens.json, read again when it changes.
type tokenSet struct {
	path string
	mu   sync.Mutex
	mod  time.Time
	size int64
	list []tokens.Token
	err  error
}

// load returns the tokens in force: the file as it is now.
func (s *tokenSet) load() ([]tokens.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fi, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.list, s.err, s.mod, s.size = nil, nil, time.Time{}, 0
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.ModTime().Equal(s.mod) && fi.Size() == s.size && s.list != nil {
		return s.list, s.err
	}
	list, err := tokens.Load(s.path)
	s.list, s.err, s.mod, s.size = list, err, fi.ModTime(), fi.Size()
	if list == nil {
		s.list = []tokens.Token{}
	}
	return s.list, err
}

// ListenTokens opens the tokens' socket: its folder the person's, mode
// 0711 (others may reach the socket, not list or change the folder), the
// socket 0666; who may connect is checked per connection (a uid a token
// is for), and what they may do per request (the token).
func (d *Daemon) ListenTokens(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("tokens' socket folder: %w", err)
	}
	if err := os.Mkdir(dir, 0o711); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("tokens' socket folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() || owner(fi) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("tokens' socket folder %s: want a folder of yours that others cannot write (it is %s, uid %d)", dir, fi.Mode(), owner(fi))
	}
	os.Chmod(dir, 0o711)
	l, err := listenShared(path)
	if err != nil {
		return nil, err
	}
	pl := newPeerListener(l)
	pl.allow = func(uid int) bool {
		list, err := d.tokens.load()
		return err == nil && tokens.UIDs(list)[uid]
	}
	return pl, nil
}

// ServeTokens answers the tokens' routes on l until ctx ends.
func (d *Daemon) ServeTokens(ctx context.Context, l net.Listener) error {
	return d.serveHTTP(ctx, l, d.TokenHandler(""), nil)
}

// TokenHandler is the tokens' socket's API (container "") or a dev
// container's (`agate container add`): the routes an agent needs, each
// request with a token for that socket (of the user that sent it, on
// the tokens' socket; the container's own, on a container's).
func (d *Daemon) TokenHandler(container string) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes {
		if !tokenRoutes[rt.pattern] {
			continue
		}
		h := rt.handler
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { h(d, w, r) })
	}
	inner := d.guard(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		uid, known := r.Context().Value(uidKey{}).(int)
		if !ok || !known {
			writeError(w, http.StatusUnauthorized, "a scoped token is needed (Authorization: Bearer agt_...)")
			return
		}
		list, err := d.tokens.load()
		if err != nil {
			d.logger.Printf("tokens: %v (every token is refused until it is fixed)", err)
			writeError(w, http.StatusServiceUnavailable, "the tokens cannot be read")
			return
		}
		tok, err := tokens.Lookup(list, strings.TrimSpace(secret), uid, container, time.Now())
		if err != nil {
			writeError(w, http.StatusUnauthorized, err.Error())
			return
		}
		if !tokenRoutes[r.Method+" "+r.URL.Path] {
			writeError(w, http.StatusForbidden, "a scoped token reaches only decide, outcome, runs and taint")
			return
		}
		if r.ContentLength > tokenMaxBody {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a scoped token's request is at most %d MiB", tokenMaxBody>>20))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, tokenMaxBody)
		release, why := d.tokenLimits.take(tok.Name, time.Now())
		if why != "" {
			writeError(w, http.StatusTooManyRequests, why)
			return
		}
		defer release()
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenKey{}, tok)))
	})
}

// tokenAgent is the agent a token's calls are decided and logged as:
// "token:NAME", or "container:NAME" for a dev container's.
func tokenAgent(t *tokens.Token) string {
	if t.Container {
		return containerPrefix + t.Name
	}
	return tokenPrefix + t.Name
}

// The prefixes of the agents tokens' calls are decided as.
const (
	tokenPrefix     = "token:"
	containerPrefix = "container:"
)

// asToken makes r a call of token t: its agent, no agent's prompt, and
// for a container, the paths it names as the host sees them. It returns
// false when the call's folder is not the container's project (the call
// is then denied).
func asToken(r *api.DecideRequest, t *tokens.Token) bool {
	r.Agent = tokenAgent(t)
	r.AgentPrompt, r.Reasks, r.AgentSandbox = false, false, ""
	inside := true
	if t.Container {
		r.Cwd, inside = t.HostPath(r.Cwd)
		r.Args = hostArgs(t, r.Args)
	}
	if t.Project != "" {
		r.Workspace = t.Project
	}
	return inside
}

// tokenPolicy is pol for a call of token t: its mode a floor, as a
// project overlay's is.
func tokenPolicy(pol *policy.Policy, t *tokens.Token) *policy.Policy {
	if t.Mode == "" {
		return pol
	}
	o, err := policy.ParseOverlay("token "+t.Name, []byte(fmt.Sprintf("[auto]\nmode = %q\n", t.Mode)))
	if err != nil {
		return pol.FailedOverlay("token "+t.Name, err)
	}
	return pol.WithOverlay(o)
}

// owner is the uid that owns fi.
func owner(fi fs.FileInfo) int { return fileOwner(fi) }

// What one token may ask of the daemon: a caller that is not the person
// (a CI runner, a container's agent) must not crowd out the person's own
// agents, whose decisions share the audit log and the body budget.
const (
	// tokenRate and tokenBurst bound a token's requests: tokenRate a
	// second, sustained, after a burst of tokenBurst.
	tokenRate  = 20
	tokenBurst = 100
	// tokenInFlight bounds a token's requests being answered at once (a
	// decision that waits for a person holds one).
	tokenInFlight = 32
	// tokenMaxBody bounds one request's body (the person's own agents
	// may send 40 MiB: a whole file to write), so that a token's callers
	// together hold at most a small part of the bodies' budget.
	tokenMaxBody = 1 << 20
	// tokenMaxPending bounds a token's calls waiting for the person at
	// once: past it, its next ask is denied, and the person's popup is
	// not flooded.
	tokenMaxPending = 4
)

// tokenLimiter is each token's bucket of requests and its count in flight.
type tokenLimiter struct {
	mu sync.Mutex
	by map[string]*tokenBucket
}

type tokenBucket struct {
	tokens   float64
	last     time.Time
	inFlight int
}

// take admits one request of token name at now, or says why not; release
// ends it.
func (l *tokenLimiter) take(name string, now time.Time) (release func(), why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]*tokenBucket{}
	}
	b := l.by[name]
	if b == nil {
		b = &tokenBucket{tokens: tokenBurst, last: now}
		l.by[name] = b
	}
	b.tokens = min(tokenBurst, b.tokens+now.Sub(b.last).Seconds()*tokenRate)
	b.last = now
	switch {
	case b.inFlight >= tokenInFlight:
		return nil, fmt.Sprintf("token %q has %d requests being answered already: wait for one", name, b.inFlight)
	case b.tokens < 1:
		return nil, fmt.Sprintf("token %q sends more than %d requests a second: slow down", name, tokenRate)
	}
	b.tokens--
	b.inFlight++
	return sync.OnceFunc(func() {
		l.mu.Lock()
		b.inFlight--
		l.mu.Unlock()
	}), ""
}

// listenShared listens on a unix socket at path that other users may
// connect to (0666: who may is checked per connection and per request),
// replacing a stale socket there, never another file or a live daemon's.
func listenShared(path string) (net.Listener, error) {
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s is not a socket: agate will not replace it", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("%w (%s)", ErrAlreadyRunning, path)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}
