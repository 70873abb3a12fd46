package osutil

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WriteFile replaces path with data so that a reader sees either the old
// file or the whole new one, never a part: it writes a temp file in the
// same folder (mode perm from the start), syncs it, renames it over path
// and syncs the folder. A crash leaves the old file in place. The folder
// is created, mode 0700, when it is missing.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	SyncDir(dir)
	return nil
}

// ReadLimited reads at most limit bytes of a file, and one more, so that
// the caller notices a file that is too big (and refuses it whole).
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// ReadPrivate reads one of agate's own files, as ReadLimited does, after
// checking that its folder is private to this user (CheckDir): a file in
// a folder someone else could change is not read, and the error wraps
// ErrNotPrivate. A folder that is not there reads as a missing file (the
// error wraps fs.ErrNotExist).
func ReadPrivate(path string, limit int64) ([]byte, error) {
	if err := CheckDir(filepath.Dir(path), false); err != nil {
		return nil, err
	}
	return ReadLimited(path, limit)
}

// keptBackups is how many backups of one file Backup keeps: the oldest
// (the file as it was before agate first changed it) and the newest.
const keptBackups = 5

// backupName matches the names Backup gives, after PATH.
var backupName = regexp.MustCompile(`^\.agate-backup-[0-9]{8}-[0-9]{6}(-[0-9]+)?$`)

// Backup writes data to PATH.agate-backup-YYYYMMDD-HHMMSS (with -2, -3,
// ... when that exists), with mode, and returns its name. It never
// replaces a file. Of the backups of path it keeps the oldest and the
// newest, five in all: editing a file again and again does not fill its
// folder.
func Backup(path string, data []byte, mode os.FileMode) (string, error) {
	name, err := backup(path, data, mode)
	if err == nil {
		pruneBackups(path)
	}
	return name, err
}

// pruneBackups removes the backups of path between the oldest and the
// keptBackups-1 newest. It removes only regular files named as Backup
// names them; what it cannot read or remove stays.
func pruneBackups(path string) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, base) && backupName.MatchString(n[len(base):]) && e.Type().IsRegular() {
			names = append(names, n)
		}
	}
	if len(names) <= keptBackups {
		return
	}
	slices.SortFunc(names, func(a, b string) int {
		sa, na := backupOrder(a[len(base):])
		sb, nb := backupOrder(b[len(base):])
		return cmp.Or(cmp.Compare(sa, sb), cmp.Compare(na, nb))
	})
	for _, n := range names[1 : len(names)-(keptBackups-1)] {
		os.Remove(filepath.Join(dir, n))
	}
}

// backupOrder returns the time stamp of a backup's name suffix
// (".agate-backup-YYYYMMDD-HHMMSS[-N]") and its N (1 when there is none).
func backupOrder(suffix string) (string, int) {
	s := strings.TrimPrefix(suffix, ".agate-backup-")
	stamp, rest := s[:15], s[15:]
	n := 1
	if rest != "" {
		n, _ = strconv.Atoi(rest[1:])
	}
	return stamp, n
}

func backup(path string, data []byte, mode os.FileMode) (string, error) {
	base := path + ".agate-backup-" + time.Now().Format("20060102-150405")
	// After the last backup of this second, not in a gap pruning left:
	// the names keep the order the backups were made in.
	first := 1
	if ms, _ := filepath.Glob(base + "-*"); len(ms) > 0 {
		for _, m := range ms {
			if n, err := strconv.Atoi(m[len(base)+1:]); err == nil && n >= first {
				first = n + 1
			}
		}
	}
	for i := first; i < first+100; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: too many backups this second", path)
}
