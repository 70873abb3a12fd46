//go:build unix

package sandbox

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// execInPlace replaces the process with path, in dir, with extra open
// as fd 3 and on, as exec.Cmd's ExtraFiles would be.
func execInPlace(path string, args, env []string, dir string, extra []*os.File) error {
	if dir != "" {
		if err := syscall.Chdir(dir); err != nil {
			return fmt.Errorf("enter %s: %w", dir, err)
		}
	}
	for i, f := range extra {
		// Dup2 leaves the new descriptor open across exec.
		if err := unix.Dup2(int(f.Fd()), 3+i); err != nil {
			return fmt.Errorf("pass %s as fd %d: %w", f.Name(), 3+i, err)
		}
	}
	if err := syscall.Exec(path, args, env); err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	return nil
}
