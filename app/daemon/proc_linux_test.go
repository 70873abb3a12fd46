package daemon

import (
	"os"
	"testing"
)

func TestStatParent(t *testing.T) {
	for _, tt := range []struct {
		stat string
		want int
	}{
		{"1234 (agate) S 77 1234 1234 0 -1", 77},
		{"1234 (a) b) (c) R 88 1 1", 88},
		{"1234 (no close S 9", 0},
		{"1234 (x) S -5 1", 0},
		{"1234 (x)", 0},
		{"", 0},
	} {
		if got := statParent([]byte(tt.stat)); got != tt.want {
			t.Errorf("%q: %d, want %d", tt.stat, got, tt.want)
		}
	}
	if parentPID(os.Getpid()) != os.Getppid() {
		t.Errorf("parentPID of this process is %d, not %d", parentPID(os.Getpid()), os.Getppid())
	}
}

func FuzzStatParent(f *testing.F) {
	f.Add([]byte("1234 (agate) S 77 1234 1234 0 -1"))
	f.Add([]byte("1 (a) b) R 2"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if statParent(b) < 0 {
			t.Fatal("a negative pid")
		}
	})
}
