//go:build unix

package osutil

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive flock on f without waiting; held is false
// when another process has it.
func tryLock(f *os.File) (held bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) || errors.Is(err, unix.EINTR) {
		return false, nil
	}
	return err == nil, err
}

// unlockFile releases the lock tryLock took.
func unlockFile(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// canLockDir says whether lockDir can lock a folder here.
const canLockDir = true
