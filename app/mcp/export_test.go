package mcp

import (
	"context"
	"io"
)

// ServeConnected runs the proxy between opts' client side and a server
// already connected by serverIn and serverOut (no process), for the
// benchmarks. stop ends it; the server's output must end for stop to
// return.
func ServeConnected(ctx context.Context, opts Options, serverIn io.WriteCloser, serverOut io.Reader) (stop func(), err error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	p := newProxy(opts, serverIn, serverOut)
	p.begin(ctx)
	return func() {
		p.endCalls()
		serverIn.Close()
		<-p.serverDone
		p.end()
	}, nil
}
