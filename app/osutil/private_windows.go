package osutil

// On Windows a folder's ACL, not its mode bits, says who may change it;
// agate's folders are in the person's profile. The socket is never
// trusted: the platform gives no peer credentials (see PeerCred).
func checkDir(dir string, strict bool) error { return nil }

func checkSocket(path string) error { return ErrNoPeerCred }

func checkTokenSocket(path string) (int, error) { return -1, ErrNoPeerCred }
