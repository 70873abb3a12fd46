//go:build unix

package managed

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the unprivileged uid that stands for the person, or another
// user, in these tests.
const nobody = 65534

// rootTree makes DIR/etc/agate/managed.toml with every folder from DIR
// down owned by root and mode 0755, the file 0644: the layout an
// administrator's install leaves. It needs root (the test's folders must
// be root's, as /etc is).
func rootTree(t *testing.T) (dir, file string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root: the managed file and its folders must be root's, and the checks are tried against files chown gives to another uid")
	}
	dir = t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	etc := filepath.Join(dir, "etc", "agate")
	if err := os.MkdirAll(etc, 0o755); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(etc, "managed.toml")
	if err := os.WriteFile(file, []byte("[approvals]\nallow_yolo = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// TestReadChecksOwners: the file is read only when it and every folder
// above it are root's and nobody else may write them; each other case is
// ErrUnsafe naming what failed, checked against real files with chown
// and chmod.
func TestReadChecksOwners(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, file string)
		want  string // in the error; "" for a good read
	}{
		{"root's", func(*testing.T, string, string) {}, ""},
		{"the person's file", func(t *testing.T, _, f string) { chown(t, f, nobody) }, "owned by uid 65534"},
		{"group may write", func(t *testing.T, _, f string) { os.Chmod(f, 0o664) }, "mode 0664"},
		{"anyone may write", func(t *testing.T, _, f string) { os.Chmod(f, 0o646) }, "mode 0646"},
		{"the person's folder", func(t *testing.T, d, _ string) { chown(t, filepath.Join(d, "etc"), nobody) }, "owned by uid 65534"},
		{"a folder anyone may write", func(t *testing.T, d, _ string) { os.Chmod(filepath.Join(d, "etc", "agate"), 0o777) }, "mode 0777"},
		{"a link", func(t *testing.T, d, f string) {
			real := filepath.Join(d, "real.toml")
			os.Rename(f, real)
			os.Symlink(real, f)
		}, "not a regular file"},
		{"a fifo", func(t *testing.T, _, f string) {
			os.Remove(f)
			if err := syscall.Mkfifo(f, 0o644); err != nil {
				t.Skip(err)
			}
		}, "not a regular file"},
		{"a folder is a link", func(t *testing.T, d, _ string) {
			os.Rename(filepath.Join(d, "etc"), filepath.Join(d, "etc2"))
			os.Symlink(filepath.Join(d, "etc2"), filepath.Join(d, "etc"))
		}, "not a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, file := rootTree(t)
			tt.setup(t, dir, file)
			data, ok, err := readAt(file)
			if !ok {
				t.Fatal("the file is there, but reads as missing")
			}
			if tt.want == "" {
				if err != nil || !strings.Contains(string(data), "allow_yolo") {
					t.Fatalf("a good file: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), tt.want) || data != nil {
				t.Fatalf("err = %v, want ErrUnsafe with %q", err, tt.want)
			}
		})
	}
}

// TestReadMissing: no file is no managed policy, not an error.
func TestReadMissing(t *testing.T) {
	data, ok, err := readAt(filepath.Join(t.TempDir(), "managed.toml"))
	if ok || err != nil || data != nil {
		t.Fatalf("%q %v %v", data, ok, err)
	}
	if _, ok, err := readAt("managed.toml"); !ok || !errors.Is(err, ErrUnsafe) {
		t.Fatalf("a relative place: %v %v", ok, err)
	}
}

// TestReadNotRoot: run as anyone but root, a file of one's own is never
// trusted (a person cannot make a managed policy of their own).
func TestReadNotRoot(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("as root, every file made here is root's; TestReadChecksOwners covers another owner")
	}
	f := filepath.Join(t.TempDir(), "managed.toml")
	os.WriteFile(f, []byte("x"), 0o644)
	if _, ok, err := readAt(f); !ok || !errors.Is(err, ErrUnsafe) {
		t.Fatalf("%v %v", ok, err)
	}
}

func chown(t *testing.T, path string, uid int) {
	t.Helper()
	if err := os.Lchown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
}
