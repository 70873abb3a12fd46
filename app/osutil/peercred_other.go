//go:build !linux && !darwin

package osutil

func peerCred(int) (Cred, error) { return Cred{}, ErrNoPeerCred }
