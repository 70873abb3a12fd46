package osutil

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestEditFile(t *testing.T) {
	upper := func(data []byte) ([]byte, bool, error) {
		out := []byte(strings.ToUpper(string(data)))
		return out, string(out) != string(data), nil
	}
	t.Run("through a link, backed up, mode kept", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "real.json")
		os.WriteFile(real, []byte("abc"), 0o640)
		link := filepath.Join(dir, "link.json")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		ed, err := EditFile(link, 1<<20, upper)
		if err != nil || !ed.Changed || ed.Target != real {
			t.Fatalf("EditFile = %+v, %v", ed, err)
		}
		if b, _ := os.ReadFile(real); string(b) != "ABC" {
			t.Errorf("file = %q", b)
		}
		if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
			t.Error("the link was replaced by a file")
		}
		if st, _ := os.Stat(real); st.Mode().Perm() != 0o640 {
			t.Errorf("mode %v", st.Mode().Perm())
		}
		if b, err := os.ReadFile(ed.Backup); err != nil || string(b) != "abc" {
			t.Errorf("backup %q: %q, %v", ed.Backup, b, err)
		}
	})
	t.Run("no change writes nothing", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "f")
		os.WriteFile(p, []byte("ABC"), 0o600)
		if ed, err := EditFile(p, 1<<20, upper); err != nil || ed.Changed || ed.Backup != "" {
			t.Fatalf("EditFile = %+v, %v", ed, err)
		}
	})
	t.Run("a missing file is nil and gets no backup", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "new.json")
		ed, err := EditFile(p, 1<<20, func(data []byte) ([]byte, bool, error) {
			if data != nil {
				t.Errorf("data %q for a missing file", data)
			}
			return []byte("{}"), true, nil
		})
		if err != nil || !ed.Changed || ed.Backup != "" {
			t.Fatalf("EditFile = %+v, %v", ed, err)
		}
	})
	t.Run("saved meanwhile: edited again from the new content", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "f")
		os.WriteFile(p, []byte("one"), 0o600)
		calls := 0
		ed, err := EditFile(p, 1<<20, func(data []byte) ([]byte, bool, error) {
			calls++
			if calls == 1 {
				os.WriteFile(p, []byte("two"), 0o600) // the owner saves
			}
			return upper(data)
		})
		if b, _ := os.ReadFile(p); err != nil || !ed.Changed || calls != 2 || string(b) != "TWO" {
			t.Fatalf("EditFile = %+v, %v after %d calls: %q", ed, err, calls, b)
		}
	})
	t.Run("keeps changing", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "f")
		os.WriteFile(p, []byte("x"), 0o600)
		n := 0
		_, err := EditFile(p, 1<<20, func(data []byte) ([]byte, bool, error) {
			n++
			os.WriteFile(p, []byte(strings.Repeat("y", n)), 0o600)
			return []byte("z"), true, nil
		})
		if err == nil || !strings.Contains(err.Error(), "keeps changing") {
			t.Fatalf("err = %v", err)
		}
		if b, _ := os.ReadFile(p); string(b) == "z" {
			t.Error("written over the owner's last save")
		}
	})
	t.Run("not regular, too big", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := EditFile(dir, 1<<20, upper); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a folder: %v", err)
		}
		p := filepath.Join(dir, "big")
		os.WriteFile(p, make([]byte, 2<<20), 0o600)
		if _, err := EditFile(p, 1<<20, upper); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
			t.Errorf("too big: %v", err)
		}
	})
}

// TestEditFileConcurrent: edits of one file at once (two agate commands
// installing into the same config) all land: none is lost to another's
// write.
func TestEditFileConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte("# start\n"), 0o600)
	const workers, each = 6, 15
	errs := make(chan error, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				line := fmt.Sprintf("w%d = %d\n", w, i)
				_, err := EditFile(path, 1<<20, func(data []byte) ([]byte, bool, error) {
					return append(bytes.Clone(data), line...), true, nil
				})
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	if got := strings.Count(string(b), "\n"); got != 1+workers*each {
		t.Errorf("%d lines, want %d: edits were lost", got, 1+workers*each)
	}
}

// TestEditFileDanglingLink: a link to a file that is not there (a
// dotfiles checkout not made yet) is not replaced by a file of agate's.
func TestEditFileDanglingLink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "config.toml")
	if err := os.Symlink(filepath.Join(dir, "dotfiles", "config.toml"), link); err != nil {
		t.Fatal(err)
	}
	_, err := EditFile(link, 1<<20, func([]byte) ([]byte, bool, error) { return []byte("x = 1\n"), true, nil })
	if err == nil {
		t.Error("wrote over a dangling link")
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone: %v", err)
	}
}

// TestBackupsKept: of a file's backups, the oldest (the file before
// agate's first edit) and the four newest stay; other files stay too.
func TestBackupsKept(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	other := filepath.Join(dir, "settings.json.agate-backup-notes.txt")
	os.WriteFile(other, []byte("mine"), 0o600)
	var made []string
	for i := range 12 {
		name, err := Backup(p, []byte{byte('a' + i)}, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, name)
	}
	var left []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		left = append(left, filepath.Join(dir, e.Name()))
	}
	want := append([]string{made[0]}, made[len(made)-4:]...)
	for _, w := range append(want, other) {
		if !slices.Contains(left, w) {
			t.Errorf("%s was removed; left: %q", filepath.Base(w), left)
		}
	}
	if len(left) != len(want)+1 {
		t.Errorf("left %d files, want %d: %q", len(left), len(want)+1, left)
	}
	if b, _ := os.ReadFile(made[0]); string(b) != "a" {
		t.Errorf("the oldest backup holds %q", b)
	}
}
