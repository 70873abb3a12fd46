package osutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNotPrivate means a folder agate keeps its files in, or its socket,
// could be read or changed by someone else. Callers treat it like a
// missing daemon or a locked store: they never fall back to using the
// path anyway.
var ErrNotPrivate = errors.New("not private to this user")

// notPrivate builds an error that names the path and says why.
func notPrivate(path, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", path, ErrNotPrivate, fmt.Sprintf(format, args...))
}

// MakeDir creates dir and its parents, mode 0700, where they are missing,
// then checks it as CheckDir does.
func MakeDir(dir string, strict bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return CheckDir(dir, strict)
}

// CheckDir checks that dir is a safe place for agate's files: every link
// on the way to it is owned by this user or root, every folder above it
// is owned by this user or root and not writable by others unless it is
// sticky (as /tmp is), and the folder itself belongs to this user and is
// not writable by its group or others. With strict it must not be open
// to them at all (mode 0700), as the socket's folder must.
//
// It changes nothing: a folder that fails is an error naming it and what
// to do, never chmod-ed behind the person's back.
func CheckDir(dir string, strict bool) error {
	return checkDir(dir, strict)
}

// CheckSocket checks a unix socket's path before it is dialled: its folder
// passes CheckDir with strict set, and the file is a socket owned by this
// user. A listener of another user at that path is refused before a byte
// is sent to it.
func CheckSocket(path string) error {
	return checkSocket(path)
}

// CheckTokenSocket checks the tokens' socket (another user's daemon,
// reached with a scoped token) before it is dialled: a socket, every
// folder above it a folder (no link) owned by the socket's owner or root
// and writable by no one else but under its sticky bit. It returns the
// socket's owner, the uid the listener must run as.
func CheckTokenSocket(path string) (owner int, err error) {
	return checkTokenSocket(path)
}

// absClean returns p absolute and cleaned.
func absClean(p string) (string, error) {
	a, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.Clean(a), nil
}
