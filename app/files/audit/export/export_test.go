package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agatehq/agate/app/files/audit"
)

// received is one log record a collector got, decoded from OTLP/HTTP
// JSON as a receiver would.
type received struct {
	time  int64
	body  string
	attrs [][2]any
	m     map[string]any
}

// collector is an OTLP/HTTP logs endpoint for tests: it keeps what it
// is sent, or answers with fail while it is set.
type collector struct {
	mu     sync.Mutex
	got    []received
	header http.Header
	fail   int
	calls  int
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if r.URL.Path != "/v1/logs" || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want POST /v1/logs, JSON", http.StatusBadRequest)
		return
	}
	if c.fail != 0 {
		http.Error(w, "down", c.fail)
		return
	}
	c.header = r.Header.Clone()
	var req struct {
		ResourceLogs []struct {
			ScopeLogs []struct {
				LogRecords []struct {
					TimeUnixNano string
					Body         struct{ StringValue string }
					Attributes   []struct {
						Key   string
						Value struct {
							StringValue *string
							IntValue    *string
							BoolValue   *bool
						}
					}
				}
			}
		}
	}
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, rl := range req.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			for _, lr := range sl.LogRecords {
				t, _ := strconv.ParseInt(lr.TimeUnixNano, 10, 64)
				x := received{time: t, body: lr.Body.StringValue, m: map[string]any{}}
				for _, a := range lr.Attributes {
					var v any
					switch {
					case a.Value.StringValue != nil:
						v = *a.Value.StringValue
					case a.Value.IntValue != nil:
						n, _ := strconv.ParseInt(*a.Value.IntValue, 10, 64)
						v = n
					case a.Value.BoolValue != nil:
						v = *a.Value.BoolValue
					}
					x.attrs = append(x.attrs, [2]any{a.Key, v})
					x.m[a.Key] = v
				}
				c.got = append(c.got, x)
			}
		}
	}
	w.Write([]byte(`{}`))
}

// unique is what was received with duplicates dropped by record id, as
// a receiver does, in order.
func (c *collector) unique() []received {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[any]bool{}
	var out []received
	for _, r := range c.got {
		id := r.m["agate.record.id"]
		if id == nil {
			id = r.m["agate.export.hash"]
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, r)
		}
	}
	return out
}

// verifyChain checks the export chain as a receiver would, from the
// README's words: each hash is the SHA-256 of the previous hash, a
// newline, and the record's time, body and attributes but its hash.
func verifyChain(t *testing.T, recs []received) {
	t.Helper()
	prev := ""
	for i, r := range recs {
		var attrs [][2]any
		var hash string
		for _, kv := range r.attrs {
			if kv[0] == "agate.export.hash" {
				hash = kv[1].(string)
				continue
			}
			attrs = append(attrs, kv)
		}
		if r.m["agate.export.prev"] != prev && !(prev == "" && r.m["agate.export.prev"] == nil) {
			t.Fatalf("record %d: prev %v, want %q", i, r.m["agate.export.prev"], prev)
		}
		b, _ := json.Marshal(struct {
			Time  int64    `json:"t"`
			Body  string   `json:"b"`
			Attrs [][2]any `json:"a"`
		}{r.time, r.body, attrs})
		h := sha256.New()
		io.WriteString(h, prev)
		h.Write([]byte("\n"))
		h.Write(b)
		if got := hex.EncodeToString(h.Sum(nil)); got != hash {
			t.Fatalf("record %d: hash %s, the chain says %s", i, hash, got)
		}
		prev = hash
	}
}

func writeLog(t *testing.T, l *audit.Log, n int, subject string) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := l.Append(context.Background(), &audit.Record{Event: "decision", Agent: "claude-code", Tool: "Bash", Subject: subject, Decision: "allow", Layer: "risk"}); err != nil {
			t.Fatal(err)
		}
	}
}

