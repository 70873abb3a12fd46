//go:build linux

package sandbox

import "testing"

// BenchmarkBwrapArgs builds bwrap's command line from a resolved plan.
func BenchmarkBwrapArgs(b *testing.B) {
	p, err := newPlan(benchOptions(b), []string{"go", "test", "./..."})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		bwrapArgs(p)
	}
}
