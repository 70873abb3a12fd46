package cli

import (
	"os"
	"testing"

	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/sandbox"
	"github.com/agatehq/agate/sandbox/sandboxtest"
)

// TestMain lets the test binary play the commands the sandbox runs.
func TestMain(m *testing.M) {
	// A test may run a command under a condition through this binary.
	sandboxtest.Main()
	// The Landlock launcher re-executes this binary to confine a command.
	sandbox.MaybeReexec()
	// `agate mcp run` tests start this binary as their MCP server.
	fakeMCPServer()
	code := m.Run()
	apptest.RemoveBinaries()
	os.Exit(code)
}