func newExporter(t *testing.T, dir, endpoint string) *Exporter {
	return New(Options{Log: filepath.Join(dir, "audit.jsonl"), State: filepath.Join(dir, "export.json"),
		Target: func() (Target, error) {
			return Target{Endpoint: endpoint, Header: http.Header{"Authorization": {"Bearer tok"}}, Resource: map[string]string{"service.name": "agate"}}, nil
		}})
}

// TestExportAtLeastOnce: every record arrives, in order, with its id and
// a chain a receiver checks; while the collector is down nothing is
// lost; a batch sent again after a crash before the cursor was written
// is dropped by its ids.
func TestExportAtLeastOnce(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(filepath.Join(dir, "audit.jsonl"), 10<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	e := newExporter(t, dir, srv.URL)
	ctx := context.Background()

	writeLog(t, l, 300, "ls -la")
	if err := e.Round(ctx); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	calls := c.calls
	c.mu.Unlock()
	if n := len(c.unique()); n != 300 || calls != 2 {
		t.Fatalf("%d records in %d requests", n, calls)
	}
	if c.header.Get("Authorization") != "Bearer tok" {
		t.Errorf("headers %v", c.header)
	}
	// Down: nothing is lost, the cursor stays.
	c.fail = http.StatusServiceUnavailable
	writeLog(t, l, 10, "make test")
	if err := e.Round(ctx); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a round with the collector down: %v", err)
	}
	if cur, _ := ReadCursor(filepath.Join(dir, "export.json")); cur.Seq != 300 {
		t.Fatalf("cursor %d after a failure", cur.Seq)
	}
	c.fail = 0
	if err := e.Round(ctx); err != nil {
		t.Fatal(err)
	}
	// A crash after the send, before the cursor: sent again.
	cur, _ := ReadCursor(filepath.Join(dir, "export.json"))
	writeLog(t, l, 5, "go vet ./...")
	if err := e.Round(ctx); err != nil {
		t.Fatal(err)
	}
	writeCursor(filepath.Join(dir, "export.json"), cur)
	e2 := newExporter(t, dir, srv.URL) // a new daemon
	if err := e2.Round(ctx); err != nil {
		t.Fatal(err)
	}
	got := c.unique()
	if len(got) != 315 || len(c.got) != 320 {
		t.Fatalf("%d unique of %d received, want 315 of 320", len(got), len(c.got))
	}
	for i, r := range got {
		if r.m["agate.seq"] != int64(i+1) {
			t.Fatalf("record %d has seq %v", i, r.m["agate.seq"])
		}
	}
	verifyChain(t, got)
}

// TestExportGap: records rotated out of the log before they were
// exported are named by one gap record; the rest arrive.
func TestExportGap(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(filepath.Join(dir, "audit.jsonl"), 1, 1) // every line rotates; one old file kept
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	writeLog(t, l, 6, "ls")
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	if err := newExporter(t, dir, srv.URL).Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := c.unique()
	if len(got) < 2 || got[0].m["agate.event"] != "export.gap" || got[0].m["agate.gap.from"] != int64(1) {
		t.Fatalf("no gap first: %+v", got)
	}
	verifyChain(t, got)
}

// TestCut: a heredoc's body and long quoted strings go, each named by
// its length and hash; a long command is cut.
func TestCut(t *testing.T) {
	secretish := strings.Repeat("Z", 80)
	for _, tt := range []struct{ in, gone, keep string }{
		{"cat > x <<'EOF'\n" + secretish + "\nEOF\necho done", secretish, "<<[heredoc: "},
		{`curl -d "` + secretish + `" https://x`, secretish, "[string: 82 bytes"},
		{strings.Repeat("a ", 400), strings.Repeat("a ", 300), " more]"},
		{"git status", "", "git status"},
	} {
		got := Cut(tt.in)
		if (tt.gone != "" && strings.Contains(got, tt.gone)) || !strings.Contains(got, tt.keep) || len(got) > MaxText+80 {
			t.Errorf("Cut(%.30q) = %.120q", tt.in, got)
		}
	}
}

