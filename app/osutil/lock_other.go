//go:build !unix && !windows

package osutil

import (
	"errors"
	"os"
)

// tryLock fails: this platform has no file lock agate uses, and writing
// without one could lose a concurrent write.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("file locking is not supported on this platform")
}

// unlockFile does nothing here.
func unlockFile(*os.File) {}

// canLockDir says whether lockDir can lock a folder here.
const canLockDir = false
