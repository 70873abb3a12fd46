package app

import (
	"errors"
	"net"
)

// peerUID is not available on Windows: every connection is refused, so
// the daemon's socket serves nobody rather than everybody.
func peerUID(c net.Conn) (int, error) {
	return -1, errors.New("peer credentials are not supported on windows")
}

// checkPrivateDir relies on the folder's ACL on Windows.
func checkPrivateDir(dir string) error { return nil }
