//go:build !((dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd)

package keystore

// sessionBus is nil: the keychain here (Keychain on macOS, Credential
// Manager on Windows) needs no D-Bus session bus.
func sessionBus() error { return nil }
