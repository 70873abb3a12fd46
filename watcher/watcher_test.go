package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// wait bounds every wait in these tests. It is generous: the tests never
// assert on latency, only that something happens, or that something else
// did not happen before it.
const wait = 5 * time.Second

// harness runs a watch over a temp folder holding config.toml (required)
// and grants.toml (optional), with a Load that reads both and refuses
// empty or "broken" content, as a real parser refuses a half-written file.
type harness struct {
	t   *testing.T
	dir string

	current atomic.Pointer[string] // what a caller's Apply would swap
	applied chan string
	failed  chan error
	loads   chan string // each Load's outcome: the value or "error"
	reloads chan bool   // each debounced reload: whether it calls Load

	cancel context.CancelFunc
	done   chan error
}

// start writes config.toml (unless config is "") and starts the watch;
// edit may change the Config first. It waits for the first reload.
func start(t *testing.T, config string, edit func(*Config[string])) *harness {
	t.Helper()
	h := &harness{
		t:       t,
		dir:     t.TempDir(),
		applied: make(chan string, 1000),
		failed:  make(chan error, 1000),
		loads:   make(chan string, 1000),
		reloads: make(chan bool, 1000),
		done:    make(chan error, 1),
	}
	if config != "" {
		h.write("config.toml", config)
	}
	c := Config[string]{
		Dir:      h.dir,
		Files:    []string{"config.toml", "grants.toml"},
		Debounce: 50 * time.Millisecond,
		Load:     h.load,
		Apply: func(v string) {
			h.current.Store(&v)
			h.applied <- v
		},
		Fail: func(err error) { h.failed <- err },
	}
	if edit != nil {
		edit(&c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.done <- watch(ctx, c, func(load bool) { h.reloads <- load }) }()
	t.Cleanup(h.stop)
	h.nextReload()
	return h
}

func (h *harness) load(ctx context.Context) (string, error) {
	v, err := h.read()
	if err != nil {
		h.loads <- "error"
		return "", err
	}
	h.loads <- v
	return v, nil
}

func (h *harness) read() (string, error) {
	b, err := os.ReadFile(filepath.Join(h.dir, "config.toml"))
	if err != nil {
		return "", fmt.Errorf("read config: %w", err)
	}
	v := string(b)
	if v == "" || strings.Contains(v, "broken") {
		return "", fmt.Errorf("config.toml:1: invalid %q", v)
	}
	if g, err := os.ReadFile(filepath.Join(h.dir, "grants.toml")); err == nil {
		v += "+" + string(g)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read grants: %w", err)
	}
	return v, nil
}

// stop cancels the watch and waits for Watch to return nil.
func (h *harness) stop() {
	h.cancel()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("Watch returned %v", err)
		}
		h.done <- nil // a second stop returns at once
	case <-time.After(wait):
		h.t.Errorf("Watch did not return within %v of cancel", wait)
	}
}

func (h *harness) path(name string) string { return filepath.Join(h.dir, name) }

// write writes a file in place, as a plain editor or `echo >` would.
func (h *harness) write(name, content string) {
	h.t.Helper()
	if err := os.WriteFile(h.path(name), []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// save writes a temp file and renames it over name, as agate and most
// editors do.
func (h *harness) save(name, content string) {
	h.t.Helper()
	f, err := os.CreateTemp(h.dir, "."+name+".tmp*")
	if err != nil {
		h.t.Fatal(err)
	}
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), h.path(name))
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

func next[V any](t *testing.T, ch <-chan V, what string) V {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("no %s within %v", what, wait)
		panic("unreachable")
	}
}

// wantApply checks that the next Apply is want.
func (h *harness) wantApply(want string) {
	h.t.Helper()
	if got := next(h.t, h.applied, "Apply"); got != want {
		h.t.Fatalf("Apply(%q), want Apply(%q)", got, want)
	}
}

// wantFail returns the next Fail's error.
func (h *harness) wantFail() error {
	h.t.Helper()
	return next(h.t, h.failed, "Fail")
}

// nextReload waits for the next reload and tells whether it loads.
func (h *harness) nextReload() bool { h.t.Helper(); return next(h.t, h.reloads, "reload") }

