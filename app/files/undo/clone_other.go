//go:build unix && !linux

package undo

import (
	"errors"
	"os"
)

// clone is not done here: the copy is a copy.
func clone(dst, src *os.File) error { return errors.ErrUnsupported }
