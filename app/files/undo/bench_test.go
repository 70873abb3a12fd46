//go:build unix

package undo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkKeep is what keeping adds to a decision: measuring what a call
// would lose and keeping it, synced, for a delete of 1, 100 and 1,000
// small files (hard links) and an overwrite of a 10 MiB file (a copy, or
// a clone where the filesystem can). The files are made again, untimed,
// for every keep.
func BenchmarkKeep(b *testing.B) {
	cases := []struct {
		name    string
		files   int
		size    int
		inPlace bool
	}{
		{"delete-1", 1, 4096, false},
		{"delete-100", 100, 4096, false},
		{"delete-1000", 1000, 4096, false},
		{"overwrite-10MiB", 1, 10 << 20, true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), Dir), Limits{MaxCall: 1 << 30, MaxTotal: 1 << 40, MaxFiles: 100000})
			if err != nil {
				b.Fatal(err)
			}
			proj := b.TempDir()
			data := make([]byte, tc.size)
			target := filepath.Join(proj, "out")
			if tc.files == 1 {
				target = filepath.Join(proj, "big.bin")
			}
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				if tc.files == 1 {
					os.WriteFile(target, data, 0o644)
				} else {
					dir := filepath.Join(proj, "out")
					os.RemoveAll(dir)
					for j := range tc.files {
						p := filepath.Join(dir, fmt.Sprintf("d%02d", j%20), fmt.Sprintf("f%04d.txt", j))
						os.MkdirAll(filepath.Dir(p), 0o755)
						os.WriteFile(p, data, 0o644)
					}
				}
				b.StartTimer()
				files, bytes, err := s.Measure(target, proj)
				if err == nil {
					err = s.Fits(files, bytes)
				}
				if err == nil {
					_, err = s.Keep(context.Background(), Meta{Tool: "Bash"}, []Target{{Path: target, Root: proj, InPlace: tc.inPlace}})
				}
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.Wait()
				if i%20 == 19 {
					list, _ := s.List()
					for _, e := range list {
						s.Drop(e.ID)
					}
				}
				b.StartTimer()
			}
		})
	}
}
