package app

import "testing"

// buildCLI returns the path of agate-cli as `make cli` builds it (no GUI,
// no cgo), built once for the tests that need the real binary.
func buildCLI(t *testing.T) string {
	t.Helper()
	return realBinary(t, "agate-cli")
}
