package watcher

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	files := []string{"a.toml", "b.toml"}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]string{} // fingerprint → the state it was taken in
	take := func(state string) []byte {
		t.Helper()
		fp := fingerprint(dir, files)
		if fp == nil {
			t.Fatalf("%s: no fingerprint", state)
		}
		if prev, ok := seen[string(fp)]; ok && prev != state {
			t.Fatalf("%s: same fingerprint as %s", state, prev)
		}
		seen[string(fp)] = state
		return fp
	}

	take("both missing")
	write("a.toml", "")
	take("a empty")
	write("a.toml", "x")
	fp := take("a=x")
	if err := os.Chmod(filepath.Join(dir, "a.toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fingerprint(dir, files), fp) {
		t.Fatal("a chmod changed the fingerprint")
	}
	// Moving bytes from one file to the other is a change.
	write("a.toml", "")
	write("b.toml", "x")
	take("b=x")
	write("b.toml", "")
	if err := os.Mkdir(filepath.Join(dir, "a.toml.d"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "a.toml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "a.toml.d"), filepath.Join(dir, "a.toml")); err != nil {
		t.Fatal(err)
	}
	take("a is a folder")

	big := filepath.Join(dir, "b.toml")
	if err := os.Truncate(big, maxHashSize+1); err != nil {
		t.Fatal(err)
	}
	if fp := fingerprint(dir, files); fp != nil {
		t.Fatal("a file too big to hash has a fingerprint; want nil, so Load decides")
	}
}
