//go:build unix

package undo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the keeping child of TestKilledWhileKeeping when asked.
func TestMain(m *testing.M) {
	if dir := os.Getenv("AGATE_UNDO_KEEPER"); dir != "" {
		keepForever(dir)
		return
	}
	os.Exit(m.Run())
}

// keepForever makes files in dir/proj and keeps each, copies and links
// by turns, until it is killed.
func keepForever(dir string) {
	s, err := Open(filepath.Join(dir, "store"), Limits{MaxCall: 8 << 20, MaxTotal: 1 << 40, MaxFiles: 100})
	if err != nil {
		panic(err)
	}
	proj := filepath.Join(dir, "proj")
	for i := 0; ; i++ {
		p := filepath.Join(proj, fmt.Sprintf("f%06d", i))
		data := make([]byte, rand.IntN(2<<20))
		for j := range data {
			data[j] = byte(i + j)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			panic(err)
		}
		if _, err := s.Keep(context.Background(), Meta{Tool: "Bash"}, []Target{{Path: p, Root: proj, InPlace: i%2 == 0}}); err != nil {
			panic(err)
		}
	}
}

// TestKilledWhileKeeping: the daemon killed at any moment never leaves
// an entry offered whose copy is not whole. A child keeps in a loop and
// is killed at a random moment; every entry listed then holds exactly
// what its file held.
func TestKilledWhileKeeping(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process")
	}
	for round := range 4 {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "proj"), 0o755)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "AGATE_UNDO_KEEPER="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(100+rand.IntN(300)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		s, err := Open(filepath.Join(dir, "store"), testLimits)
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.List()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(list) == 0 {
			t.Fatalf("round %d: the child kept nothing before it was killed", round)
		}
		for _, e := range list {
			n := e.Items[0].Nodes[0]
			want, _ := os.ReadFile(e.Items[0].Path)
			got, err := os.ReadFile(filepath.Join(s.Dir(), e.ID, n.Blob))
			if err != nil || string(got) != string(want) || int64(len(got)) != n.Size {
				t.Errorf("round %d: entry %s offers %d bytes of %s's %d (%v)", round, e.ID, len(got), e.Items[0].Path, len(want), err)
			}
			if n.SHA256 != "" {
				sum := sha256.Sum256(want)
				if hex.EncodeToString(sum[:]) != n.SHA256 {
					t.Errorf("round %d: entry %s's hash is not its file's", round, e.ID)
				}
			}
		}
		des, _ := os.ReadDir(s.Dir())
		left := 0
		for _, de := range des {
			if strings.HasPrefix(de.Name(), ".keep-") {
				left++
			}
		}
		if left > 1 {
			t.Errorf("round %d: %d unfinished keeps left, want at most the one killed", round, left)
		}
		t.Logf("round %d: %d entries whole", round, len(list))
	}
}
