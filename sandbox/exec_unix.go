//go:build unix

package sandbox

import (
	"fmt"
	"syscall"
)

// execInPlace replaces the process with path, in dir.
func execInPlace(path string, args, env []string, dir string) error {
	if dir != "" {
		if err := syscall.Chdir(dir); err != nil {
			return fmt.Errorf("enter %s: %w", dir, err)
		}
	}
	if err := syscall.Exec(path, args, env); err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	return nil
}
