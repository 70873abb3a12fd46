package app

import "golang.org/x/sys/unix"

// peerCredUID reads the peer's uid with LOCAL_PEERCRED, as getpeereid does.
func peerCredUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
