package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/osutil"
)

// TestStateFolderChecked: the last good copy of the config and the pause
// are read from the state folder only when it is private to this user: in
// a folder someone else could change, a planted copy or pause is refused,
// not obeyed.
func TestStateFolderChecked(t *testing.T) {
	dir := t.TempDir()
	p := api.Paths{Config: filepath.Join(dir, "config.toml"), State: filepath.Join(dir, "state")}
	p.Grants = filepath.Join(dir, "grants.toml")
	os.WriteFile(p.Config, []byte("[auto]\nmode = \"plan\"\n"), 0o600)
	if err := SaveLastGood(p, []byte("[auto]\nmode = \"plan\"\n"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := Pause(p, time.Now()); err != nil {
		t.Fatal(err)
	}
	os.Remove(p.Config)
	if ct, err := ReadFile(p, ReadOnly); err != nil || ct.Source != lastGoodPath(p) {
		t.Fatalf("a private folder: the copy %q, %v", ct.Source, err)
	}

	os.Chmod(p.State, 0o777)
	if _, err := ReadFile(p, ReadOnly); !errors.Is(err, osutil.ErrNotPrivate) || !errors.Is(err, ErrMissing) {
		t.Errorf("the copy read from a folder anyone can change: %v", err)
	}
	if _, err := Read(p); err == nil {
		t.Error("Read used the copy from a folder anyone can change")
	}
	if _, _, err := Paused(p); !errors.Is(err, osutil.ErrNotPrivate) {
		t.Errorf("the pause read from a folder anyone can change: %v", err)
	}
}
