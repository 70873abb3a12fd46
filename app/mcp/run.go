package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

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
	// Cmd, when set, is the server's command ready to start in place of
	// Command, Dir and Env: the sandbox's launcher around it
	// (sandbox.Prepare). Command still names the server.
	Cmd *exec.Cmd

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

	// hide cuts the person's secrets (a remote server's header values)
	// out of the proxy's log lines; nil cuts nothing.
	hide func(string) string
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
	cmd := opts.Cmd
	if cmd == nil {
		cmd = exec.Command(opts.Command[0], opts.Command[1:]...)
		cmd.Dir, cmd.Env = opts.Dir, opts.Env
	}
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
