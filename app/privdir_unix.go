//go:build unix

package app

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivateDir makes sure the socket's folder belongs to this user and
// nobody else can enter it.
func checkPrivateDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("socket folder %s belongs to uid %d, not to you", dir, sys.Uid)
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("socket folder %s is open to others and cannot be closed: %w", dir, err)
		}
	}
	return nil
}