// drain checks that nothing was applied or failed, and returns how many
// loads and reloads happened, since the last drain.
func (h *harness) drain() (loads []string, reloads int) {
	h.t.Helper()
	for {
		select {
		case v := <-h.applied:
			h.t.Fatalf("unexpected Apply(%q)", v)
		case err := <-h.failed:
			h.t.Fatalf("unexpected Fail(%v)", err)
		case v := <-h.loads:
			loads = append(loads, v)
		case <-h.reloads:
			reloads++
		default:
			return loads, reloads
		}
	}
}

func TestSetupErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	good := Config[int]{
		Dir:   dir,
		Files: []string{"config.toml"},
		Load:  func(context.Context) (int, error) { return 0, nil },
		Apply: func(int) {},
		Fail:  func(error) {},
	}
	tests := []struct {
		name string
		edit func(*Config[int])
		want string
		is   error
	}{
		{"missing folder", func(c *Config[int]) { c.Dir = filepath.Join(dir, "nope") }, "config folder", fs.ErrNotExist},
		{"folder is a file", func(c *Config[int]) { c.Dir = file }, "is not a folder", nil},
		{"no folder", func(c *Config[int]) { c.Dir = "" }, "no folder", nil},
		{"no files", func(c *Config[int]) { c.Files = nil }, "no files", nil},
		{"path not name", func(c *Config[int]) { c.Files = []string{"sub/config.toml"} }, "not a base name", nil},
		{"dot dot", func(c *Config[int]) { c.Files = []string{".."} }, "not a base name", nil},
		{"empty name", func(c *Config[int]) { c.Files = []string{""} }, "not a base name", nil},
		{"negative debounce", func(c *Config[int]) { c.Debounce = -time.Second }, "negative debounce", nil},
		{"no Load", func(c *Config[int]) { c.Load = nil }, "required", nil},
		{"no Apply", func(c *Config[int]) { c.Apply = nil }, "required", nil},
		{"no Fail", func(c *Config[int]) { c.Fail = nil }, "required", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.edit(&c)
			err := Watch(context.Background(), c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Watch: %v, want an error containing %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("Watch: %v, want errors.Is %v", err, tt.is)
			}
		})
	}
}

func TestInitialLoad(t *testing.T) {
	t.Run("applied", func(t *testing.T) {
		h := start(t, "v1", nil)
		h.wantApply("v1")
	})
	t.Run("missing", func(t *testing.T) {
		h := start(t, "", nil)
		if err := h.wantFail(); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Fail(%v), want a missing-file error", err)
		}
		h.save("config.toml", "v1")
		h.wantApply("v1")
	})
}

