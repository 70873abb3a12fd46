package api

import (
	"errors"
	"fmt"
)

// Sentinel errors callers branch on.
var (
	// ErrDaemonDown means the daemon's socket could not be reached.
	ErrDaemonDown = errors.New("the agate daemon is not running")
	// ErrUntrusted means the socket was not the daemon's: its folder or
	// the socket belongs to someone else or is open to others, or the
	// process listening runs as another user. It comes with ErrDaemonDown:
	// callers treat such a listener as no daemon at all.
	ErrUntrusted = errors.New("the socket is not agate's")
	// ErrNotFound means an approval, agent or grant does not exist.
	ErrNotFound = errors.New("not found")
	// ErrRefused means the daemon refused the request (another user, a
	// browser origin).
	ErrRefused = errors.New("refused")
)

// APIError is an error answer from the local API.
type APIError struct {
	Status  int    // the HTTP status
	Message string // the daemon's message
}

func (e *APIError) Error() string {
	return fmt.Sprintf("agate daemon: %s (status %d)", e.Message, e.Status)
}

// Is maps statuses to the sentinels: 404 is ErrNotFound, 403 ErrRefused.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == 404
	case ErrRefused:
		return e.Status == 403
	}
	return false
}
