//go:build unix

package osutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the links followed on one path, as the kernel's ELOOP does.
const maxLinks = 40

func owner(st os.FileInfo) int {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid)
	}
	return -1
}

// trustedOwner reports whether uid may own a link or a folder on the way
// to one of agate's folders: this user, or root.
func trustedOwner(uid int) bool { return uid == os.Getuid() || uid == 0 }

// resolve follows p component by component, refusing links owned by
// anyone but this user or root and folders on the way that others could
// change, and returns the real path.
func resolve(p string) (string, error) {
	p, err := absClean(p)
	if err != nil {
		return "", err
	}
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := "/"
	links := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		st, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if st.Mode()&os.ModeSymlink != 0 {
			if u := owner(st); !trustedOwner(u) {
				return "", notPrivate(next, "a link owned by uid %d, not by you or root", u)
			}
			links++
			if links > maxLinks {
				return "", fmt.Errorf("%s: too many links", p)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			rest = append(strings.Split(strings.Trim(target, "/"), "/"), rest...)
			continue
		}
		if len(rest) > 0 {
			// A folder above the target: others must not be able to swap
			// what is below it.
			if err := checkAncestor(next, st); err != nil {
				return "", err
			}
		}
		cur = next
	}
	// The root folder itself.
	if st, err := os.Lstat("/"); err == nil {
		if err := checkAncestor("/", st); err != nil {
			return "", err
		}
	}
	return cur, nil
}

func checkAncestor(path string, st os.FileInfo) error {
	if !st.IsDir() {
		return fmt.Errorf("%s: not a folder", path)
	}
	if u := owner(st); !trustedOwner(u) {
		return notPrivate(path, "a folder above it belongs to uid %d", u)
	}
	if st.Mode().Perm()&0o002 != 0 && st.Mode()&os.ModeSticky == 0 {
		return notPrivate(path, "a folder above it is writable by everyone")
	}
	return nil
}

func checkDir(dir string, strict bool) error {
	real, err := resolve(dir)
	if err != nil {
		return err
	}
	st, err := os.Stat(real)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: not a folder", dir)
	}
	if u := owner(st); u != os.Getuid() {
		return notPrivate(dir, "it belongs to uid %d, not to you (uid %d)", u, os.Getuid())
	}
	mask := os.FileMode(0o022)
	want := "chmod go-w"
	if strict {
		mask, want = 0o077, "chmod 700"
	}
	if st.Mode().Perm()&mask != 0 {
		return notPrivate(dir, "it is open to others (mode %04o); %s %s", st.Mode().Perm(), want, real)
	}
	return nil
}

func checkSocket(path string) error {
	if err := checkDir(filepath.Dir(path), true); err != nil {
		return err
	}
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if st.Mode()&os.ModeSocket == 0 {
		return notPrivate(path, "not a socket")
	}
	if u := owner(st); u != os.Getuid() {
		return notPrivate(path, "the socket belongs to uid %d, not to you", u)
	}
	return nil
}

func checkTokenSocket(path string) (int, error) {
	p, err := absClean(path)
	if err != nil {
		return -1, err
	}
	st, err := os.Lstat(p)
	if err != nil {
		return -1, err
	}
	if st.Mode()&os.ModeSocket == 0 {
		return -1, notPrivate(p, "not a socket")
	}
	uid := owner(st)
	// Every folder on the way: a folder (no link), root's or the socket
	// owner's, and writable by no one else but under its sticky bit.
	for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
		ds, err := os.Lstat(dir)
		if err != nil {
			return -1, err
		}
		if !ds.IsDir() {
			return -1, notPrivate(dir, "a folder above the socket is not a folder (a link?)")
		}
		if u := owner(ds); u != 0 && u != uid {
			return -1, notPrivate(dir, "a folder above the socket belongs to uid %d, not to its owner (uid %d) or root", u, uid)
		}
		if ds.Mode().Perm()&0o022 != 0 && ds.Mode()&os.ModeSticky == 0 {
			return -1, notPrivate(dir, "others may write a folder above the socket (mode %04o)", ds.Mode().Perm())
		}
		if dir == "/" || dir == filepath.Dir(dir) {
			break
		}
	}
	return uid, nil
}
