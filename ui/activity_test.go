package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"fyne.io/fyne/v2/test"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

// TestActivityRestore: a call that deleted a file agate kept shows so on
// its row, and the row's Restore puts the file back as it was.
func TestActivityRestore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newTestDaemon(t, "[sandbox]\nconfine_unasked = false\n")
		cwd := t.TempDir()
		notes := filepath.Join(cwd, "notes.txt")
		if err := os.WriteFile(notes, []byte("my notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		resp, err := d.Decide(t.Context(), &api.DecideRequest{Tool: "Bash", Args: map[string]any{"command": "rm notes.txt"},
			Agent: "claude-code", Session: "s", Cwd: cwd})
		if err != nil || resp.Decision != policy.Allow || resp.Kept == nil {
			t.Fatalf("rm notes.txt: %+v %v", resp, err)
		}
		os.Remove(notes)
		d.Undo().Wait()
		fa := test.NewTempApp(t)
		s := NewSettings(fa, d, t.Logf)
		a := s.activity
		a.load()
		synctest.Wait()
		s.uiLocker.Lock()
		if len(a.records) != 1 || a.records[0].Kept == nil || !strings.Contains(activityRow(a.records[0]), "agate undo "+resp.Kept.ID) {
			s.uiLocker.Unlock()
			t.Fatalf("the row does not say what was kept: %+v", a.records)
		}
		s.uiLocker.Unlock()
		a.restore(resp.Kept.ID)
		synctest.Wait()
		s.uiLocker.Lock()
		said := a.restored
		s.uiLocker.Unlock()
		if !strings.Contains(said, "put back  "+notes) {
			t.Errorf("restore said %q", said)
		}
		if b, err := os.ReadFile(notes); err != nil || string(b) != "my notes\n" {
			t.Errorf("notes.txt after Restore: %q %v", b, err)
		}
		d.Close()
	})
}

// TestKeptNotice: a large delete that ran unasked is told, with the way
// back; a small one, or one a person allowed, is not.
func TestKeptNotice(t *testing.T) {
	ev := func(by api.Answerer, files int, bytes int64) api.Event {
		return api.Event{Type: "decision", Agent: "codex", Subject: "rm -rf data",
			Decision: &api.DecideResponse{Decision: policy.Allow, By: by, Kept: &api.Kept{ID: "0badcafe", Files: files, Bytes: bytes}}}
	}
	for _, c := range []struct {
		name string
		ev   api.Event
		want bool
	}{
		{"many files", ev(api.ByPolicy, 5000, 1<<20), true},
		{"many bytes", ev(api.ByPolicy, 3, 200<<20), true},
		{"small", ev(api.ByPolicy, 3, 1<<20), false},
		{"a person allowed it", ev(api.ByPerson, 5000, 1<<20), false},
		{"nothing kept", api.Event{Type: "decision", Decision: &api.DecideResponse{Decision: policy.Allow}}, false},
	} {
		title, body, ok := keptNotice(c.ev)
		if ok != c.want {
			t.Errorf("%s: notice %v, want %v", c.name, ok, c.want)
		}
		if ok && (!strings.Contains(body, "agate undo 0badcafe") || !strings.Contains(title, "codex")) {
			t.Errorf("%s: %q / %q", c.name, title, body)
		}
	}
}
