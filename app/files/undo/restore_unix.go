//go:build unix

package undo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Restore puts entry id back. Each kept path is written beneath its root
// only, through folders opened one by one without following a link; a
// path where something is now gets the kept copy beside it
// (NAME.agate-undo-ID) rather than over it; a kept file that is not as it
// was kept is not put back. It deletes nothing. The entry stays, so a
// restore can be done again; `agate undo --drop ID` removes it.
func (s *Store) Restore(ctx context.Context, id string) (*Result, error) {
	e, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for _, it := range e.Items {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		r := &restorer{id: id, blobs: filepath.Join(s.dir, id), res: res, moved: map[string]string{}, synced: map[string]bool{}}
		if err := r.item(it); err != nil {
			res.Failed = append(res.Failed, Failure{Path: it.Path, Why: err.Error()})
		}
	}
	return res, nil
}

// restorer puts back one item.
type restorer struct {
	id, blobs string
	res       *Result
	root      string
	rootFD    int
	moved     map[string]string // a folder's path below the root → where it went instead
	dirs      []dirFix          // folders made, to get their mode and time last
	synced    map[string]bool   // folders written in, to sync
	seq       int
}

type dirFix struct {
	rel string
	n   Node
}

// errLink is a folder on the way that is now a link, or not a folder.
var errLink = errors.New("is now a link or not a folder, and agate does not write through it")

func (r *restorer) item(it Item) error {
	rel, err := filepath.Rel(it.Root, it.Path)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s is not in %s", it.Path, it.Root)
	}
	rel = filepath.ToSlash(rel)
	r.root = it.Root
	r.rootFD, err = unix.Open(it.Root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s, where it was kept from: %w", it.Root, err)
	}
	defer unix.Close(r.rootFD)
	for _, n := range it.Nodes {
		full := rel
		if n.Rel != "" {
			full = rel + "/" + n.Rel
		}
		full = r.mapMoved(full)
		abs := filepath.Join(r.root, filepath.FromSlash(full))
		if err := r.node(full, n); err != nil {
			r.res.Failed = append(r.res.Failed, Failure{Path: abs, Why: err.Error()})
		}
	}
	for i := len(r.dirs) - 1; i >= 0; i-- {
		d := r.dirs[i]
		parent, name := path.Split(d.rel)
		// The mode is set through the folder's own descriptor, opened
		// following no link: a folder swapped for a link meanwhile is
		// refused, never chmodded through.
		if fd, err := r.openDir(d.rel, false); err == nil {
			unix.Fchmod(fd, unixMode(d.n.Mode))
			unix.Close(fd)
		}
		if fd, err := r.openDir(parent, false); err == nil {
			setTime(fd, name, d.n)
			unix.Close(fd)
		}
	}
	for dir := range r.synced {
		if fd, err := r.openDir(dir, false); err == nil {
			unix.Fsync(fd)
			unix.Close(fd)
		}
	}
	return nil
}

// mapMoved rewrites a path below a folder that was put beside.
func (r *restorer) mapMoved(full string) string {
	for from, to := range r.moved {
		if full == from || strings.HasPrefix(full, from+"/") {
			return to + full[len(from):]
		}
	}
	return full
}

