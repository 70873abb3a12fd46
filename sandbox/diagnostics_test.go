package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestProbeUnconfinedWrapperIsNotAvailable(t *testing.T) {
	o := Options{Launcher: LauncherWrapper, Wrapper: testWrapper(t), FailClosed: true}
	d := Probe(context.Background(), o)
	if d.Available {
		t.Fatalf("a wrapper that confines nothing passed the probe: %+v", d)
	}
	for _, want := range []string{"write_outside_denied", "protected_read_only", "hidden_invisible", "network_cut"} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason %q does not name %s", d.Reason, want)
		}
	}
	if d.Launcher != LauncherWrapper || d.Install == "" || !d.FailClosed {
		t.Errorf("diagnostics %+v", d)
	}
	for _, c := range d.Checks {
		if c.Name == "env_scrubbed" && !c.OK {
			t.Error("agate itself scrubs the environment, even through a wrapper")
		}
	}
}

func TestProbeNone(t *testing.T) {
	tests := []struct {
		o          Options
		failClosed bool
	}{
		{Options{Launcher: LauncherNone, FailClosed: true, Enabled: true}, true},
		{Options{Launcher: LauncherNone, FailClosed: false}, false},
	}
	for _, tt := range tests {
		d := Probe(context.Background(), tt.o)
		if d.Available || d.Launcher != LauncherNone || d.FailClosed != tt.failClosed || d.Enabled != tt.o.Enabled ||
			d.Install == "" || d.Platform != platform || d.Reason == "" || d.ProbedAt.IsZero() {
			t.Errorf("Probe(%+v) = %+v", tt.o, d)
		}
	}
}

func TestDiagnosticsJSON(t *testing.T) {
	b, err := json.Marshal(Diagnostics{})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"enabled", "platform", "launcher", "available", "version", "network_isolation", "fail_closed", "reason"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
}

// countingProbe is a fake probe that counts its calls and can be held.
type countingProbe struct {
	calls   atomic.Int32
	release chan struct{} // nil: answer at once
}

func (c *countingProbe) probe(_ context.Context, o Options) Diagnostics {
	n := c.calls.Add(1)
	if c.release != nil {
		<-c.release
	}
	return Diagnostics{Launcher: o.launcherName(), Available: true, Version: string(rune('0' + n)), ProbedAt: time.Now()}
}

func TestProberCaches(t *testing.T) {
	fake := &countingProbe{}
	p := &Prober{probe: fake.probe}
	ctx := context.Background()
	steps := []struct {
		name      string
		do        func() Diagnostics
		wantCalls int32
	}{
		{"first probe", func() Diagnostics { return p.Get(ctx, Options{Launcher: LauncherBwrap}) }, 1},
		{"same options: cached", func() Diagnostics { return p.Get(ctx, Options{Launcher: LauncherBwrap}) }, 1},
		{"environment alone does not count", func() Diagnostics {
			return p.Get(ctx, Options{Launcher: LauncherBwrap, Env: []string{"A=1"}})
		}, 1},
		{"options changed: probed again", func() Diagnostics { return p.Get(ctx, Options{Launcher: LauncherBwrap, Net: true}) }, 2},
		{"invalidated: probed again", func() Diagnostics { p.Invalidate(); return p.Get(ctx, Options{Launcher: LauncherBwrap, Net: true}) }, 3},
	}
	for _, s := range steps {
		d := s.do()
		if got := fake.calls.Load(); got != s.wantCalls {
			t.Errorf("%s: %d probes, want %d", s.name, got, s.wantCalls)
		}
		if d.Version != string(rune('0'+s.wantCalls)) {
			t.Errorf("%s: got the answer of probe %s, want %d", s.name, d.Version, s.wantCalls)
		}
	}
}

func TestProberMaxAge(t *testing.T) {
	fake := &countingProbe{}
	p := &Prober{probe: fake.probe, MaxAge: time.Nanosecond}
	p.Get(context.Background(), Options{})
	p.mu.Lock()
	p.last.d.ProbedAt = time.Now().Add(-time.Hour) // age it without waiting
	p.mu.Unlock()
	p.Get(context.Background(), Options{})
	if got := fake.calls.Load(); got != 2 {
		t.Errorf("%d probes, want 2: the first answer was stale", got)
	}
}

func TestProberSharesOneProbe(t *testing.T) {
	fake := &countingProbe{release: make(chan struct{})}
	p := &Prober{probe: fake.probe}
	var wg sync.WaitGroup
	results := make([]Diagnostics, 8)
	for i := range results {
		wg.Go(func() { results[i] = p.Get(context.Background(), Options{}) })
	}
	// Let the waiters pile up on the one probe, then answer.
	for fake.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(fake.release)
	wg.Wait()
	if got := fake.calls.Load(); got != 1 {
		t.Errorf("%d probes for concurrent callers, want 1", got)
	}
	for i, d := range results {
		if !d.Available {
			t.Errorf("caller %d got %+v", i, d)
		}
	}
}

func TestProberCallerGivesUp(t *testing.T) {
	fake := &countingProbe{release: make(chan struct{})}
	defer close(fake.release)
	p := &Prober{probe: fake.probe}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := p.Get(ctx, Options{Launcher: LauncherBwrap, FailClosed: true})
	if d.Available || !strings.Contains(d.Reason, "did not finish") || !d.FailClosed {
		t.Errorf("a caller whose context ended got %+v", d)
	}
}
