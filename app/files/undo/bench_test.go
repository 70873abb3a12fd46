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
// for every keep. "budget" is the daemon's way (the keep takes the walk
// that measured); "walk-twice", measuring and then keeping, is the
// baseline; "floor" is the hard links alone.
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
		for _, way := range []string{"budget", "walk-twice"} {
			b.Run(tc.name+"/"+way, func(b *testing.B) { benchKeep(b, tc.files, tc.size, tc.inPlace, way == "budget") })
		}
	}
	// The floor: only the hard links a keep of 1,000 files makes, one
	// linkat each into a fresh folder, nothing measured, checked or
	// recorded. What a keep costs above it is agate's.
	b.Run("delete-1000/floor", func(b *testing.B) {
		proj, store := b.TempDir(), b.TempDir()
		var files []string
		for j := range 1000 {
			p := filepath.Join(proj, fmt.Sprintf("d%02d", j%20), fmt.Sprintf("f%04d.txt", j))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, make([]byte, 4096), 0o644)
			files = append(files, p)
		}
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			dir := filepath.Join(store, fmt.Sprint(i))
			os.Mkdir(dir, 0o700)
			b.StartTimer()
			for j, p := range files {
				if err := os.Link(p, filepath.Join(dir, fmt.Sprintf("%06d", j))); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func benchKeep(b *testing.B, files, size int, inPlace, budget bool) {
	s, err := Open(filepath.Join(b.TempDir(), Dir), Limits{MaxCall: 1 << 30, MaxTotal: 1 << 40, MaxFiles: 100000})
	if err != nil {
		b.Fatal(err)
	}
	proj := b.TempDir()
	data := make([]byte, size)
	target := filepath.Join(proj, "out")
	if files == 1 {
		target = filepath.Join(proj, "big.bin")
	}
	targets := []Target{{Path: target, Root: proj, InPlace: inPlace}}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if files == 1 {
			os.WriteFile(target, data, 0o644)
		} else {
			os.RemoveAll(target)
			for j := range files {
				p := filepath.Join(target, fmt.Sprintf("d%02d", j%20), fmt.Sprintf("f%04d.txt", j))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, data, 0o644)
			}
		}
		b.StartTimer()
		if budget {
			bu := s.Budget(context.Background())
			if err = bu.Take(target, proj); err == nil {
				_, err = bu.Keep(context.Background(), Meta{Tool: "Bash"}, targets)
			}
		} else {
			n, bytes, merr := s.Measure(context.Background(), target, proj)
			if err = merr; err == nil {
				err = s.Fits(n, bytes)
			}
			if err == nil {
				_, err = s.Keep(context.Background(), Meta{Tool: "Bash"}, targets)
			}
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
}
