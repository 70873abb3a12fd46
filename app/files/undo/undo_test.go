//go:build unix

package undo

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var testLimits = Limits{MaxCall: 64 << 20, MaxTotal: 256 << 20, MaxFiles: 5000, MaxAge: time.Hour}

func newStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "state", Dir), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	s.Secret = func(rel string, dir bool) bool {
		base := filepath.Base(rel)
		return base == ".env" || strings.HasSuffix(base, ".pem")
	}
	t.Cleanup(s.Wait) // (before the folder goes: a seal still writing would fail its removal)
	return s
}

func write(t testing.TB, p, data string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// snapshot is what a tree holds, file by file: content, mode, time, link
// target.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		if rel == ".git" {
			return fs.SkipDir
		}
		info, _ := d.Info()
		v := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case info.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			v += " " + info.ModTime().Format(time.RFC3339Nano) + " " + string(data)
		}
		out[rel] = v
		return nil
	})
	return out
}

func diff(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k+": "+v+" | now "+b[k])
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+": new "+b[k])
		}
	}
	return out
}

// TestRestoreExactInGitRepo: what a call deletes and overwrites in a real
// git repository (untracked files, a changed tracked file, an ignored
// folder with a link out, an executable with an old time) comes back
// exactly: content, mode, time, links as links, and git sees the same
// repository.
func TestRestoreExactInGitRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	s := newStore(t)
	proj := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(outside, "theirs.txt"), "not in the project", 0o644)
	git(t, proj, "init", "-q")
	write(t, filepath.Join(proj, ".gitignore"), "cache/\n", 0o644)
	write(t, filepath.Join(proj, "main.go"), "package main\n", 0o644)
	write(t, filepath.Join(proj, "tracked.txt"), "committed\n", 0o644)
	git(t, proj, "add", ".")
	git(t, proj, "commit", "-q", "-m", "first")
	write(t, filepath.Join(proj, "tracked.txt"), "committed\nand changed since\n", 0o644)
	write(t, filepath.Join(proj, "notes.txt"), "the person's notes\n", 0o600)
	write(t, filepath.Join(proj, "scratch", "run.sh"), "#!/bin/sh\necho hi\n", 0o755)
	write(t, filepath.Join(proj, "scratch", "deep", "data.bin"), string(bytes.Repeat([]byte{0, 1, 2, 255}, 4096)), 0o640)
	old := time.Date(2020, 1, 2, 3, 4, 5, 123456789, time.UTC)
	os.Chtimes(filepath.Join(proj, "scratch", "run.sh"), old, old)
	write(t, filepath.Join(proj, "cache", "blob"), "cached", 0o644)
	if err := os.Symlink(outside, filepath.Join(proj, "cache", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("notes.txt", filepath.Join(proj, "link-to-notes")); err != nil {
		t.Fatal(err)
	}
	before, status := snapshot(t, proj), git(t, proj, "status", "--porcelain", "--ignored")

	e, err := s.Keep(context.Background(), Meta{Agent: "claude-code", Tool: "Bash", Subject: "rm -rf scratch cache notes.txt link-to-notes; echo x > tracked.txt"}, []Target{
		{Path: filepath.Join(proj, "scratch"), Root: proj},
		{Path: filepath.Join(proj, "cache"), Root: proj},
		{Path: filepath.Join(proj, "notes.txt"), Root: proj},
		{Path: filepath.Join(proj, "link-to-notes"), Root: proj},
		{Path: filepath.Join(proj, "tracked.txt"), Root: proj, InPlace: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.Files != 5 || e.Bytes == 0 {
		t.Errorf("kept %d files, %d bytes; want 5 files", e.Files, e.Bytes)
	}
	for _, it := range e.Items {
		for _, n := range it.Nodes {
			if n.Type == TypeFile && strings.HasSuffix(it.Path, "tracked.txt") && n.How == "link" {
				t.Errorf("a file written in place was kept as a hard link")
			}
		}
	}
	// The call runs.
	for _, p := range []string{"scratch", "cache", "notes.txt", "link-to-notes"} {
		if err := os.RemoveAll(filepath.Join(proj, p)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(proj, "tracked.txt"), "x\n", 0o644)
	s.Wait()
	if _, err := os.Stat(filepath.Join(outside, "theirs.txt")); err != nil {
		t.Fatalf("the delete went through the link: %v", err)
	}
	os.Remove(filepath.Join(proj, "tracked.txt")) // the person wants the kept one
	res, err := s.Restore(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) > 0 || len(res.Beside) > 0 {
		t.Fatalf("restore: failed %v, beside %v", res.Failed, res.Beside)
	}
	if d := diff(before, snapshot(t, proj)); len(d) > 0 {
		t.Errorf("restored tree differs:\n%s", strings.Join(d, "\n"))
	}
	if now := git(t, proj, "status", "--porcelain", "--ignored"); now != status {
		t.Errorf("git status was\n%s\nnow\n%s", status, now)
	}
	// Again: everything is already there.
	res, err = s.Restore(context.Background(), e.ID)
	if err != nil || len(res.Put) > 0 || len(res.Beside) > 0 || len(res.Failed) > 0 {
		t.Errorf("second restore: %+v, %v", res, err)
	}
}

// TestRestoreNeverOverwrites: a path where something new is now gets the
// kept copy beside it, and what is there is left as it is.
func TestRestoreNeverOverwrites(t *testing.T) {
	s := newStore(t)
	proj := t.TempDir()
	p := filepath.Join(proj, "a.txt")
	write(t, p, "kept", 0o644)
	e, err := s.Keep(context.Background(), Meta{}, []Target{{Path: p, Root: proj}})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	write(t, p, "written since", 0o644)
	res, err := s.Restore(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Beside) != 1 || res.Beside[0].As != p+".agate-undo-"+e.ID {
		t.Fatalf("beside = %+v", res.Beside)
	}
	if got, _ := os.ReadFile(p); string(got) != "written since" {
		t.Errorf("the new file was changed: %q", got)
	}
	if got, _ := os.ReadFile(res.Beside[0].As); string(got) != "kept" {
		t.Errorf("the kept copy beside holds %q", got)
	}
}

// TestRestoreRefusesLinkedParent: a folder on the way that has become a
// link makes restore refuse, and nothing is written where it points.
func TestRestoreRefusesLinkedParent(t *testing.T) {
	s := newStore(t)
	proj, elsewhere := t.TempDir(), t.TempDir()
	p := filepath.Join(proj, "sub", "a.txt")
	write(t, p, "kept", 0o644)
	e, err := s.Keep(context.Background(), Meta{}, []Target{{Path: p, Root: proj}})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(proj, "sub"))
	if err := os.Symlink(elsewhere, filepath.Join(proj, "sub")); err != nil {
		t.Fatal(err)
	}
	res, err := s.Restore(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Why, "is now a link") {
		t.Errorf("failed = %+v, want the link refused", res.Failed)
	}
	if des, _ := os.ReadDir(elsewhere); len(des) > 0 {
		t.Errorf("restore wrote through the link: %v", des)
	}
}

// TestKeptLinkChangedInPlace: a file kept as a hard link that is then
// written in place (the judgment was wrong) is not put back as if it
// were what was kept.
func TestKeptLinkChangedInPlace(t *testing.T) {
	s := newStore(t)
	proj := t.TempDir()
	p := filepath.Join(proj, "a.txt")
	write(t, p, "original", 0o644)
	os.Chtimes(p, time.Unix(1e9, 0), time.Unix(1e9, 0))
	e, err := s.Keep(context.Background(), Meta{}, []Target{{Path: p, Root: proj}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Items[0].Nodes[0].How != "link" {
		t.Skipf("kept as %s, not a hard link", e.Items[0].Nodes[0].How)
	}
	if err := os.WriteFile(p, []byte("rewritten"), 0o644); err != nil { // in place: same inode
		t.Fatal(err)
	}
	s.Wait()
	os.Remove(p)
	res, err := s.Restore(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || len(res.Put) != 0 {
		t.Fatalf("restore of a changed copy: %+v", res)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("something was put back: %v", err)
	}
}

// TestKeepRefuses: secrets, special files and the limits keep nothing,
// each with its sentinel error, and leave nothing in the store.
func TestKeepRefuses(t *testing.T) {
	proj := t.TempDir()
	write(t, filepath.Join(proj, "app", ".env"), "TOKEN=x", 0o600)
	write(t, filepath.Join(proj, "big.bin"), strings.Repeat("x", 4096), 0o644)
	for i := range 20 {
		write(t, filepath.Join(proj, "many", string(rune('a'+i))), "x", 0o644)
	}
	fifo := filepath.Join(proj, "pipe")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Skip("no mkfifo")
	}
	cases := []struct {
		name string
		lim  Limits
		path string
		want error
	}{
		{"a folder holding .env", testLimits, filepath.Join(proj, "app"), ErrSecret},
		{"a FIFO", testLimits, fifo, ErrSpecial},
		{"more bytes than one call may keep", Limits{MaxCall: 1024, MaxTotal: 1 << 20, MaxFiles: 100}, filepath.Join(proj, "big.bin"), ErrLimit},
		{"more files than one call may keep", Limits{MaxCall: 1 << 20, MaxTotal: 1 << 20, MaxFiles: 10}, filepath.Join(proj, "many"), ErrLimit},
		{"more than the store may hold", Limits{MaxCall: 1 << 20, MaxTotal: 1000, MaxFiles: 100}, filepath.Join(proj, "big.bin"), ErrLimit},
		{"less free space than the floor", Limits{MaxCall: 1 << 20, MaxTotal: 1 << 20, MaxFiles: 100, MinFree: 1 << 62}, filepath.Join(proj, "big.bin"), ErrLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			s.SetLimits(tc.lim)
			if _, err := s.Keep(context.Background(), Meta{}, []Target{{Path: tc.path, Root: proj}}); !errors.Is(err, tc.want) {
				t.Errorf("Keep: %v, want %v", err, tc.want)
			}
			files, bytes, err := s.Measure(context.Background(), tc.path, proj)
			if err == nil {
				err = s.Fits(files, bytes)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("Measure and Fits: %v, want %v", err, tc.want)
			}
			if des, _ := os.ReadDir(s.Dir()); len(des) > 0 {
				t.Errorf("the store holds %v after a refused keep", des)
			}
		})
	}
}

// TestListDropPrune: entries list newest first, a drop stops offering one
// at once, and prune takes the old ones and what unfinished keeps left.
func TestListDropPrune(t *testing.T) {
	s := newStore(t)
	proj := t.TempDir()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return clock }
	var ids []string
	for i := range 3 {
		p := filepath.Join(proj, string(rune('a'+i)))
		write(t, p, "x", 0o644)
		e, err := s.Keep(context.Background(), Meta{Tool: "Bash"}, []Target{{Path: p, Root: proj}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
		clock = clock.Add(30 * time.Minute)
	}
	s.Wait()
	os.Mkdir(filepath.Join(s.Dir(), ".keep-deadbeef"), 0o700) // a keep that died
	list, err := s.List()
	if err != nil || len(list) != 3 || list[0].ID != ids[2] || list[2].ID != ids[0] {
		t.Fatalf("list: %v %v", list, err)
	}
	if !list[0].Sealed || list[0].Items[0].Nodes[0].SHA256 == "" {
		t.Errorf("entry not sealed: %+v", list[0])
	}
	if err := s.Drop(ids[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ids[1]); !errors.Is(err, ErrNotFound) {
		t.Errorf("dropped entry: %v", err)
	}
	if err := s.Drop("../../etc"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Drop of a path: %v", err)
	}
	clock = clock.Add(2 * time.Hour) // past MaxAge for ids[0] only? all are older than 1h now
	dropped, err := s.Prune(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 2 {
		t.Errorf("pruned %v, want the two left", dropped)
	}
	if u := s.Used(); u != 0 {
		t.Errorf("used %d after all went", u)
	}
}

// TestEntryCheck: a record that names a path outside its root, a node
// climbing out, or a kept file by a path is refused when read.
func TestEntryCheck(t *testing.T) {
	bad := []Entry{
		{Items: []Item{{Path: "/etc/passwd", Root: "/home/u/proj"}}},
		{Items: []Item{{Path: "/home/u/proj/a", Root: "/home/u/proj", Nodes: []Node{{Type: TypeDir}, {Rel: "../../x", Type: TypeFile, Blob: "000001"}}}}},
		{Items: []Item{{Path: "/home/u/proj/a", Root: "/home/u/proj", Nodes: []Node{{Type: TypeFile, Blob: "../../../etc/shadow"}}}}},
		{Items: []Item{{Path: "/home/u/proj/../a", Root: "/home/u/proj"}}},
		{Items: []Item{{Path: "/home/u/proj/a", Root: "/home/u/proj", Nodes: []Node{{Type: TypeDir}, {Type: TypeFile, Blob: "000001"}}}}},
	}
	for i, e := range bad {
		if err := e.check(); err == nil {
			t.Errorf("%d: %+v passed", i, e)
		}
	}
}

// TestKeepSwappedForLink: a file swapped for a link between the walk that
// measured it and the keep (an agent racing agate to have it keep a link
// to a secret) is refused at keep time: what linkat made is not the file
// measured, and a copy opens nothing through a link. Nothing is kept, so
// the call asks, and the secret is never put back.
func TestKeepSwappedForLink(t *testing.T) {
	s := newStore(t)
	proj := t.TempDir()
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	write(t, secret, "PRIVATE KEY", 0o600)
	p := filepath.Join(proj, "notes.txt")
	write(t, p, "PRIVATE KEX", 0o644) // the same size as the secret
	b := s.Budget(context.Background())
	if err := b.Take(p, proj); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Lstat(p)
	os.Remove(p)
	if err := os.Symlink(secret, p); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(secret, info.ModTime(), info.ModTime()) // and the same time
	e, err := b.Keep(context.Background(), Meta{}, []Target{{Path: p, Root: proj}})
	if err == nil {
		t.Fatalf("kept %s, swapped for a link since it was measured", e.ID)
	}
	if des, _ := os.ReadDir(s.Dir()); len(des) > 0 {
		t.Errorf("the store holds %v after a refused keep", des)
	}
}

// TestBudgetKeepsWhatItWalked: a budget's keep holds what its walk saw,
// byte for byte, without walking again.
func TestBudgetKeepsWhatItWalked(t *testing.T) {
	s := newStore(t)
	proj := t.TempDir()
	write(t, filepath.Join(proj, "out", "a.txt"), "a", 0o644)
	write(t, filepath.Join(proj, "out", "sub", "b.txt"), "bb", 0o600)
	b := s.Budget(context.Background())
	if err := b.Take(filepath.Join(proj, "out"), proj); err != nil {
		t.Fatal(err)
	}
	if err := b.Take(filepath.Join(proj, "out", "a.txt"), proj); err != nil { // counted with out
		t.Fatal(err)
	}
	e, err := b.Keep(context.Background(), Meta{}, []Target{{Path: filepath.Join(proj, "out"), Root: proj}})
	if err != nil || e.Files != 2 || e.Bytes != 3 {
		t.Fatalf("%+v %v", e, err)
	}
	s.Wait()
	os.RemoveAll(filepath.Join(proj, "out"))
	if res, err := s.Restore(context.Background(), e.ID); err != nil || len(res.Failed) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(proj, "out", "sub", "b.txt")); string(got) != "bb" {
		t.Errorf("b.txt is %q", got)
	}
}
