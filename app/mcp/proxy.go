package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// The kinds of client requests whose answers the proxy reads.
const (
	kindOther   = iota // passed on as it is
	kindInit           // initialize: the server's serverInfo is noted
	kindCall           // tools/call: cleaned, taints
	kindTask           // tasks/result: the result of a task a tools/call made, as kindCall
	kindList           // tools/list: pinned, descriptions cleaned
	kindContent        // resources/read, prompts/get, the lists of prompts and resources, completions: cleaned
)

// The states of a tools/call.
const (
	stateDeciding  int32 = iota
	stateForwarded       // written to the server
	stateDone            // denied, or cancelled before it was decided
)

// request is a client request the server has not answered yet.
type request struct {
	kind  int
	id    json.RawMessage // as the client wrote it
	tool  string          // kindCall, kindTask: the tool's name
	state atomic.Int32    // kindCall

	// mu orders a call's forwarding and its cancellation.
	mu     sync.Mutex
	cancel context.CancelFunc // ends the decision
}

// toolState is what the proxy knows of a listed tool.
type toolState struct {
	def      ToolDef
	change   *ToolChange
	unpinned bool // Pin failed: pin it again before a call
}

// maxDeciding bounds the calls decided at once; past it the client's
// messages wait.
const maxDeciding = 64

type proxy struct {
	opts     Options
	gate     Gate
	toClient *lineWriter
	toServer *lineWriter
	clientIn io.Reader
	serverIn io.Closer
	srvOut   io.Reader

	ctx       context.Context // ends with the proxy: the gate calls answers make
	cancel    context.CancelFunc
	decCtx    context.Context // ends when the client or the server has gone: decisions stop
	decCancel context.CancelFunc
	wg        sync.WaitGroup // decisions
	sem       chan struct{}
	seq       atomic.Int64

	clientDone   chan struct{} // stdin ended, or stdout failed
	clientOnce   sync.Once
	clientLoopWG chan struct{} // closed when the client loop has returned
	serverDone   chan struct{} // the server's stdout ended
	stopped      atomic.Bool
	decMu        sync.Mutex // orders a decision's start after stopped

	pmu     sync.Mutex
	pending map[string]*request // by idKey

	smu     sync.Mutex
	session Session
	tools   map[string]*toolState
	tasks   map[string]string // task id → the tool whose call made it
	roots   map[string]bool   // the ids (idKey) of the server's roots/list requests not answered yet
	base    string            // the first root the client last gave the server, as a path; "" when none

	logMu sync.Mutex
}

