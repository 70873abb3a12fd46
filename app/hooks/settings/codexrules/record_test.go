package codexrules

import (
	"slices"
	"testing"
)

func TestRecord(t *testing.T) {
	state := t.TempDir()
	if ps, err := Recorded(state); err != nil || ps != nil {
		t.Fatalf("no record: %q, %v", ps, err)
	}
	for _, p := range []string{"/a/rules/agate.rules", "/b/rules/agate.rules", "/a/rules/agate.rules"} {
		if err := Record(state, p); err != nil {
			t.Fatal(err)
		}
	}
	if ps, err := Recorded(state); err != nil || !slices.Equal(ps, []string{"/a/rules/agate.rules", "/b/rules/agate.rules"}) {
		t.Fatalf("Recorded = %q, %v", ps, err)
	}
	if err := Forget(state, "/a/rules/agate.rules"); err != nil {
		t.Fatal(err)
	}
	if ps, _ := Recorded(state); !slices.Equal(ps, []string{"/b/rules/agate.rules"}) {
		t.Fatalf("after Forget: %q", ps)
	}
}
