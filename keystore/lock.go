package keystore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// lockFile takes an exclusive lock on path+".lock", creating the folder
// and the lock file as needed, and returns the function that releases it.
// It polls rather than blocks, so that ctx can end the wait. The lock file
// is never removed: removing it would let two processes hold "the" lock on
// two different files.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock key store: %w", err)
	}
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock key store: %w", err)
	}
	wait := time.Millisecond
	for {
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock key store: %w", err)
		}
		if held {
			return func() {
				unlockFile(f)
				f.Close()
			}, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock key store: another agate holds it: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}
