package daemon

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/agatehq/agate/app/osutil"
)

// What one client may hold of the daemon. A process of the person's own
// can still open connections and send bytes; these bounds keep it from
// taking the daemon's file descriptors or memory, so that a hook call
// still gets its answer while it tries. The README states them.
const (
	// headerTimeout bounds the time from a connection's start to its
	// request's last header.
	headerTimeout = 5 * time.Second
	// bodyTimeout bounds the time to read a request's whole body, and to
	// wait for its share of bodyBudget.
	bodyTimeout = 10 * time.Second
	// idleTimeout closes a kept-alive connection with no new request.
	idleTimeout = 30 * time.Second
	// streamWriteTimeout bounds each write of the event stream: a reader
	// that stops reading is dropped.
	streamWriteTimeout = 10 * time.Second

	// maxConnsPerProcess and maxConns bound the connections open at once
	// from one process (by the peer's pid) and in all. A decision that
	// waits for a person holds one, so both are above [approvals]
	// max_pending's default; maxConns is also kept below the daemon's
	// file-descriptor limit (see connLimit).
	maxConnsPerProcess = 128
	maxConns           = 1024

	// maxBody bounds one request body: a hook may forward up to 16 MiB of
	// an agent's input (a whole file), and JSON escaping can grow it.
	maxBody = 40 << 20
	// bodyBudget bounds the bytes of request bodies held at once, from
	// their reading to their answer. Bodies over bigBody may take at most
	// bigBodyBudget of it, so small calls (every hook's) always find room.
	bodyBudget    = 64 << 20
	bigBodyBudget = 48 << 20
	bigBody       = 1 << 20
)

// errBusy means a request waited for its share of the body budget in
// vain.
var errBusy = errors.New("too many large requests are being handled; try again")

// budget is a counted resource taken in amounts and given back, waiters
// served in order.
type budget struct {
	mu      sync.Mutex // guards used and waiters
	size    int64
	used    int64
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newBudget(size int64) *budget { return &budget{size: size} }

// acquire takes n, waiting until it is free or ctx ends.
func (b *budget) acquire(ctx context.Context, n int64) error {
	if n > b.size {
		return fmt.Errorf("%d bytes is more than the %d that may be held at once", n, b.size)
	}
	b.mu.Lock()
	if len(b.waiters) == 0 && b.used+n <= b.size {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		defer b.mu.Unlock()
		select {
		case <-w.ready:
			// Granted while giving up: hand it back.
			b.used -= n
			b.wake()
		default:
			for i, x := range b.waiters {
				if x == w {
					b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
					break
				}
			}
			b.wake()
		}
		return ctx.Err()
	}
}

// release gives n back.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.wake()
	b.mu.Unlock()
}

// wake grants waiters in order while they fit. b.mu is held.
func (b *budget) wake() {
	for len(b.waiters) > 0 && b.used+b.waiters[0].n <= b.size {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.used += w.n
		close(w.ready)
	}
}

// bodies holds what request bodies may take, and hands memory back to the
// system once a flood of large ones is over.
type bodies struct {
	all, big *budget

	mu       sync.Mutex // guards bigLive and timer
	bigLive  int
	timer    *time.Timer
	freeWait time.Duration
}

func newBodies() *bodies {
	return &bodies{all: newBudget(bodyBudget), big: newBudget(bigBodyBudget), freeWait: time.Second}
}

// take reserves n bytes for a body and returns the function that gives
// them back once the request is answered.
func (bs *bodies) take(ctx context.Context, n int64) (func(), error) {
	if n <= bigBody {
		if err := bs.all.acquire(ctx, n); err != nil {
			return nil, err
		}
		return func() { bs.all.release(n) }, nil
	}
	if err := bs.big.acquire(ctx, n); err != nil {
		return nil, err
	}
	if err := bs.all.acquire(ctx, n); err != nil {
		bs.big.release(n)
		return nil, err
	}
	bs.mu.Lock()
	bs.bigLive++
	if bs.timer != nil {
		bs.timer.Stop()
	}
	bs.mu.Unlock()
	return func() {
		bs.all.release(n)
		bs.big.release(n)
		bs.mu.Lock()
		defer bs.mu.Unlock()
		bs.bigLive--
		if bs.bigLive == 0 {
			// The Go runtime hands freed memory back slowly; after large
			// bodies, do it now, once the burst is over.
			if bs.timer == nil {
				bs.timer = time.AfterFunc(bs.freeWait, bs.free)
			} else {
				bs.timer.Reset(bs.freeWait)
			}
		}
	}, nil
}

