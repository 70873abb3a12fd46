package managed

import (
	"errors"
	"fmt"
)

// MaxSize bounds the managed file, as policy.MaxConfigSize bounds
// config.toml.
const MaxSize = 1 << 20

// ErrUnsafe means the managed file is there but cannot be trusted: a
// user other than root could have written it, or what is at its place is
// not a plain file.
var ErrUnsafe = errors.New("the managed policy file cannot be trusted")

// Read returns the managed file's text. ok is false when there is no
// file; err wraps ErrUnsafe when it is there and fails a check, or says
// why it could not be read.
func Read() (data []byte, ok bool, err error) { return readAt(Path) }

// unsafef is an ErrUnsafe naming path and what failed.
func unsafef(path, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", path, ErrUnsafe, fmt.Sprintf(format, args...))
}