func TestEdits(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(h *harness)
		want   string
		marker string // the value once config.toml is saved as "v3"
	}{
		{"write in place", func(h *harness) { h.write("config.toml", "v2") }, "v2", "v3"},
		{"atomic save", func(h *harness) { h.save("config.toml", "v2") }, "v2", "v3"},
		{"grants file", func(h *harness) { h.save("grants.toml", "g1") }, "v1+g1", "v3+g1"},
		{"vim-style save", func(h *harness) {
			// Backup by rename, then a new file: config.toml is missing
			// for a moment, which the debounce must hide.
			if err := os.Rename(h.path("config.toml"), h.path("config.toml~")); err != nil {
				t.Fatal(err)
			}
			h.write("config.toml", "v2")
			if err := os.Chmod(h.path("config.toml"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "v2", "v3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A long debounce, so that a slow machine does not split the
			// burst; this test checks coalescing, not speed.
			h := start(t, "v1", func(c *Config[string]) { c.Debounce = 300 * time.Millisecond })
			h.wantApply("v1")
			h.drain()
			tt.edit(h)
			h.wantApply(tt.want)
			if cur := *h.current.Load(); cur != tt.want {
				t.Fatalf("current %q, want %q", cur, tt.want)
			}
			// One more save marks the end: everything the edit caused
			// happened before it.
			h.save("config.toml", "v3")
			h.wantApply(tt.marker)
			loads, reloads := h.drain()
			if len(loads) != 2 || reloads != 2 {
				t.Fatalf("edit and marker: loads %q, %d reloads; want 2 of each", loads, reloads)
			}
		})
	}
}

func TestBrokenKeepsLastGood(t *testing.T) {
	h := start(t, "v1", nil)
	h.wantApply("v1")

	h.save("config.toml", "broken")
	err := h.wantFail()
	if !strings.Contains(err.Error(), "config.toml:1") {
		t.Fatalf("Fail(%v): the caller's error should come through unchanged", err)
	}
	if cur := *h.current.Load(); cur != "v1" {
		t.Fatalf("current %q after a broken save, want the last good v1", cur)
	}
	h.drain()

	// The same broken bytes again (a chmod, a touch): no second Fail.
	if err := os.Chmod(h.path("config.toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h.nextReload() {
		t.Fatal("a chmod of the broken file loads it again")
	}

	h.save("config.toml", "v2")
	h.wantApply("v2")
	select {
	case err := <-h.failed:
		t.Fatalf("unexpected Fail(%v)", err)
	default:
	}
}

func TestUnrelatedFilesIgnored(t *testing.T) {
	h := start(t, "v1", nil)
	h.wantApply("v1")
	h.drain()
	for _, name := range []string{"other.txt", ".config.toml.swp", "config.toml~", "config.toml.bak"} {
		h.write(name, "broken")
	}
	if err := os.Mkdir(h.path("config.toml.d"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.save("config.toml", "v2") // the marker
	h.wantApply("v2")
	if loads, reloads := h.drain(); reloads != 1 || len(loads) != 1 {
		t.Fatalf("loads %q, %d reloads; want only the marker's", loads, reloads)
	}
}

func TestRemovedThenRecreated(t *testing.T) {
	h := start(t, "v1", nil)
	h.wantApply("v1")
	if err := os.Remove(h.path("config.toml")); err != nil {
		t.Fatal(err)
	}
	if err := h.wantFail(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Fail(%v), want a missing-file error", err)
	}
	if cur := *h.current.Load(); cur != "v1" {
		t.Fatalf("current %q, want the last good v1", cur)
	}
	h.write("config.toml", "v2")
	h.wantApply("v2")
}

func TestChmodAndTouchNotLoaded(t *testing.T) {
	h := start(t, "v1", nil)
	h.wantApply("v1")
	h.drain()
	edits := []struct {
		name string
		do   func() error
	}{
		{"chmod", func() error { return os.Chmod(h.path("config.toml"), 0o644) }},
		{"touch", func() error {
			now := time.Now().Add(time.Minute)
			return os.Chtimes(h.path("config.toml"), now, now)
		}},
		{"chmod folder", func() error { return os.Chmod(h.dir, 0o755) }},
	}
	for _, e := range edits {
		if err := e.do(); err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if h.nextReload() { // the watcher saw it, and...
			t.Fatalf("%s: loaded, want no Load", e.name)
		}
		h.drain()
	}
	// The same bytes written again do load: a redundant Apply is harmless,
	// a skipped one could keep a half-written file's value.
	h.save("config.toml", "v1")
	h.wantApply("v1")
	h.save("config.toml", "v2")
	h.wantApply("v2")
}

func TestBurstCoalesced(t *testing.T) {
	h := start(t, "v1", nil)
	h.wantApply("v1")
	h.drain()
	const n = 100
	for i := range n {
		h.write("config.toml", fmt.Sprintf("n=%d", i))
	}
	final := fmt.Sprintf("n=%d", n-1)
	var applies int
	for got := ""; got != final; applies++ {
		got = next(t, h.applied, "Apply of the final content")
	}
	if cur := *h.current.Load(); cur != final {
		t.Fatalf("current %q, want %q", cur, final)
	}
	// A marker save ends the burst's reloads. Writes in place can be seen
	// half done (empty, a Fail) and the final content can load twice if
	// the burst was split; what matters is the last word.
	h.save("config.toml", "marker")
	for got := ""; got != "marker"; {
		if got = next(t, h.applied, "Apply of the marker"); got != final && got != "marker" {
			t.Fatalf("Apply(%q) after the final content", got)
		}
	}
	for len(h.failed) > 0 {
		<-h.failed
	}
	loads, reloads := h.drain()
	loads, reloads = loads[:len(loads)-1], reloads-1 // the marker's
	t.Logf("%d writes: %d reloads, %d loads, %d applies", n, reloads, len(loads), applies)
	if len(loads) > n/2 {
		t.Fatalf("%d loads for %d writes in a burst: not coalesced", len(loads), n)
	}
}

func TestFolderRemovedThenRecreated(t *testing.T) {
	h := start(t, "v1", nil)
	h.wantApply("v1")
	h.save("grants.toml", "g1")
	h.wantApply("v1+g1")

	if err := os.RemoveAll(h.dir); err != nil {
		t.Fatal(err)
	}
	h.wantDirGone()
	if cur := *h.current.Load(); cur != "v1+g1" {
		t.Fatalf("current %q, want the last good v1+g1", cur)
	}
	if err := os.Mkdir(h.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h.save("config.toml", "v2")
	h.wantApply("v2")
	// And the new folder is watched.
	h.save("config.toml", "v3")
	h.wantApply("v3")
}

func TestFolderMovedAwayAndBack(t *testing.T) {
	h := start(t, "v1", nil)
	h.wantApply("v1")
	away := h.dir + ".away"
	if err := os.Rename(h.dir, away); err != nil {
		t.Fatal(err)
	}
	h.wantDirGone()
	// Edits in the old folder, now elsewhere, are not this watch's.
	if err := os.WriteFile(filepath.Join(away, "config.toml"), []byte("elsewhere"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(away, "config.toml"), []byte("v1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(away, h.dir); err != nil {
		t.Fatal(err)
	}
	// Same bytes as before, but the caller was told the folder was gone,
	// so it hears that all is well again.
	h.wantApply("v1")
	h.save("config.toml", "v2")
	h.wantApply("v2")
}

// wantDirGone waits for a Fail wrapping ErrDirGone; a missing-file Fail
// may come first if the files' removal was reloaded before the folder's.
func (h *harness) wantDirGone() {
	h.t.Helper()
	for {
		err := h.wantFail()
		if errors.Is(err, ErrDirGone) {
			return
		}
		if !errors.Is(err, fs.ErrNotExist) {
			h.t.Fatalf("Fail(%v), want ErrDirGone", err)
		}
	}
}

func TestCancelEndsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	h := start(t, "v1", nil)
	h.wantApply("v1")
	h.write("config.toml", "v2") // a reload pending or running at cancel
	h.stop()
	deadline := time.Now().Add(wait)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCancelDuringLoad(t *testing.T) {
	started := make(chan struct{})
	var failed, applied atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, Config[int]{
			Dir:   t.TempDir(),
			Files: []string{"config.toml"},
			Load: func(ctx context.Context) (int, error) {
				close(started)
				<-ctx.Done()
				return 0, ctx.Err()
			},
			Apply: func(int) { applied.Add(1) },
			Fail:  func(error) { failed.Add(1) },
		})
	}()
	next(t, started, "Load")
	cancel()
	if err := next(t, done, "return from Watch"); err != nil {
		t.Fatalf("Watch returned %v, want nil", err)
	}
	if failed.Load() != 0 || applied.Load() != 0 {
		t.Fatalf("a Load cut short by cancel gave %d Fail, %d Apply; want none", failed.Load(), applied.Load())
	}
}

func TestWatchErrors(t *testing.T) {
	var fails []error
	l, err := newLoop(Config[int]{
		Dir:   t.TempDir(),
		Files: []string{"config.toml"},
		Load:  func(context.Context) (int, error) { return 0, nil },
		Apply: func(int) {},
		Fail:  func(err error) { fails = append(fails, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.w.Close()
	ctx := context.Background()
	l.reload(ctx)
	if l.fp == nil {
		t.Fatal("no fingerprint after a Load")
	}

	l.watchError(ctx, fsnotify.ErrEventOverflow)
	if len(fails) != 0 || l.fire == nil || !l.changed {
		t.Fatalf("overflow: %d Fail, reload scheduled %v, load %v; want no Fail and a reload that loads", len(fails), l.fire != nil, l.changed)
	}
	boom := errors.New("boom")
	l.watchError(ctx, boom)
	if len(fails) != 1 || !errors.Is(fails[0], boom) || l.fire == nil {
		t.Fatalf("other error: Fail %v, reload scheduled %v; want Fail(boom) and a reload", fails, l.fire != nil)
	}
	if l.fp != nil {
		t.Fatal("after a watch error the next reload must Load whatever the bytes")
	}
}

func TestScheduleBoundsABurst(t *testing.T) {
	l := &loop[int]{c: Config[int]{Debounce: time.Hour}, debounce: stoppedTimer()}
	defer l.debounce.Stop()
	l.schedule()
	first := l.burst
	l.burst = first.Add(-maxWaitFactor * time.Hour) // the burst began long ago
	l.schedule()
	select {
	case <-l.fire:
	case <-time.After(wait):
		t.Fatal("a burst older than maxWaitFactor×Debounce did not fire at once")
	}
}
