//go:build linux || darwin

package app

import (
	"errors"
	"net"
)

// peerUID returns the uid of the process at the other end of a unix
// socket connection, as the kernel vouches for it (peerCredUID, per OS).
func peerUID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, serr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, serr = peerCredUID(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, serr
}
