package undo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecordTooBigIsRefused: a keep whose record would pass what the
// store reads back (many links with long targets: each costs nothing on
// disk) is refused before it is offered, so no entry exists that cannot
// be restored, listed or pruned; links count toward max_files.
func TestRecordTooBigIsRefused(t *testing.T) {
	old := maxEntryFile
	maxEntryFile = 16 << 10
	t.Cleanup(func() { maxEntryFile = old })
	s := newStore(t)
	proj := t.TempDir()
	dir := filepath.Join(proj, "links")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("<", 400)
	for i := range 60 {
		if err := os.Symlink(long, filepath.Join(dir, "l"+string(rune('A'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Keep(context.Background(), Meta{}, []Target{{Path: dir, Root: proj}})
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("Keep of a record past the read limit: %v, want ErrLimit", err)
	}
	if des, _ := os.ReadDir(s.Dir()); len(des) > 0 {
		t.Errorf("the store holds %v after a refused keep", des)
	}
	// The links are counted: 61 entries pass max_files 50.
	s.SetLimits(Limits{MaxCall: 1 << 20, MaxTotal: 1 << 20, MaxFiles: 50})
	if _, _, err := s.Measure(context.Background(), dir, proj); !errors.Is(err, ErrLimit) {
		t.Errorf("Measure of 61 links and a folder under max_files 50: %v, want ErrLimit", err)
	}
	// And a walk stops when its context is done.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.Measure(ctx, dir, proj); !errors.Is(err, context.Canceled) {
		t.Errorf("Measure with a done context: %v", err)
	}
}

// TestUnreadableEntryStillCounts: an entry whose record was damaged is
// counted by what its folder holds, and goes by its folder's age.
func TestUnreadableEntryStillCounts(t *testing.T) {
	s := newStore(t)
	clock := time.Now()
	s.Now = func() time.Time { return clock }
	proj := t.TempDir()
	f := filepath.Join(proj, "a")
	if err := os.WriteFile(f, make([]byte, 10000), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := s.Keep(context.Background(), Meta{}, []Target{{Path: f, Root: proj, InPlace: true}})
	if err != nil {
		t.Fatal(err)
	}
	s.Wait()
	if err := os.WriteFile(filepath.Join(s.Dir(), e.ID, entryFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(); err == nil {
		t.Error("List of a damaged record says nothing")
	}
	if u := s.Used(); u < 10000 {
		t.Errorf("Used = %d, want the damaged entry's 10000 bytes counted", u)
	}
	if gone, _ := s.Prune(context.Background()); len(gone) != 0 {
		t.Errorf("Prune dropped %v, younger than max_age", gone)
	}
	clock = clock.Add(2 * time.Hour)
	gone, err := s.Prune(context.Background())
	if len(gone) != 1 || gone[0] != e.ID {
		t.Errorf("Prune = %v, %v; want the damaged %s gone by its age", gone, err, e.ID)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), e.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("its folder is still there: %v", err)
	}
}

// TestRestoreLeavesWhatItDidNotMake: a file already at the name a
// restore would write its copy under first is neither used nor removed,
// and a folder on the way that is gone is made private.
func TestRestoreLeavesWhatItDidNotMake(t *testing.T) {
	s := newStore(t)
	proj := t.TempDir()
	p := filepath.Join(proj, "sub", "a.txt")
	write(t, p, "kept", 0o644)
	e, err := s.Keep(context.Background(), Meta{}, []Target{{Path: p, Root: proj}})
	if err != nil {
		t.Fatal(err)
	}
	s.Wait()
	if err := os.RemoveAll(filepath.Join(proj, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	squat := filepath.Join(proj, "sub", ".agate-undo-"+e.ID+"-1.tmp")
	write(t, squat, "someone's", 0o644)
	res, err := s.Restore(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(squat); err != nil || string(b) != "someone's" {
		t.Errorf("the file at the restore's temporary name: %q, %v (restore %+v)", b, err, res)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "kept" || len(res.Put) != 1 {
		t.Errorf("restored beside a squatted temporary name: %q, %v (restore %+v)", b, err, res)
	}
	// The folder on the way, gone, is made 0700.
	if err := os.RemoveAll(filepath.Join(proj, "sub")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(context.Background(), e.ID); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "kept" {
		t.Fatalf("restored %q, %v", b, err)
	}
	if st, err := os.Stat(filepath.Join(proj, "sub")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the folder made on the way: %v, %v; want 0700", st.Mode(), err)
	}
}
