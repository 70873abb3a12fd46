//go:build unix

package watcher

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO named like a config file must not block the watcher.
func TestFingerprintFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "config.toml"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan []byte)
	go func() { done <- fingerprint(dir, []string{"config.toml"}) }()
	select {
	case fp := <-done:
		if fp == nil {
			t.Fatal("no fingerprint for a FIFO")
		}
	case <-time.After(wait):
		t.Fatal("fingerprint blocked on a FIFO")
	}
}