// TestExportRedirectRefused: a collector that redirects is a failure,
// never followed with the headers.
func TestExportRedirectRefused(t *testing.T) {
	dir := t.TempDir()
	l, _ := audit.Open(filepath.Join(dir, "audit.jsonl"), 10<<20, 3)
	defer l.Close()
	writeLog(t, l, 1, "ls")
	var followed bool
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed = true }))
	defer other.Close()
	srv := httptest.NewServer(http.RedirectHandler(other.URL+"/v1/logs", http.StatusTemporaryRedirect))
	defer srv.Close()
	if err := newExporter(t, dir, srv.URL).Round(context.Background()); err == nil || followed {
		t.Fatalf("err %v, followed %v", err, followed)
	}
}

// TestExportRun: Run sends what is written, woken by the log.
func TestExportRun(t *testing.T) {
	dir := t.TempDir()
	l, _ := audit.Open(filepath.Join(dir, "audit.jsonl"), 10<<20, 3)
	defer l.Close()
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	e := New(Options{Log: filepath.Join(dir, "audit.jsonl"), State: filepath.Join(dir, "export.json"), Changed: l.Changed(), Poll: time.Hour,
		Target: func() (Target, error) { return Target{Endpoint: srv.URL}, nil }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	writeLog(t, l, 3, "ls")
	deadline := time.Now().Add(10 * time.Second)
	for len(c.unique()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d records after 10 s", len(c.unique()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FuzzCut: whatever the subject, what is exported is bounded and valid
// UTF-8 where the subject was, and a long quoted string never survives.
func FuzzCut(f *testing.F) {
	f.Add("cat <<EOF\nx\nEOF")
	f.Add(`echo "` + strings.Repeat("k", 100) + `"`)
	f.Add("<<A\n<<B\nB\nA")
	f.Fuzz(func(t *testing.T, s string) {
		got := Cut(s)
		if len(got) > MaxText+64 {
			t.Fatalf("%d bytes", len(got))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("not UTF-8: %q", got)
		}
	})
}

// TestExportHostileCollector: a collector that answers too slowly, with
// garbage and an error, or with a flood of bytes, moves nothing on:
// each is a failed round (the cursor stays, Run's stats say why), and
// once a real collector answers every record arrives.
func TestExportHostileCollector(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(filepath.Join(dir, "audit.jsonl"), 10<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	writeLog(t, l, 50, "ls")
	good := &collector{}
	var mode atomic.Value
	mode.Store("slow")
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load().(string) {
		case "slow":
			<-release
		case "garbage":
			w.WriteHeader(http.StatusInternalServerError)
			w.Write(bytes.Repeat([]byte{0xff, 0, '{'}, 1<<20))
		case "redirect-loop":
			http.Redirect(w, r, r.URL.String(), http.StatusFound)
		default:
			good.ServeHTTP(w, r)
		}
	}))
	defer srv.Close()
	defer close(release)
	e := New(Options{Log: filepath.Join(dir, "audit.jsonl"), State: filepath.Join(dir, "export.json"), HTTP: &http.Client{Timeout: 300 * time.Millisecond},
		Target: func() (Target, error) { return Target{Endpoint: srv.URL}, nil }})
	ctx := context.Background()
	for _, m := range []string{"slow", "garbage", "redirect-loop"} {
		mode.Store(m)
		if err := e.Round(ctx); err == nil {
			t.Errorf("%s: the round succeeded", m)
		}
		if cur, _ := ReadCursor(filepath.Join(dir, "export.json")); cur.Seq != 0 {
			t.Fatalf("%s: the cursor moved to %d", m, cur.Seq)
		}
	}
	if st := e.Stats(); st.Delivered != 0 || st.Waiting != 50 {
		t.Errorf("stats after the failures: %+v", st)
	}
	mode.Store("good")
	if err := e.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if got := good.unique(); len(got) != 50 {
		t.Fatalf("%d records arrived, want 50", len(got))
	}
	if st := e.Stats(); st.Delivered != 50 || st.Waiting != 0 || st.LastSent.IsZero() {
		t.Errorf("stats once delivered: %+v", st)
	}
}
