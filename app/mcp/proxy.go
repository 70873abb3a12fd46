package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/agatehq/agate/app/strictjson"
	"github.com/agatehq/agate/policy"
)

// Options configure one proxy.
type Options struct {
	// Name is the server's name in agate's policy ("mcp__NAME__TOOL");
	// it must be a ValidName. "" means DefaultName(Command).
	Name string
	// Command is the server's program and its arguments; Dir its
	// working folder ("" is the proxy's) and Env its environment (nil
	// is the proxy's).
	Command []string
	Dir     string
	Env     []string

	// Stdin and Stdout are the client's side; Stderr gets the server's
	// stderr and the proxy's own reports (nil discards them).
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	// Gate decides the calls; it is required.
	Gate Gate
	// Secrets are the values cut out of what the server sends back
	// (see Clean and policy.KnownSecrets); nil cuts none.
	Secrets policy.KnownSecrets
	// PII replaces personal data in results with placeholders (see
	// RedactPII): the `pii_redact = true` of [mcp.servers.NAME].
	PII bool

	// DecideTimeout bounds one Decide (default 5 minutes; the daemon's
	// own approval timeout is meant to come first); GateTimeout bounds
	// Start, Stop, Pin and Taint (default 10 s). StopGrace is how long
	// the server is given to exit once its stdin is closed, and again
	// after SIGTERM, before it is killed (default 5 s).
	DecideTimeout time.Duration
	GateTimeout   time.Duration
	StopGrace     time.Duration
	// MaxLine bounds one message, from either side (default
	// DefaultMaxLine). A longer one is dropped: from the client it is
	// answered with an error, from the server it is reported on stderr.
	MaxLine int
}

