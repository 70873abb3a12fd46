//go:build unix

package osutil

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckDir(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(root, name)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	private := mk("private", 0o700)
	readable := mk("readable", 0o755)
	groupw := mk("groupw", 0o770)
	shared := mk("shared", 0o777)
	sticky := mk("sticky", 0o777|os.ModeSticky)
	os.Chmod(sticky, 0o777|os.ModeSticky)
	underSticky := filepath.Join(sticky, "mine")
	os.Mkdir(underSticky, 0o700)
	underShared := filepath.Join(shared, "mine")
	os.Mkdir(underShared, 0o700)
	link := filepath.Join(root, "link")
	os.Symlink(private, link)

	for _, tt := range []struct {
		dir         string
		strict, bad bool
	}{
		{dir: private, strict: true},
		{dir: private},
		{dir: readable},
		{dir: readable, strict: true, bad: true},
		{dir: groupw, bad: true},
		{dir: shared, bad: true},
		{dir: underSticky, strict: true},
		{dir: underShared, strict: true, bad: true}, // anyone may swap it
		{dir: link, strict: true},                   // our own link
	} {
		err := CheckDir(tt.dir, tt.strict)
		if tt.bad != errors.Is(err, ErrNotPrivate) {
			t.Errorf("CheckDir(%s, strict=%v) = %v, want not private: %v", tt.dir, tt.strict, err, tt.bad)
		}
	}
	if err := CheckDir(filepath.Join(root, "missing"), false); err == nil {
		t.Error("a missing folder passed")
	}
}

func TestCheckDirOtherOwners(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to make files of another user")
	}
	const nobody = 65534
	root := t.TempDir()
	theirs := filepath.Join(root, "theirs")
	os.Mkdir(theirs, 0o700)
	os.Chown(theirs, nobody, nobody)
	mine := filepath.Join(root, "mine")
	os.Mkdir(mine, 0o700)
	// A link owned by someone else, to a folder of ours.
	theirLink := filepath.Join(root, "theirlink")
	os.Symlink(mine, theirLink)
	os.Lchown(theirLink, nobody, nobody)
	// A folder of theirs above one of ours.
	above := filepath.Join(theirs, "below")
	os.Mkdir(above, 0o700)
	os.Chown(above, 0, 0)
	for _, dir := range []string{theirs, theirLink, above} {
		if err := CheckDir(dir, false); !errors.Is(err, ErrNotPrivate) {
			t.Errorf("CheckDir(%s) = %v, want not private", dir, err)
		}
	}
	if err := CheckDir(mine, true); err != nil {
		t.Errorf("CheckDir(mine) = %v", err)
	}
}

func TestCheckSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "osu")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := CheckSocket(sock); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	if err := CheckSocket(file); !errors.Is(err, ErrNotPrivate) {
		t.Fatalf("a plain file passed: %v", err)
	}
	os.Chmod(dir, 0o755)
	if err := CheckSocket(sock); !errors.Is(err, ErrNotPrivate) {
		t.Fatalf("a socket in a folder open to others passed: %v", err)
	}
}

func TestPeerCred(t *testing.T) {
	dir, err := os.MkdirTemp("", "osu")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			defer c.Close()
			if cr, err := PeerCred(c); err != nil || cr.UID != os.Getuid() || cr.PID != os.Getpid() {
				t.Errorf("server side: %+v %v", cr, err)
			}
		}
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cr, err := PeerCred(c)
	if err != nil || cr.UID != os.Getuid() || cr.PID != os.Getpid() {
		t.Fatalf("client side: %+v %v", cr, err)
	}
}

func TestReadPrivate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "state")
	if err := MakeDir(dir, false); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("mine"), 0o600)
	if b, err := ReadPrivate(file, 100); err != nil || string(b) != "mine" {
		t.Fatalf("a private folder: %q, %v", b, err)
	}
	if _, err := ReadPrivate(filepath.Join(root, "none", "f"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing folder: %v, want a missing file", err)
	}
	os.Chmod(dir, 0o777)
	if b, err := ReadPrivate(file, 100); !errors.Is(err, ErrNotPrivate) || b != nil {
		t.Errorf("a folder anyone can change: %q, %v, want it not read", b, err)
	}
}