// openDir opens the folder rel below the root, one folder at a time and
// following no link, making the ones that are missing when create is set.
func (r *restorer) openDir(rel string, create bool) (int, error) {
	fd, err := unix.Dup(r.rootFD)
	if err != nil {
		return -1, err
	}
	walked := r.root
	for _, c := range strings.Split(strings.Trim(rel, "/"), "/") {
		if c == "" || c == "." {
			continue
		}
		walked = filepath.Join(walked, c)
		if c == ".." {
			unix.Close(fd)
			return -1, fmt.Errorf("%s is not a path below %s", rel, r.root)
		}
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.ENOENT && create {
			// A folder on the way that is gone is made private: what it
			// was is not known (the kept folders get their own modes).
			if err = unix.Mkdirat(fd, c, 0o700); err == nil || err == unix.EEXIST {
				r.synced[path.Dir(strings.TrimPrefix(walked[len(r.root):], "/"))] = true
				next, err = unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		unix.Close(fd)
		switch {
		case err == unix.ELOOP || err == unix.ENOTDIR:
			return -1, fmt.Errorf("%s %w", walked, errLink)
		case err != nil:
			return -1, fmt.Errorf("%s: %w", walked, err)
		}
		fd = next
	}
	return fd, nil
}

// node puts back one file, folder or link at full, below the root.
func (r *restorer) node(full string, n Node) error {
	parent, name := path.Split(full)
	parent = strings.TrimSuffix(parent, "/")
	abs := filepath.Join(r.root, filepath.FromSlash(full))
	pfd, err := r.openDir(parent, true)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	exists := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
	switch n.Type {
	case TypeDir:
		if exists && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return nil // what it held is put back into it
		}
		at := name
		if exists {
			at = r.beside(pfd, name)
			r.moved[full] = path.Join(parent, at)
		}
		if err := unix.Mkdirat(pfd, at, 0o700); err != nil {
			return err
		}
		r.synced[parent] = true
		r.dirs = append(r.dirs, dirFix{rel: path.Join(parent, at), n: n})
		r.record(abs, parent, at, exists)
		return nil
	case TypeLink:
		if exists && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			if t, err := readlinkat(pfd, name); err == nil && t == n.Target {
				r.res.Same = append(r.res.Same, abs)
				return nil
			}
		}
		at := name
		if exists {
			at = r.beside(pfd, name)
		}
		if err := unix.Symlinkat(n.Target, pfd, at); err != nil {
			return err
		}
		setTime(pfd, at, n)
		r.synced[parent] = true
		r.record(abs, parent, at, exists)
		return nil
	case TypeFile:
	default:
		return fmt.Errorf("a kept node of kind %q", n.Type)
	}
	if n.Changed {
		return errors.New("the kept copy changed after it was kept (the file was written in place, not deleted), so it is not put back")
	}
	blob := filepath.Join(r.blobs, n.Blob)
	sum := n.SHA256
	if sum == "" {
		var ok bool
		if sum, ok = hashBlob(blob, &n); !ok {
			return errors.New("the kept copy is not as it was kept, so it is not put back")
		}
	}
	if exists && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size == n.Size {
		if got, err := hashAt(pfd, name); err == nil && got == sum {
			r.res.Same = append(r.res.Same, abs)
			return nil
		}
	}
	var tmp string
	for tries := 0; ; tries++ {
		r.seq++
		tmp = fmt.Sprintf(".agate-undo-%s-%d.tmp", r.id, r.seq)
		made, err := r.write(pfd, tmp, blob, sum, n)
		if err == nil {
			break
		}
		if made {
			unix.Unlinkat(pfd, tmp, 0) // (only what this restore made)
		}
		if err != unix.EEXIST || tries >= 100 {
			return err
		}
		// Something is at that name already: it is left as it is.
	}
	defer unix.Unlinkat(pfd, tmp, 0)
	at := name
	if exists {
		at = r.beside(pfd, name)
	}
	// A link, not a rename: it never replaces what appeared meanwhile.
	err = unix.Linkat(pfd, tmp, pfd, at, 0)
	if err == unix.EEXIST {
		exists, at = true, r.beside(pfd, name)
		err = unix.Linkat(pfd, tmp, pfd, at, 0)
	}
	if err != nil {
		return err
	}
	r.synced[parent] = true
	r.record(abs, parent, at, exists)
	return nil
}

// record notes where a path went.
func (r *restorer) record(abs, parent, at string, beside bool) {
	if beside {
		r.res.Beside = append(r.res.Beside, Moved{Path: abs, As: filepath.Join(r.root, filepath.FromSlash(parent), at)})
		return
	}
	r.res.Put = append(r.res.Put, abs)
}

// write makes tmp in the folder pfd a copy of the kept blob, checked
// against its hash, with the kept mode and time, synced. made says
// whether tmp is the file it created (never one that was there).
func (r *restorer) write(pfd int, tmp, blob, sum string, n Node) (made bool, err error) {
	src, err := openBlob(blob)
	if err != nil {
		return false, err
	}
	defer src.Close()
	fd, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false, err
	}
	dst := os.NewFile(uintptr(fd), tmp)
	defer dst.Close()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(dst, h), src); err != nil {
		return true, err
	}
	if hex.EncodeToString(h.Sum(nil)) != sum {
		return true, errors.New("the kept copy does not match its hash, so it is not put back")
	}
	if err := unix.Fchmod(fd, unixMode(n.Mode)); err != nil {
		return true, err
	}
	if err := dst.Sync(); err != nil {
		return true, err
	}
	setTime(pfd, tmp, n)
	return true, nil
}

// beside returns a free name next to name for the kept copy:
// NAME.agate-undo-ID, then NAME.agate-undo-ID-2, ...
func (r *restorer) beside(pfd int, name string) string {
	base := name + ".agate-undo-" + r.id
	for i := 1; ; i++ {
		at := base
		if i > 1 {
			at = fmt.Sprintf("%s-%d", base, i)
		}
		var st unix.Stat_t
		if unix.Fstatat(pfd, at, &st, unix.AT_SYMLINK_NOFOLLOW) == unix.ENOENT {
			return at
		}
	}
}

// hashAt returns the SHA-256 of the file name in pfd, following no link.
func hashAt(pfd int, name string) (string, error) {
	fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func readlinkat(pfd int, name string) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(pfd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// setTime gives name in pfd the kept modification time, not following
// a link.
func setTime(pfd int, name string, n Node) {
	ts := unix.NsecToTimespec(n.MTime.UnixNano())
	unix.UtimesNanoAt(pfd, name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}

// unixMode is a kept mode as chmod takes it.
func unixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= unix.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		u |= unix.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		u |= unix.S_ISVTX
	}
	return u
}
