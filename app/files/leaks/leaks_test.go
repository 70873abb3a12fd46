package leaks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
)

func TestRecord(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	r := Open(dir)
	if ls, err := r.List(); err != nil || len(ls) != 0 {
		t.Fatalf("List of no file = %v, %v", ls, err)
	}
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	gh := Seen("0123456789ab", "GitHub token", "", "claude-code", "s1", t0)
	key := Seen("ba9876543210", KindKnown, "keystore:openai", "gemini", "s2", t0.Add(time.Minute))
	added, err := r.Add(ctx, []api.Leak{gh, key})
	if err != nil || len(added) != 2 {
		t.Fatalf("Add = %v, %v", added, err)
	}
	// Seen again, elsewhere, with a telling kind: one leak, counted.
	again := Seen("ba9876543210", "OpenAI API key", "keystore:openai", "codex", "s3", t0.Add(2*time.Minute))
	if added, err := r.Add(ctx, []api.Leak{again}); err != nil || len(added) != 0 {
		t.Fatalf("Add again = %v, %v", added, err)
	}
	ls, err := r.List()
	if err != nil || len(ls) != 2 {
		t.Fatalf("List = %v, %v", ls, err)
	}
	if l := ls[0]; l.Fingerprint != "ba9876543210" || l.Count != 2 || l.Kind != "OpenAI API key" || l.Agent != "codex" ||
		l.Where != "pasted into codex's chat, session s3" || !l.First.Equal(t0.Add(time.Minute)) {
		t.Errorf("merged leak = %+v", l)
	}
	st, err := os.Stat(r.Path())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file mode: %v, %v", st, err)
	}

	for _, tc := range []struct {
		which string
		n     int
	}{
		{"", 0}, {"01234", 0}, {"nope", 0}, {"keystore:other", 0},
		{"openai", 1}, {"012345", 1},
	} {
		cleared, err := r.Clear(ctx, tc.which)
		if err != nil || len(cleared) != tc.n {
			t.Errorf("Clear(%q) = %v, %v; want %d", tc.which, cleared, err, tc.n)
		}
	}
	if ls, _ := r.List(); len(ls) != 0 {
		t.Errorf("left after clearing: %v", ls)
	}
}

func TestRecordRefusesABrokenFile(t *testing.T) {
	dir := t.TempDir()
	r := Open(dir)
	for _, body := range []string{"{", `{"version":2,"leaks":[]}`, `{"version":1,"leaks":[{"kind":"x"}]}`, `{"version":1,"extra":1}`} {
		if err := os.WriteFile(r.Path(), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := r.List(); err == nil || !strings.Contains(err.Error(), r.Path()) {
			t.Errorf("%s: List error %v, want one naming the file", body, err)
		}
		if _, err := r.Add(context.Background(), []api.Leak{Seen("0123456789ab", "GitHub token", "", "a", "", time.Now())}); err == nil {
			t.Errorf("%s: Add wrote over a broken file", body)
		}
		if got, _ := os.ReadFile(r.Path()); string(got) != body {
			t.Errorf("%s: the file changed to %s", body, got)
		}
	}
}

func TestRecordConcurrentWriters(t *testing.T) {
	r := Open(t.TempDir())
	var wg sync.WaitGroup
	const n = 16
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fp := strings.Repeat(string(rune('a'+i)), 12)
			if _, err := Open(filepath.Dir(r.Path())).Add(context.Background(), []api.Leak{Seen(fp, "GitHub token", "", "a", "", time.Now())}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ls, err := r.List(); err != nil || len(ls) != n {
		t.Fatalf("%d leaks after %d writers: %v", len(ls), n, err)
	}
}

func TestRecordBounded(t *testing.T) {
	r := Open(t.TempDir())
	t0 := time.Now()
	var seen []api.Leak
	for i := range maxLeaks + 5 {
		seen = append(seen, Seen(strings.Repeat("0", 6)+time.Duration(i).String()+"xxxxxx", "k", "", "a", "", t0.Add(time.Duration(i)*time.Second)))
	}
	if _, err := r.Add(context.Background(), seen); err != nil {
		t.Fatal(err)
	}
	ls, err := r.List()
	if err != nil || len(ls) != maxLeaks {
		t.Fatalf("%d leaks kept, want %d: %v", len(ls), maxLeaks, err)
	}
	if !ls[len(ls)-1].Last.Equal(t0.Add(5 * time.Second).UTC()) {
		t.Errorf("the oldest kept was seen at %v: the five seen longest ago should be dropped", ls[len(ls)-1].Last)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":1,"leaks":[{"fingerprint":"0123456789ab","kind":"GitHub token","where":"x","first":"2026-12-01T12:00:00Z","last":"2026-12-01T12:00:00Z","count":1}]}`))
	f.Add([]byte(`{"version":1,"leaks":[]}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := parse("leaks.json", data)
		if err != nil {
			return
		}
		for i, l := range fl.Leaks {
			if l.Fingerprint == "" {
				t.Fatalf("leak %d without a fingerprint accepted", i)
			}
			if i > 0 && l.Last.After(fl.Leaks[i-1].Last) {
				t.Fatalf("leaks out of order")
			}
		}
	})
}
