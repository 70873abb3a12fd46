package app

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

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
		p := Paths{Config: os.Getenv("AGATE_CONFIG"), Grants: os.Getenv("AGATE_CONFIG") + ".grants", State: os.Getenv("AGATE_STATE_DIR"), Socket: os.Getenv("AGATE_SOCKET")}
		e := &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
		if err := runDaemon(ctx, e, p, nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "dial":
		// Connect to the socket and report what came back.
		c := &Client{Socket: os.Getenv("AGATE_SOCKET"), Timeout: 3 * time.Second}
		_, err := c.Status(context.Background())
		if err != nil {
			fmt.Println("refused:", err)
			os.Exit(3)
		}
		fmt.Println("answered")
		os.Exit(0)
	}
	code := m.Run()
	removeBuilt()
	os.Exit(code)
}

var _ = http.StatusOK
