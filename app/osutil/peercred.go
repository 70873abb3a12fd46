package osutil

import (
	"errors"
	"net"
)

// Cred is what the kernel says about the process at the other end of a
// unix socket connection.
type Cred struct {
	UID int // its user
	PID int // its process (at connect time); 0 when the platform does not say
}

// ErrNoPeerCred means this platform gives no peer credentials: a caller
// must treat the peer as untrusted.
var ErrNoPeerCred = errors.New("peer credentials are not available on this platform")

// PeerCred returns the credentials of the process at the other end of c,
// as the kernel vouches for them (SO_PEERCRED on Linux, LOCAL_PEERCRED
// and LOCAL_PEERPID on macOS). c must be a *net.UnixConn.
func PeerCred(c net.Conn) (Cred, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return Cred{}, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return Cred{}, err
	}
	var cred Cred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = peerCred(int(fd)) }); err != nil {
		return Cred{}, err
	}
	return cred, cerr
}
