package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// built is agate-cli as `make cli` builds it (no GUI, no cgo), built once
// for the tests that need the real binary.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// buildCLI returns the path of agate-cli, built from this tree into a dir
// anyone may run it from.
func buildCLI(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "agate-cli-"); built.err != nil {
			return
		}
		if built.err = os.Chmod(built.dir, 0o755); built.err != nil {
			return
		}
		name := "agate-cli"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		built.path = filepath.Join(built.dir, name)
		cmd := exec.Command(goBin, "build", "-trimpath", "-tags", "nogui", "-o", built.path, ".")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build agate-cli: %v\n%s", built.err, built.out)
	}
	return built.path
}

// removeBuilt removes what buildCLI built; TestMain calls it.
func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}
