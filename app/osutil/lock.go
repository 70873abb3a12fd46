package osutil

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Lock takes an exclusive advisory lock on the file at path, creating it
// (mode 0600) and its folder (0700) as needed, and returns the function
// that releases it. It polls rather than blocks, so that ctx can end the
// wait; the error then wraps ctx.Err(). The lock file is never removed:
// removing it would let two processes hold "the" lock on two different
// files.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return lockOpen(ctx, f)
}

// lockDir takes an exclusive advisory lock on the folder dir itself, so
// that no lock file is left in a folder that is another program's. Where
// a folder cannot be locked (Windows), or dir is not there yet, it locks
// nothing.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	if !canLockDir {
		return func() {}, nil
	}
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	return lockOpen(ctx, f)
}

// lockOpen locks f, polling until ctx ends; it closes f when it fails.
func lockOpen(ctx context.Context, f *os.File) (unlock func(), err error) {
	wait := time.Millisecond
	for {
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, err
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
			return nil, fmt.Errorf("another agate holds it: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}
