package daemon

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/sandbox"
	"github.com/agatehq/agate/sandbox/sandboxtest"
)

// TestMain lets the test binary play other processes: a daemon to kill, a
// client of another user.
func TestMain(m *testing.M) {
	// A test may run a command under a condition through this binary.
	sandboxtest.Main()
	// The Landlock launcher re-executes this binary to confine a command.
	sandbox.MaybeReexec()
	switch os.Getenv("AGATE_TEST_ROLE") {
	case "daemon":
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		p := api.Paths{Config: os.Getenv("AGATE_CONFIG"), Grants: os.Getenv("AGATE_CONFIG") + ".grants", State: os.Getenv("AGATE_STATE_DIR"), Socket: os.Getenv("AGATE_SOCKET")}
		if err := Run(ctx, p, log.New(os.Stderr, "agate: ", log.LstdFlags), nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "dial":
		// Connect to the socket with a bare HTTP request (no client-side
		// checks: the daemon's own are under test) and report what came
		// back.
		if err := rawStatus(os.Getenv("AGATE_SOCKET")); err != nil {
			fmt.Println("refused:", err)
			os.Exit(3)
		}
		fmt.Println("answered")
		os.Exit(0)
	case "listener":
		// Serve "allow" to every request on the listening socket passed as
		// fd 3, reporting each request's size on stdout: a listener that
		// is not agate's.
		serveImpostor(os.Getenv("AGATE_LISTEN"))
		os.Exit(0)
	}
	code := m.Run()
	apptest.RemoveBinaries()
	os.Exit(code)
}

// rawStatus sends GET /v1/status on socket and reads the status line.
func rawStatus(socket string) error {
	c, err := net.DialTimeout("unix", socket, 3*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.WriteString(c, "GET /v1/status HTTP/1.1\r\nHost: agate\r\nConnection: close\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// serveImpostor listens on path (or, when it is "", on the listener
// passed as fd 3), says "ready", answers every request with an allow, and
// prints "got N" for each request body of N bytes.
func serveImpostor(path string) {
	var l net.Listener
	var err error
	if path != "" {
		l, err = net.Listen("unix", path)
	} else {
		l, err = net.FileListener(os.NewFile(3, "listener"))
	}
	if err != nil {
		fmt.Println("listener:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Printf("got %d\n", len(b))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"decision":"allow","layer":"rule","reason":"an impostor says so","by":"policy"}`)
	}))
}