func (o *Options) setDefaults() error {
	if len(o.Command) == 0 || o.Command[0] == "" {
		return errors.New("mcp: no server command")
	}
	if o.Gate == nil {
		return errors.New("mcp: no gate to decide calls")
	}
	if o.Stdin == nil || o.Stdout == nil {
		return errors.New("mcp: no client stdin or stdout")
	}
	if o.Name == "" {
		o.Name = DefaultName(o.Command)
	}
	if err := ValidName(o.Name); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.DecideTimeout <= 0 {
		o.DecideTimeout = 5 * time.Minute
	}
	if o.GateTimeout <= 0 {
		o.GateTimeout = 10 * time.Second
	}
	if o.StopGrace <= 0 {
		o.StopGrace = 5 * time.Second
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	return nil
}

// Run starts the server and proxies between it and the client until the
// server exits, and returns its exit status (128+N for a signal N). When
// the client closes stdin, the server's stdin is closed, and the server
// is given StopGrace to exit, then SIGTERM, then StopGrace again, then
// SIGKILL (to its whole process group). When ctx ends, the server is
// stopped the same way, from SIGTERM, and the error is ctx's. What the
// server wrote before it exited is passed on first. When the server
// cannot be started, the status is 127 and the error says why.
//
// Run returns when all its goroutines have, but one: a Read of Stdin in
// progress, when Stdin has no SetReadDeadline that can cut it short (an
// *os.File pipe has one), ends when that Read returns, and drops what it
// read.
func Run(ctx context.Context, opts Options) (exitCode int, err error) {
	if err := opts.setDefaults(); err != nil {
		return 2, err
	}
	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	cmd.Stderr = opts.Stderr
	cmd.WaitDelay = opts.StopGrace // a stderr copied by exec, held open by a child
	setProcAttr(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return 127, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return 127, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return 127, fmt.Errorf("mcp: start the server: %w", err)
	}

	p := newProxy(opts, inW, outR)
	p.session.ServerPID = cmd.Process.Pid
	waited := make(chan struct{})
	go func() { cmd.Wait(); close(waited) }()

	p.begin(ctx)
	grace := opts.StopGrace
	stop := func(fromTerm bool) {
		if !fromTerm {
			select {
			case <-waited:
				return
			case <-time.After(grace):
			}
		}
		terminate(cmd)
		select {
		case <-waited:
			return
		case <-time.After(grace):
		}
		kill(cmd)
		<-waited
	}
	select {
	case <-waited:
	case <-p.serverDone: // it closed its stdout: it can say no more
		p.endCalls()
		inW.Close()
		stop(false)
	case <-p.clientDone:
		p.endCalls()
		inW.Close()
		stop(false)
	case <-ctx.Done():
		p.endCalls()
		inW.Close()
		stop(true)
		err = ctx.Err()
	}
	killGroup(cmd) // what it started and left behind
	// Pass on what it wrote before it exited.
	select {
	case <-p.serverDone:
	case <-time.After(grace):
		outR.Close()
		<-p.serverDone
	}
	p.end()
	inW.Close()
	outR.Close()
	return exitStatus(cmd.ProcessState), err
}

// The kinds of client requests whose answers the proxy reads.
const (
	kindOther   = iota // passed on as it is
	kindInit           // initialize: the server's serverInfo is noted
	kindCall           // tools/call: cleaned, taints
	kindTask           // tasks/result: the result of a task a tools/call made, as kindCall
	kindList           // tools/list: pinned, descriptions cleaned
	kindContent        // resources/read, prompts/get: cleaned
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

	pmu     sync.Mutex
	pending map[string]*request // by idKey

	smu     sync.Mutex
	session Session
	tools   map[string]*toolState
	tasks   map[string]string // task id → the tool whose call made it

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
	p.stopped.Store(true)
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
	fmt.Fprintf(p.opts.Stderr, "agate mcp %s: %s\n", p.opts.Name, fmt.Sprintf(format, args...))
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

// fromClient handles one line from the client.
func (p *proxy) fromClient(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if err := strictjson.Check(line); err != nil {
		var dup *strictjson.DuplicateKeyError
		if errors.As(err, &dup) {
			p.reply(errorResponse(dupID(line, dup), codeInvalidRequest, "agate refused a message that names a member twice: "+err.Error()))
			return
		}
		p.reply(errorResponse(nil, codeParseError, "parse error: "+err.Error()))
		return
	}
	if line[0] == '[' {
		p.clientBatch(line)
		return
	}
	m, err := parseMessage(line)
	if err != nil {
		p.reply(errorResponse(nil, codeInvalidRequest, "invalid request: "+err.Error()))
		return
	}
	switch {
	case m.method != "" && m.has("id"):
		p.clientRequest(m, line)
	case m.method == "tools/call":
		p.reply(errorResponse(nil, codeInvalidRequest, "agate refused a tools/call without an id"))
	case m.method == "notifications/cancelled":
		p.clientCancel(m, line)
	case m.method != "":
		p.forward(line)
	case m.has("id") && m.has("result") != m.has("error"):
		p.forward(line) // an answer to a request of the server's
	default:
		p.reply(errorResponse(validID(m.id), codeInvalidRequest, "invalid request: neither a request, a notification nor a response"))
	}
}

// validID is id when it is a string or a number, else nil.
func validID(id json.RawMessage) json.RawMessage {
	if _, ok := idKey(id); ok {
		return id
	}
	return nil
}

// dupID is the id to answer a message that names a member twice with:
// null when the id itself is doubled.
func dupID(line []byte, dup *strictjson.DuplicateKeyError) json.RawMessage {
	if strings.EqualFold(dup.Key, "id") {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return nil
	}
	return validID(top["id"])
}

// clientBatch answers a batch, which MCP 2025-06-18 removed: each request
// in it gets an error, and nothing of it is forwarded.
func (p *proxy) clientBatch(line []byte) {
	var elems []json.RawMessage
	json.Unmarshal(line, &elems)
	var answers []json.RawMessage
	for _, e := range elems {
		m, err := parseMessage(e)
		if err != nil || m.method == "" || validID(m.id) == nil {
			continue
		}
		answers = append(answers, errorResponse(m.id, codeInvalidRequest,
			"agate does not take JSON-RPC batches (MCP 2025-06-18 removed them): send each message on a line of its own"))
	}
	if len(answers) == 0 {
		p.reply(errorResponse(nil, codeInvalidRequest, "agate does not take JSON-RPC batches (MCP 2025-06-18 removed them)"))
		return
	}
	b, _ := marshal(answers)
	p.reply(b)
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

const errIDInUse = "agate refused a request whose id is that of a request still unanswered"

func (p *proxy) clientRequest(m *message, line []byte) {
	key, ok := idKey(m.id)
	if !ok {
		p.reply(errorResponse(nil, codeInvalidRequest, "invalid request: an id is a string or a number"))
		return
	}
	if m.method == "tools/call" {
		p.clientCall(m, key)
		return
	}
	r := &request{kind: kindOther, id: m.id}
	switch m.method {
	case "initialize":
		r.kind = kindInit
		p.noteClient(m.members["params"])
	case "tools/list":
		r.kind = kindList
	case "tasks/result":
		r.kind = kindTask
		var params struct {
			TaskID string `json:"taskId"`
		}
		json.Unmarshal(m.members["params"], &params)
		p.smu.Lock()
		r.tool = p.tasks[params.TaskID]
		p.smu.Unlock()
	case "resources/read", "prompts/get":
		r.kind = kindContent
	}
	if !p.addPending(key, r) {
		p.reply(errorResponse(m.id, codeInvalidRequest, errIDInUse))
		return
	}
	p.forward(line)
}

// noteClient keeps what initialize says of the client.
func (p *proxy) noteClient(params json.RawMessage) {
	var in struct {
		ProtocolVersion string `json:"protocolVersion"`
		ClientInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"clientInfo"`
	}
	json.Unmarshal(params, &in)
	p.smu.Lock()
	defer p.smu.Unlock()
	p.session.Client, p.session.ClientVersion, p.session.ProtocolVersion = in.ClientInfo.Name, in.ClientInfo.Version, in.ProtocolVersion
}

// clientCancel handles notifications/cancelled: a call still being
// decided is dropped there (the server never saw it); any other is
// forwarded.
func (p *proxy) clientCancel(m *message, line []byte) {
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	json.Unmarshal(m.members["params"], &params)
	if key, ok := idKey(params.RequestID); ok {
		if r := p.lookupPending(key); r != nil && r.kind == kindCall {
			r.mu.Lock()
			if r.state.Load() == stateDeciding {
				r.state.Store(stateDone)
				r.cancel()
				r.mu.Unlock()
				p.removePending(key, r)
				return
			}
			r.mu.Unlock()
		}
	}
	p.forward(line)
}

// callMessage is a tools/call as the proxy forwards it: built from the
// decoded request, never the client's bytes.
type callMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  map[string]any  `json:"params"`
}

func (p *proxy) clientCall(m *message, key string) {
	invalid := func(msg string) { p.reply(errorResponse(m.id, codeInvalidParams, msg)) }
	raw, ok := m.members["params"]
	if !ok {
		invalid("tools/call needs params")
		return
	}
	pv, err := decodeNumber(raw)
	params, isObj := pv.(map[string]any)
	if err != nil || !isObj {
		invalid("tools/call's params is an object")
		return
	}
	name, _ := params["name"].(string)
	if name == "" {
		invalid("tools/call needs params.name, a string")
		return
	}
	args := map[string]any{}
	if a, has := params["arguments"]; has {
		if args, ok = a.(map[string]any); !ok {
			invalid("tools/call's params.arguments is an object")
			return
		}
	}
	meta, _ := params["_meta"].(map[string]any)
	ctx, cancel := context.WithTimeout(p.decCtx, p.opts.DecideTimeout)
	r := &request{kind: kindCall, id: m.id, tool: name, cancel: cancel}
	if !p.addPending(key, r) {
		cancel()
		p.reply(errorResponse(m.id, codeInvalidRequest, errIDInUse))
		return
	}
	select {
	case p.sem <- struct{}{}:
	case <-p.decCtx.Done():
		cancel()
		return
	}
	call := Call{Tool: name, PolicyTool: PolicyToolName(p.opts.Name, name), Arguments: args, ID: string(m.id), Meta: meta}
	msg := callMessage{JSONRPC: "2.0", ID: m.id, Method: "tools/call", Params: params}
	p.wg.Add(1)
	go p.decide(ctx, key, r, call, msg)
}

// decide decides one call, then forwards it or answers the denial.
func (p *proxy) decide(ctx context.Context, key string, r *request, c Call, msg callMessage) {
	defer p.wg.Done()
	defer func() { <-p.sem }()
	defer r.cancel()
	// What is forwarded is the value decided on, encoded again; it is
	// encoded first, so nothing the gate does to it changes what goes.
	fwd, err := marshal(msg)
	var v Verdict
	if err != nil {
		err = fmt.Errorf("the call could not be encoded again: %w", err)
	} else {
		v, err = p.judge(ctx, &c)
	}
	r.mu.Lock()
	if r.state.Load() != stateDeciding {
		r.mu.Unlock()
		return // cancelled by the client
	}
	if err == nil && v.Allow {
		r.state.Store(stateForwarded)
		p.forward(fwd)
		r.mu.Unlock()
		return
	}
	r.state.Store(stateDone)
	r.mu.Unlock()
	p.removePending(key, r)
	if p.decCtx.Err() != nil {
		return // the client or the server has gone: nobody to answer
	}
	reason := v.Reason
	if err != nil {
		reason = "agate could not decide it, so it is denied: " + err.Error()
	}
	b, err := resultResponse(r.id, denialResult(reason))
	if err == nil {
		p.reply(b)
	}
}

// judge fills in what the proxy knows of the call's tool and asks the
// gate.
func (p *proxy) judge(ctx context.Context, c *Call) (v Verdict, err error) {
	if bad := badToolName(c.Tool); bad != "" {
		return Verdict{Reason: "the tool's name " + bad}, nil
	}
	c.Seq = p.seq.Add(1)
	def, change, unpinned := p.toolNow(c.Tool)
	if unpinned {
		gctx, cancel := context.WithTimeout(ctx, p.opts.GateTimeout)
		changes, err := p.gate.Pin(gctx, p.sessionNow(), []ToolDef{*def})
		cancel()
		if err != nil {
			return Verdict{}, fmt.Errorf("its tool's definition could not be checked against its pin: %w", err)
		}
		change = p.notePins([]ToolDef{*def}, changes)[def.Name]
	}
	c.Session, c.Def, c.Changed = p.sessionNow(), def, change
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("the gate failed: %v", x)
		}
	}()
	return p.gate.Decide(ctx, *c)
}

// badToolName says what is wrong with a tool's name: it must be UTF-8,
// with no control or invisible character, at most 256 bytes.
func badToolName(name string) string {
	if len(name) > 256 {
		return "is longer than 256 bytes"
	}
	if !utf8.ValidString(name) {
		return "is not UTF-8"
	}
	for _, r := range name {
		if r < 0x20 || (0x7f <= r && r < 0xa0) || Invisible(r) {
			return fmt.Sprintf("holds the control or invisible character %U", r)
		}
	}
	return ""
}

// toolNow returns what is known of a tool: its definition as last
// listed (nil when it never was), how that differs from its pin, and
// whether it must be pinned again first.
func (p *proxy) toolNow(name string) (*ToolDef, *ToolChange, bool) {
	p.smu.Lock()
	defer p.smu.Unlock()
	st := p.tools[name]
	if st == nil {
		return nil, nil, false
	}
	def := st.def
	return &def, st.change, st.unpinned
}

// notePins records a listing's definitions and what Pin said of them
// (changes nil and pinned false when Pin failed), and returns the
// changes by tool.
func (p *proxy) notePins(defs []ToolDef, changes []ToolChange) map[string]*ToolChange {
	byTool := map[string]*ToolChange{}
	for i := range changes {
		c := changes[i]
		byTool[c.Tool] = &c
	}
	p.smu.Lock()
	defer p.smu.Unlock()
	for _, d := range defs {
		p.tools[d.Name] = &toolState{def: d, change: byTool[d.Name]}
	}
	return byTool
}

func (p *proxy) noteUnpinned(defs []ToolDef) {
	p.smu.Lock()
	defer p.smu.Unlock()
	for _, d := range defs {
		st := &toolState{def: d, unpinned: true}
		if old := p.tools[d.Name]; old != nil && old.def.Hash == d.Hash {
			st.change = old.change
		}
		p.tools[d.Name] = st
	}
}

// fromServer handles one line from the server.
func (p *proxy) fromServer(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if err := strictjson.Check(line); err != nil {
		p.logf("dropped a message from the server: %v", err)
		return
	}
	if line[0] != '[' {
		p.serverMessage(line)
		return
	}
	var elems []json.RawMessage
	json.Unmarshal(line, &elems)
	for _, e := range elems {
		p.serverMessage(e)
	}
}

func (p *proxy) serverMessage(raw []byte) {
	m, err := parseMessage(raw)
	if err != nil {
		p.logf("dropped a message from the server: %v", err)
		return
	}
	hasResult, hasError := m.has("result"), m.has("error")
	if m.method != "" {
		if hasResult || hasError {
			p.logf("dropped a message from the server that is both a request and a response")
			return
		}
		p.reply(raw) // a request or a notification of the server's
		return
	}
	key, ok := idKey(m.id)
	if !ok || hasResult == hasError {
		p.logf("dropped a message from the server that is not a response")
		return
	}
	r := p.takeAnswered(key)
	if r == nil {
		p.logf("dropped a response from the server to no request in flight (id %s)", m.id)
		return
	}
	switch r.kind {
	case kindInit:
		p.smu.Lock()
		if res, ok := m.members["result"]; ok {
			var in struct {
				ServerInfo json.RawMessage `json:"serverInfo"`
			}
			json.Unmarshal(res, &in)
			p.session.ServerInfo = in.ServerInfo
		}
		p.smu.Unlock()
		p.reply(raw)
	case kindCall, kindTask:
		p.answerCall(r, m)
	case kindList:
		p.answerList(r, m)
	case kindContent:
		p.answerContent(r, m)
	default:
		p.reply(raw)
	}
}

func (p *proxy) cleaner() *textCleaner {
	c := &textCleaner{secrets: p.opts.Secrets}
	if p.opts.PII {
		c.pii = newPIIRedactor()
	}
	return c
}

// answer writes the answer to r: result, or else errObj, both already
// cleaned.
func (p *proxy) answer(r *request, result, errObj any) {
	var b []byte
	var err error
	if errObj != nil {
		b, err = marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   any             `json:"error"`
		}{"2.0", r.id, errObj})
	} else {
		b, err = resultResponse(r.id, result)
	}
	if err != nil {
		p.logf("could not encode an answer again: %v", err)
		b = errorResponse(r.id, -32603, "agate could not pass on the server's answer")
	}
	p.reply(b)
}

// cleanedParts decodes m's result or error and cleans the error's
// strings; the result is left to the caller.
func cleanedParts(m *message, c *textCleaner) (result, errObj any, err error) {
	if raw, ok := m.members["error"]; ok {
		if errObj, err = decodeNumber(raw); err != nil {
			return nil, nil, err
		}
		return nil, c.cleanAll(errObj), nil
	}
	result, err = decodeNumber(m.members["result"])
	return result, nil, err
}

// answerCall passes on the answer to a tools/call (or to the tasks/result
// of one): its content and structuredContent cleaned, the run tainted.
func (p *proxy) answerCall(r *request, m *message) {
	c := p.cleaner()
	result, errObj, err := cleanedParts(m, c)
	if err != nil {
		p.answer(r, denialResult("the server's answer could not be read"), nil)
		return
	}
	if res, ok := result.(map[string]any); ok {
		if task, ok := res["task"].(map[string]any); ok && r.kind == kindCall && res["content"] == nil {
			// A task was made: its result comes by tasks/result.
			if id, ok := task["taskId"].(string); ok {
				p.smu.Lock()
				p.tasks[id] = r.tool
				p.smu.Unlock()
			}
			p.answer(r, c.cleanAll(res), nil)
			return
		}
		for k, v := range res {
			switch k {
			case "content":
				res[k] = c.cleanContent(v)
			case "structuredContent":
				res[k] = c.cleanAll(v)
			case "_meta", "isError":
			default:
				res[k] = c.cleanContent(v)
			}
		}
	} else if result != nil {
		result = c.cleanAll(result)
	}
	gctx, cancel := context.WithTimeout(p.ctx, p.opts.GateTimeout)
	err = p.gate.Taint(gctx, p.sessionNow(), r.tool)
	cancel()
	if err != nil {
		p.logf("could not taint the run after %s: %v", r.tool, err)
		p.answer(r, denialResult("agate could not record that outside content entered this run ("+err.Error()+"); the tool ran, but its answer is withheld"), nil)
		return
	}
	p.answer(r, result, errObj)
}

// answerList pins the tools of a tools/list page and passes it on with
// their descriptions and titles cleaned.
func (p *proxy) answerList(r *request, m *message) {
	c := p.cleaner()
	result, errObj, err := cleanedParts(m, c)
	if err != nil {
		p.answer(r, nil, map[string]any{"code": -32603, "message": "agate could not read the server's tool list"})
		return
	}
	if errObj == nil {
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(m.members["result"], &page)
		defs := make([]ToolDef, 0, len(page.Tools))
		for _, t := range page.Tools {
			d, err := ParseToolDef(t)
			if err != nil {
				p.logf("tools/list: %v", err)
				continue
			}
			defs = append(defs, d)
		}
		if len(defs) > 0 {
			gctx, cancel := context.WithTimeout(p.ctx, p.opts.GateTimeout)
			changes, err := p.gate.Pin(gctx, p.sessionNow(), defs)
			cancel()
			if err != nil {
				p.logf("could not pin the tools (each is pinned again before its first call): %v", err)
				p.noteUnpinned(defs)
			} else {
				p.notePins(defs, changes)
			}
		}
		if res, ok := result.(map[string]any); ok {
			res["tools"] = c.cleanDescriptions(res["tools"])
		}
	}
	p.answer(r, result, errObj)
}

// answerContent passes on a resource or a prompt, cleaned.
func (p *proxy) answerContent(r *request, m *message) {
	c := p.cleaner()
	result, errObj, err := cleanedParts(m, c)
	if err != nil {
		p.answer(r, nil, map[string]any{"code": -32603, "message": "agate could not read the server's answer"})
		return
	}
	if result != nil {
		result = c.cleanContent(result)
	}
	p.answer(r, result, errObj)
}
