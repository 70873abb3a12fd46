package keystore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/osutil"
)

func TestLeaks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if leaks, err := PendingLeaks(dir); err != nil || len(leaks) != 0 {
		t.Fatalf("no record: %v, %v", leaks, err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, st := range []struct {
		rotated bool
		name    string
		at      time.Duration
	}{
		{false, "keystore:openai", 0},
		{false, "GITHUB_TOKEN", time.Minute},
		{false, "keystore:openai", time.Hour},
		{true, "GITHUB_TOKEN", 2 * time.Hour},
		{false, "keystore:anthropic", 3 * time.Hour},
		{true, "keystore:anthropic", 4 * time.Hour},
		{false, "keystore:anthropic", 5 * time.Hour}, // leaked again after its rotation
	} {
		f := RecordLeak
		if st.rotated {
			f = RecordRotated
		}
		if err := f(dir, st.name, t0.Add(st.at)); err != nil {
			t.Fatal(err)
		}
	}
	leaks, err := PendingLeaks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Leak{
		{Name: "keystore:anthropic", First: t0.Add(5 * time.Hour), Last: t0.Add(5 * time.Hour), Count: 1},
		{Name: "keystore:openai", First: t0, Last: t0.Add(time.Hour), Count: 2},
	}
	if len(leaks) != len(want) {
		t.Fatalf("PendingLeaks = %+v, want %+v", leaks, want)
	}
	for i := range want {
		if leaks[i] != want[i] {
			t.Errorf("leak %d = %+v, want %+v", i, leaks[i], want[i])
		}
	}
	checkMode(t, filepath.Join(dir, LeakFile), 0o600)

	// A torn last line (a crash mid-append) is ignored; a bad line in the
	// middle is reported, and the rest still read.
	path := filepath.Join(dir, LeakFile)
	data, _ := os.ReadFile(path)
	writeFile(t, path, append(data, []byte(`{"at":"2025-03-01T`)...))
	if got, err := PendingLeaks(dir); err != nil || len(got) != 2 {
		t.Errorf("torn last line: %d leaks, %v", len(got), err)
	}
	writeFile(t, path, append([]byte("garbage\n"), data...))
	got, err := PendingLeaks(dir)
	if err == nil || !strings.Contains(err.Error(), "[1]") || len(got) != 2 {
		t.Errorf("bad first line: %d leaks, %v; want 2 and an error naming line 1", len(got), err)
	}
	if err := RecordLeak(dir, "", t0); err == nil {
		t.Error("RecordLeak accepted an empty name")
	}
}

// TestPendingLeaksChecksTheFolder: the leak record is read only from a
// state folder private to this user.
func TestPendingLeaksChecksTheFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := RecordLeak(dir, "keystore:openai", time.Now()); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	if _, err := PendingLeaks(dir); !errors.Is(err, osutil.ErrNotPrivate) {
		t.Errorf("PendingLeaks in a folder anyone can change: %v", err)
	}
}
