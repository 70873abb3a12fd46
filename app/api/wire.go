package api

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agatehq/agate/app/osutil"
)

// The client speaks HTTP/1.1 to the daemon itself, one request per
// connection ("Connection: close"), rather than through net/http: the
// hook binary runs once per tool call, and net/http's package start-up
// and first request cost it about a millisecond it has no use for. Only
// what the daemon sends is read: a status line, headers, and a body with a
// Content-Length, chunked, or up to the close.

// maxResponse bounds a response body.
const maxResponse = 64 << 20

// exchange sends one request on a new connection to socket and returns
// the response. The connection closes when the body is closed.
func exchange(ctx context.Context, socket, token, method, path string, body []byte, timeout time.Duration) (*response, error) {
	if strings.ContainsAny(token, "\r\n") {
		return nil, errors.New("the token holds a line break")
	}
	cancel := func() {}
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	conn, err := dialDaemon(ctx, socket, token != "")
	if err != nil {
		cancel()
		return nil, err
	}
	// The context bounds the whole exchange: close the connection when it
	// ends, which unblocks any read or write.
	afterStop := context.AfterFunc(ctx, func() { conn.Close() })
	stop := func() {
		afterStop()
		cancel()
	}
	var req bytes.Buffer
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: agate\r\nUser-Agent: agate\r\nConnection: close\r\n", method, path)
	if token != "" {
		fmt.Fprintf(&req, "Authorization: Bearer %s\r\n", token)
	}
	if body != nil {
		fmt.Fprintf(&req, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	req.WriteString("\r\n")
	req.Write(body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		err = ctxErr(ctx, fmt.Errorf("send to the daemon: %w", err))
		stop()
		conn.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(conn, 16<<10)
	resp, err := readResponse(br)
	if err != nil {
		err = ctxErr(ctx, err)
		stop()
		conn.Close()
		return nil, err
	}
	resp.closer = func() error {
		stop()
		return conn.Close()
	}
	resp.ctx = ctx
	return resp, nil
}

// dialDaemon connects to the daemon's socket, and makes sure it is the
// daemon's before anything is sent: the socket's folder is this user's
// and closed to others, the socket is this user's, and the process that
// accepted the connection runs as this user (the kernel says so). A
// listener that fails any of these is treated like a daemon that is down:
// it never hears the call, and its answer is never read.
func dialDaemon(ctx context.Context, socket string, withToken bool) (net.Conn, error) {
	if _, err := os.Lstat(socket); err != nil {
		return nil, &dialError{socket: socket, err: err}
	}
	// The person's own socket is theirs alone; the tokens' socket is the
	// person's, in a folder only they may write, and the token is sent
	// only to the listener that is them.
	want := os.Getuid()
	if withToken {
		owner, err := osutil.CheckTokenSocket(socket)
		if err != nil {
			return nil, &untrustedError{socket: socket, err: err}
		}
		want = owner
	} else if err := osutil.CheckSocket(socket); err != nil {
		return nil, &untrustedError{socket: socket, err: err}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, &dialError{socket: socket, err: err}
	}
	cred, err := osutil.PeerCred(conn)
	if err != nil {
		conn.Close()
		return nil, &untrustedError{socket: socket, err: fmt.Errorf("cannot tell who listens: %w", err)}
	}
	if cred.UID != want {
		conn.Close()
		if withToken {
			return nil, &untrustedError{socket: socket, err: fmt.Errorf("the listener runs as uid %d, not as the socket's owner (uid %d)", cred.UID, want)}
		}
		return nil, &untrustedError{socket: socket, err: fmt.Errorf("the listener runs as uid %d, not as you (uid %d)", cred.UID, os.Getuid())}
	}
	return conn, nil
}

// untrustedError is a socket that is not the daemon's: it counts as the
// daemon being down.
type untrustedError struct {
	socket string
	err    error
}

func (e *untrustedError) Error() string {
	return fmt.Sprintf("%v: %v (socket %s): %v", ErrDaemonDown, ErrUntrusted, e.socket, e.err)
}

func (e *untrustedError) Unwrap() []error { return []error{ErrDaemonDown, ErrUntrusted, e.err} }

// ctxErr prefers the context's error when it ended the exchange.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// dialError is a failure to reach the socket: the daemon is down.
type dialError struct {
	socket string
	err    error
}

func (e *dialError) Error() string {
	return fmt.Sprintf("%v (socket %s): %v", ErrDaemonDown, e.socket, e.err)
}

func (e *dialError) Unwrap() []error { return []error{ErrDaemonDown, e.err} }

// response is a read status line and headers, and the body to read.
type response struct {
	status int
	header textproto.MIMEHeader
	body   io.Reader
	closer func() error
	ctx    context.Context
}

func (r *response) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	if err != nil && r.ctx != nil && r.ctx.Err() != nil {
		err = r.ctx.Err()
	}
	return n, err
}

func (r *response) Close() error { return r.closer() }

// readResponse reads the status line and headers and sets up the body.
func readResponse(br *bufio.Reader) (*response, error) {
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return nil, fmt.Errorf("read the daemon's answer: %w", err)
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return nil, fmt.Errorf("the daemon's answer is not HTTP: %q", line)
	}
	header, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("read the daemon's answer: %w", err)
	}
	r := &response{status: status, header: header}
	switch {
	case strings.EqualFold(header.Get("Transfer-Encoding"), "chunked"):
		r.body = &chunked{r: br}
	case header.Get("Content-Length") != "":
		n, err := strconv.ParseInt(header.Get("Content-Length"), 10, 64)
		if err != nil || n < 0 || n > maxResponse {
			return nil, fmt.Errorf("the daemon's answer has a bad length %q", header.Get("Content-Length"))
		}
		r.body = io.LimitReader(br, n)
	default:
		r.body = io.LimitReader(br, maxResponse)
	}
	return r, nil
}

// chunked reads a chunked transfer-encoded body (RFC 9112 §7.1), which
// the daemon uses for its event stream.
type chunked struct {
	r    *bufio.Reader
	left int64 // bytes left in the current chunk
	done bool
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.done {
		return 0, io.EOF
	}
	if c.left == 0 {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return 0, unexpected(err)
		}
		size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseInt(size, 16, 64)
		if err != nil || n < 0 || n > maxResponse {
			return 0, fmt.Errorf("bad chunk size %q", size)
		}
		if n == 0 {
			// Trailers, then the final CRLF.
			for {
				l, err := c.r.ReadString('\n')
				if err != nil {
					return 0, unexpected(err)
				}
				if strings.TrimSpace(l) == "" {
					break
				}
			}
			c.done = true
			return 0, io.EOF
		}
		c.left = n
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left == 0 && err == nil {
		if _, err := c.r.Discard(2); err != nil { // the chunk's CRLF
			return n, unexpected(err)
		}
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