func newProxy(opts Options, serverIn io.WriteCloser, serverOut io.Reader) *proxy {
	p := &proxy{
		opts:         opts,
		gate:         opts.Gate,
		clientIn:     opts.Stdin,
		serverIn:     serverIn,
		srvOut:       serverOut,
		sem:          make(chan struct{}, maxDeciding),
		clientDone:   make(chan struct{}),
		clientLoopWG: make(chan struct{}),
		serverDone:   make(chan struct{}),
		pending:      map[string]*request{},
		tools:        map[string]*toolState{},
		tasks:        map[string]string{},
		roots:        map[string]bool{},
	}
	p.toClient = newLineWriter(opts.Stdout, func(err error) {
		p.logf("the client's stdout failed: %v", err)
		p.endClient()
	})
	p.toServer = newLineWriter(serverIn, nil)
	p.session = Session{ID: newID(), Server: opts.Name, Command: append([]string(nil), opts.Command...), PID: os.Getpid()}
	return p
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// begin registers the proxy with the gate and starts the two loops.
func (p *proxy) begin(ctx context.Context) {
	p.ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	p.decCtx, p.decCancel = context.WithCancel(p.ctx)
	gctx, cancel := context.WithTimeout(ctx, p.opts.GateTimeout)
	if err := p.gate.Start(gctx, p.sessionNow()); err != nil {
		p.logf("could not tell agate that this server is proxied (agents' hooks may ask for its calls too): %v", err)
	}
	cancel()
	go p.clientLoop()
	go p.serverLoop()
}

// endCalls stops the decisions in progress: their calls are neither
// forwarded nor answered.
func (p *proxy) endCalls() {
	p.decMu.Lock()
	p.stopped.Store(true)
	p.decMu.Unlock()
	p.decCancel()
}

// end stops everything: decisions, the client loop where it can be cut
// short, and tells the gate.
func (p *proxy) end() {
	p.endCalls()
	p.wg.Wait()
	p.cancel()
	if d, ok := p.clientIn.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(time.Now()) == nil {
		select {
		case <-p.clientLoopWG:
		case <-time.After(p.opts.StopGrace):
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.GateTimeout)
	defer cancel()
	p.gate.Stop(ctx, p.sessionNow())
}

func (p *proxy) endClient() { p.clientOnce.Do(func() { close(p.clientDone) }) }

func (p *proxy) logf(format string, args ...any) {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	line := fmt.Sprintf(format, args...)
	if p.opts.hide != nil {
		line = p.opts.hide(line)
	}
	fmt.Fprintf(p.opts.Stderr, "agate mcp %s: %s\n", p.opts.Name, line)
}

func (p *proxy) sessionNow() Session {
	p.smu.Lock()
	defer p.smu.Unlock()
	return p.session
}

// reply writes one message to the client.
func (p *proxy) reply(b []byte) { p.toClient.write(b) }

// forward writes one message to the server.
func (p *proxy) forward(b []byte) { p.toServer.write(b) }

func (p *proxy) clientLoop() {
	defer close(p.clientLoopWG)
	defer p.endClient()
	r := newLineReader(p.clientIn, p.opts.MaxLine)
	for {
		line, err := r.next()
		if p.stopped.Load() {
			return
		}
		var tooLong *TooLongError
		switch {
		case errors.As(err, &tooLong):
			p.logf("refused a message from the client: %v", err)
			p.reply(errorResponse(nil, codeInvalidRequest, "agate refused the message: "+err.Error()))
			continue
		case err != nil:
			if !errors.Is(err, io.EOF) {
				p.logf("reading the client: %v", err)
			}
			return
		}
		p.fromClient(line)
	}
}

func (p *proxy) serverLoop() {
	defer close(p.serverDone)
	r := newLineReader(p.srvOut, p.opts.MaxLine)
	for {
		line, err := r.next()
		var tooLong *TooLongError
		switch {
		case errors.As(err, &tooLong):
			p.logf("dropped a message from the server: %v", err)
			continue
		case err != nil:
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				p.logf("reading the server: %v", err)
			}
			return
		}
		p.fromServer(line)
	}
}

// addPending notes a request in flight; false when its id is one already
// in flight (the answers could not be told apart).
func (p *proxy) addPending(key string, r *request) bool {
	p.pmu.Lock()
	defer p.pmu.Unlock()
	if _, dup := p.pending[key]; dup {
		return false
	}
	p.pending[key] = r
	return true
}

func (p *proxy) removePending(key string, r *request) {
	p.pmu.Lock()
	defer p.pmu.Unlock()
	if p.pending[key] == r {
		delete(p.pending, key)
	}
}

func (p *proxy) lookupPending(key string) *request {
	p.pmu.Lock()
	defer p.pmu.Unlock()
	return p.pending[key]
}

// takeAnswered removes and returns the request an answer with key is
// for: nil when none is in flight, or when it is a call not yet
// forwarded (a server cannot answer what it was not sent).
func (p *proxy) takeAnswered(key string) *request {
	p.pmu.Lock()
	defer p.pmu.Unlock()
	r := p.pending[key]
	if r == nil || (r.kind == kindCall && r.state.Load() != stateForwarded) {
		return nil
	}
	delete(p.pending, key)
	return r
}