func (bs *bodies) free() {
	bs.mu.Lock()
	live := bs.bigLive
	bs.mu.Unlock()
	if live == 0 {
		debug.FreeOSMemory()
	}
}

// peerListener accepts only connections from its own user: the peer's uid
// is read from the socket (SO_PEERCRED, getpeereid) and any other user's
// connection is closed before a byte is read. It also bounds the
// connections open at once, per peer process and in all; a refused
// connection is logged, at most one line per refuseLogEvery.
type peerListener struct {
	net.Listener
	uid int
	// allow, when set, says which users may connect in place of uid
	// alone (the tokens' socket: the users a token is for).
	allow func(uid int) bool
	// perProcess and total are the limits in force: maxConnsPerProcess,
	// and maxConns or less where the fd limit is lower.
	perProcess, total int

	mu     sync.Mutex // guards open, byPID, logger and the refusal tally
	open   int
	byPID  map[int]int
	logger *log.Logger
	tally  refusals
}

// refuseLogEvery is how often refused connections may be logged.
const refuseLogEvery = 10 * time.Second

// refusals counts connections refused since the last log line.
type refusals struct {
	last   time.Time
	count  int
	sample string
}

func newPeerListener(l net.Listener) *peerListener {
	return &peerListener{Listener: l, uid: os.Getuid(), byPID: map[int]int{},
		perProcess: maxConnsPerProcess, total: connLimit()}
}

func (l *peerListener) setLogger(lg *log.Logger) {
	l.mu.Lock()
	l.logger = lg
	l.mu.Unlock()
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		cred, err := osutil.PeerCred(c)
		switch {
		case err != nil:
			l.refuse(c, fmt.Sprintf("cannot tell who connected: %v", err))
			continue
		case l.allow == nil && cred.UID != l.uid:
			l.refuse(c, fmt.Sprintf("uid %d (pid %d) is not this user", cred.UID, cred.PID))
			continue
		case l.allow != nil && !l.allow(cred.UID):
			l.refuse(c, fmt.Sprintf("uid %d (pid %d) holds no token", cred.UID, cred.PID))
			continue
		}
		if why := l.admit(cred.PID); why != "" {
			l.refuse(c, why)
			continue
		}
		return &limitedConn{Conn: c, pid: cred.PID, uid: cred.UID, release: sync.OnceFunc(func() { l.leave(cred.PID) })}, nil
	}
}

// admit counts a new connection of process pid, or says why it is over
// the limits.
func (l *peerListener) admit(pid int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.total {
		return fmt.Sprintf("%d connections are open, the most the daemon holds", l.open)
	}
	if pid > 0 && l.byPID[pid] >= l.perProcess {
		return fmt.Sprintf("process %d has %d connections open, the most one process may", pid, l.byPID[pid])
	}
	l.open++
	if pid > 0 {
		l.byPID[pid]++
	}
	return ""
}

func (l *peerListener) leave(pid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if pid > 0 {
		if l.byPID[pid]--; l.byPID[pid] <= 0 {
			delete(l.byPID, pid)
		}
	}
}

// refuse closes c and logs why, rate-limited.
func (l *peerListener) refuse(c net.Conn, why string) {
	c.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.tally.count++
	if l.tally.sample == "" {
		l.tally.sample = why
	}
	if l.logger == nil || now.Sub(l.tally.last) < refuseLogEvery {
		return
	}
	if l.tally.count == 1 {
		l.logger.Printf("refused a connection: %s", l.tally.sample)
	} else {
		l.logger.Printf("refused %d connections since %s, for example: %s", l.tally.count, l.tally.last.Format(time.TimeOnly), l.tally.sample)
	}
	l.tally = refusals{last: now}
}

// limitedConn gives its place back when it closes.
type limitedConn struct {
	net.Conn
	pid     int // the peer process
	uid     int // the peer's user
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// connLimit is maxConns, or less where the process may open fewer files:
// the daemon keeps room for its own files (the audit log, the config, the
// watcher) and for the connections it refuses.
func connLimit() int {
	n := maxConns
	if lim, ok := osutil.FileLimit(); ok && lim-64 < uint64(n) {
		n = max(int(lim)-64, 16)
	}
	return n
}
