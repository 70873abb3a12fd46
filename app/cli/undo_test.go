package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/files/undo"
)

// TestUndoCommand: agate undo lists what was kept, newest first; agate
// undo ID puts it back, and beside a file that is there now rather than
// over it; --drop removes it; an id the store does not hold fails saying
// how to find one.
func TestUndoCommand(t *testing.T) {
	state := t.TempDir()
	t.Setenv("AGATE_STATE_DIR", state)
	proj := t.TempDir()
	s, err := undo.Open(filepath.Join(state, undo.Dir), undo.Limits{MaxCall: 1 << 20, MaxTotal: 1 << 20, MaxFiles: 10})
	if err != nil {
		t.Fatal(err)
	}
	keep := func(name, body, subject string, inPlace bool) *undo.Entry {
		t.Helper()
		p := filepath.Join(proj, name)
		if err := os.WriteFile(p, []byte(body), 0o640); err != nil {
			t.Fatal(err)
		}
		e, err := s.Keep(context.Background(), undo.Meta{Agent: "claude-code", Session: "0123456789abcdef", Tool: "Bash", Subject: subject},
			[]undo.Target{{Path: p, Root: proj, InPlace: inPlace}})
		if err != nil {
			t.Fatal(err)
		}
		s.Wait()
		return e
	}
	first := keep("notes.txt", "my notes\n", "rm notes.txt", false)
	second := keep("draft.txt", "my draft\n", "echo x > draft.txt", true) // written in place: a copy, not a link
	os.Remove(filepath.Join(proj, "notes.txt"))
	os.WriteFile(filepath.Join(proj, "draft.txt"), []byte("the agent's\n"), 0o644)

	code, out, errOut := runCLI(t, nil, "undo")
	if code != 0 {
		t.Fatalf("undo: %d %s", code, errOut)
	}
	i, j := strings.Index(out, second.ID), strings.Index(out, first.ID)
	if i < 0 || j < 0 || i > j || !strings.Contains(out, "rm notes.txt") || !strings.Contains(out, "claude-code") || !strings.Contains(out, "01234567 ") {
		t.Errorf("the list, newest first:\n%s", out)
	}
	if code, out, errOut = runCLI(t, nil, "undo", first.ID); code != 0 || !strings.Contains(out, "put back  "+filepath.Join(proj, "notes.txt")) {
		t.Errorf("undo %s: %d %s %s", first.ID, code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "notes.txt")); string(b) != "my notes\n" {
		t.Errorf("notes.txt is %q", b)
	}
	beside := filepath.Join(proj, "draft.txt.agate-undo-"+second.ID)
	if code, out, _ = runCLI(t, nil, "undo", second.ID); code != 0 || !strings.Contains(out, "kept copy is at "+beside) {
		t.Errorf("undo %s over a changed file: %d %s", second.ID, code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "draft.txt")); string(b) != "the agent's\n" {
		t.Errorf("draft.txt was written over: %q", b)
	}
	if b, _ := os.ReadFile(beside); string(b) != "my draft\n" {
		t.Errorf("the copy beside is %q", b)
	}
	if code, out, _ = runCLI(t, nil, "undo", "--drop", first.ID); code != 0 || !strings.Contains(out, "dropped "+first.ID) {
		t.Errorf("drop: %d %s", code, out)
	}
	if _, err := s.Get(first.ID); err == nil {
		t.Error("a dropped entry is still there")
	}
	if code, _, errOut = runCLI(t, nil, "undo", first.ID); code != 1 || !strings.Contains(errOut, "agate undo` lists") {
		t.Errorf("undo of a dropped id: %d %s", code, errOut)
	}
	if code, _, _ = runCLI(t, nil, "undo", "../../etc"); code == 0 {
		t.Error("an id that is a path was taken")
	}
	if code, out, _ = runCLI(t, nil, "undo", "--json"); code != 0 || !strings.Contains(out, `"id": "`+second.ID+`"`) {
		t.Errorf("--json: %d %s", code, out)
	}
}
