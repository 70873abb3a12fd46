//go:build unix

package undo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzEntry feeds the store records it did not write: reading one never
// panics, and restoring what it reads writes nothing outside its root.
func FuzzEntry(f *testing.F) {
	f.Add(`{"id":"0000abcd","items":[{"path":"ROOT/a","root":"ROOT","nodes":[{"type":"file","blob":"000001","size":2}]}]}`)
	f.Add(`{"id":"0000abcd","items":[{"path":"ROOT/d","root":"ROOT","nodes":[{"type":"dir","mode":493},{"rel":"l","type":"link","target":"/"},{"rel":"l/x","type":"file","blob":"000001"}]}]}`)
	f.Add(`{"id":"0000abcd","items":[{"path":"ROOT/d","root":"ROOT","nodes":[{"type":"dir"},{"rel":"../x","type":"file","blob":"000001"}]}]}`)
	f.Add(`{"id":"0000abcd","items":[{"path":"ROOT/a","root":"ROOT","nodes":[{"type":"file","blob":"../../../../etc/hostname"}]}]}`)
	f.Fuzz(func(t *testing.T, record string) {
		base := t.TempDir()
		root := filepath.Join(base, "proj")
		outside := filepath.Join(base, "outside")
		os.MkdirAll(root, 0o755)
		os.MkdirAll(outside, 0o755)
		s, err := Open(filepath.Join(base, "store"), testLimits)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(s.Dir(), "0000abcd"), 0o700)
		os.WriteFile(filepath.Join(s.Dir(), "0000abcd", "000001"), []byte("hi"), 0o600)
		record = strings.ReplaceAll(record, "ROOT", root)
		os.WriteFile(filepath.Join(s.Dir(), "0000abcd", entryFile), []byte(record), 0o600)
		list, err := s.List()
		if err != nil || len(list) != 1 {
			return
		}
		for _, it := range list[0].Items {
			if it.Root != root {
				return // a root elsewhere is the record's to name; the fuzzer must not write there
			}
		}
		s.Restore(context.Background(), "0000abcd")
		filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err == nil && !strings.HasPrefix(p, root) && !strings.HasPrefix(p, s.Dir()) && p != base && p != filepath.Dir(s.Dir()) && !strings.HasPrefix(p, outside) {
				t.Errorf("restore made %s", p)
			}
			if err == nil && strings.HasPrefix(p, outside+"/") {
				t.Errorf("restore wrote outside its root: %s", p)
			}
			return nil
		})
	})
}
