//go:build !unix

package undo

import (
	"context"
	"errors"
	"io/fs"
	"os"
)

// supported says this platform keeps copies: not yet where there is no
// openat to restore beneath a root with.
const supported = false

func deviceOf(string) (uint64, error)            { return 0, ErrUnsupported }
func soleLink(fs.FileInfo, uint64) bool          { return false }
func hardLink(string, string, fs.FileInfo) error { return ErrUnsupported }
func freeSpace(string) (int64, error)            { return 0, ErrUnsupported }
func openBlob(string) (*os.File, error)          { return nil, ErrUnsupported }
func syncDir(string)                             {}
func cloneOrCopy(string, string, fs.FileInfo, int64) (string, int64, error) {
	return "", 0, ErrUnsupported
}
func clone(dst, src *os.File) error { return errors.ErrUnsupported }

// Restore is not done on this platform.
func (s *Store) Restore(ctx context.Context, id string) (*Result, error) { return nil, ErrUnsupported }
