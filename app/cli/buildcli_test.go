package cli

import (
	"testing"

	"github.com/agatehq/agate/app/internal/apptest"
)

// buildCLI returns the path of agate-cli as `make cli` builds it (no GUI,
// no cgo), built once for the tests that need the real binary.
func buildCLI(t *testing.T) string {
	t.Helper()
	return apptest.Binary(t, "agate-cli")
}
