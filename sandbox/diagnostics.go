package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Diagnostics is what the sandbox can do here, from a real probe. The
// daemon's status route, `agate doctor --json` and the settings panel's
// Sandbox tab show it as is.
type Diagnostics struct {
	// Enabled is Options.Enabled: the config switches the sandbox on.
	Enabled bool `json:"enabled"`
	// Platform is the OS: "linux", "darwin", "windows".
	Platform string `json:"platform"`
	// Launcher is the launcher that passed the probe; when none did, the
	// launcher asked for ("auto" included) or "none".
	Launcher string `json:"launcher"`
	// Available is true when Launcher confined the probe.
	Available bool `json:"available"`
	// Version is the launcher's version: "bubblewrap 0.8.0",
	// "Landlock ABI 7", "podman version 4.3.1".
	Version string `json:"version"`
	// NetworkIsolation is true when the probe's connections to a
	// listener on the host's loopback (TCP and UDP) all failed.
	NetworkIsolation bool `json:"network_isolation"`
	// FailClosed is true when commands are refused, not run unconfined,
	// if no launcher works.
	FailClosed bool `json:"fail_closed"`
	// Reason says why the launcher is or is not available.
	Reason string `json:"reason"`
	// Install says what to install when nothing is available and
	// nothing was refused by the machine's settings.
	Install string `json:"install,omitempty"`
	// Fix says what to change when the machine refused what the
	// launchers need (user namespaces: a sysctl, AppArmor, a container,
	// a chroot); then Install is empty.
	Fix string `json:"fix,omitempty"`
	// Checks are the probe's findings for the launcher reported.
	Checks []Check `json:"checks,omitempty"`
	// Skipped are the launchers passed over before it, with why.
	Skipped []string `json:"skipped,omitempty"`
	// ProbedAt is when the probe ran.
	ProbedAt time.Time `json:"probed_at"`
}

// Check is one finding of a probe.
type Check struct {
	Name   string `json:"name"` // write_outside_denied, write_work_allowed, protected_read_only, hidden_invisible, env_scrubbed, network_cut
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// probeTimeout bounds one launcher's probe; a container's first run may
// have to start an engine.
const probeTimeout = 60 * time.Second

// probeTokenVar is a fake credential the probe puts in the environment and
// expects not to see inside.
const probeTokenVar = "AGATE_PROBE_TOKEN"

// probeScript is run confined as `sh -c probeScript sh OUTSIDE PORT UPORT
// HIDDEN` in the probe's work dir. Every line it prints that starts with
// "FAIL:" is a broken promise; the host checks the rest from outside.
const probeScript = `out=$1 port=$2 uport=$3 hid=$4
(: > "$out") 2>/dev/null && echo FAIL:write-outside
echo ok > probe-ok 2>/dev/null || echo FAIL:write-work
(echo x >> protected) 2>/dev/null && echo FAIL:write-protected
[ -e "$hid/marker" ] && echo FAIL:hidden-visible
[ -n "$` + probeTokenVar + `" ] && echo FAIL:env
if command -v bash >/dev/null 2>&1; then
  bash -c "echo x > /dev/tcp/127.0.0.1/$port" 2>/dev/null && echo FAIL:tcp
  bash -c "echo x > /dev/udp/127.0.0.1/$uport" 2>/dev/null
  echo NET-TRIED
fi
echo DONE
`

// Probe finds the launcher that confines commands for o, by running the
// probe command under each candidate in turn (the auto order, or the
// pinned launcher): it must fail to write outside its work dir, succeed in
// it, fail to write a protected file, not see a hidden dir, not see a
// credential from the environment, and fail to reach a TCP and a UDP
// listener on the host's loopback. The network is probed cut whatever
// o.Net says. A launcher whose quick check fails is skipped.
func Probe(ctx context.Context, o Options) Diagnostics {
	d := Diagnostics{
		Enabled:    o.Enabled,
		Platform:   platform,
		Launcher:   o.launcherName(),
		FailClosed: !o.mayRunUnconfined(),
		ProbedAt:   time.Now(),
	}
	ls, reason, err := candidates(o)
	if err != nil {
		reason = err.Error()
	}
	var skipped, fixes []string
	for _, l := range ls {
		if err := l.check(o); err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", l.name(), err))
			fixes = addFix(fixes, err)
			continue
		}
		checks, netOK, err := probeLauncher(ctx, l, o)
		if err != nil {
			if r := refusedNow(l); r != nil {
				err = fmt.Errorf("%w (%v)", r, err)
			}
			skipped = append(skipped, fmt.Sprintf("%s: %v", l.name(), err))
			fixes = addFix(fixes, err)
			d.Checks = checks
			continue
		}
		d.Launcher, d.Available, d.Checks = l.name(), true, checks
		d.NetworkIsolation = netOK
		vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		d.Version = l.version(vctx, o)
		cancel()
		d.Reason = l.name() + " confined the probe"
		if !netOK {
			d.Reason += "; the network cut was not verified (no bash inside)"
		}
		d.Skipped = skipped
		return d
	}
	if len(skipped) > 0 {
		reason = strings.Join(skipped, "; ")
	}
	if len(ls) == 0 && o.launcherName() == LauncherNone {
		d.Launcher = LauncherNone
	}
	d.Reason = reason
	d.Skipped = skipped
	if len(fixes) > 0 {
		d.Fix = strings.Join(fixes, "; or ")
	} else {
		d.Install = installHint
	}
	return d
}

// probeBase returns where probes make their temp dirs: outside /tmp, which
// the Linux launchers replace with a private one, so that a write that
// escapes is seen from the host. The shared fallback in /var/tmp is one
// per user, and used only when it is the user's own dir: another user's
// (or a planted symlink) would let them see or steer the probe.
func probeBase() string {
	tmp := filepath.Clean(os.TempDir())
	var candidates []string
	if dir, err := os.UserCacheDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, "agate"))
	}
	candidates = append(candidates, fmt.Sprintf("/var/tmp/agate-probe-%d", os.Getuid()))
	for _, base := range candidates {
		if within(filepath.Clean(base), tmp) {
			continue // the sandbox's private /tmp would hide an escape
		}
		if os.MkdirAll(base, 0o700) == nil && ownDir(base) {
			return base
		}
	}
	return tmp
}

// probeLauncher runs the probe under l. It returns the checks, whether
// the network cut was verified, and an error when a promise was broken or
// the probe could not run.
func probeLauncher(ctx context.Context, l launcher, o Options) ([]Check, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	tmp, err := os.MkdirTemp(probeBase(), "sandbox-probe-")
	if err != nil {
		return nil, false, fmt.Errorf("probe dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	work, hidden := filepath.Join(tmp, "work"), filepath.Join(tmp, "hidden")
	outside := filepath.Join(tmp, "outside")
	for _, dir := range []string{work, hidden} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, false, fmt.Errorf("probe dir: %w", err)
		}
	}
	protected := filepath.Join(work, "protected")
	for _, f := range []string{protected, filepath.Join(hidden, "marker")} {
		if err := os.WriteFile(f, []byte("keep\n"), 0o644); err != nil {
			return nil, false, fmt.Errorf("probe file: %w", err)
		}
	}
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, false, fmt.Errorf("probe listener: %w", err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		return nil, false, fmt.Errorf("probe listener: %w", err)
	}
	defer udp.Close()

	po := o
	po.WorkDir, po.Net = work, false
	po.Writable = nil
	po.Protected = []string{protected}
	po.Hidden = []string{hidden}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	po.Env = setEnv(env, probeTokenVar, "probe-secret")
	argv := []string{"/bin/sh", "-c", probeScript, "sh", outside,
		strconv.Itoa(tcp.Addr().(*net.TCPAddr).Port), strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port), hidden}
	p, err := newPlan(po, argv)
	if err != nil {
		return nil, false, err
	}
	cmd, err := l.command(ctx, p)
	if err != nil {
		return nil, false, err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{w: &stdout, n: 64 << 10}, &limited{w: &stderr, n: 64 << 10}
	runErr := cmd.Run()
	out := stdout.String()
	if !strings.Contains(out, "DONE") {
		msg := strings.TrimSpace(stderr.String())
		if runErr != nil && msg == "" {
			msg = runErr.Error()
		}
		if len(msg) > 500 {
			msg = msg[:500] + "..."
		}
		return nil, false, fmt.Errorf("the probe did not run: %s", msg)
	}

	var checks []Check
	add := func(name string, ok bool, detail string) {
		checks = append(checks, Check{Name: name, OK: ok, Detail: detail})
	}
	_, statErr := os.Lstat(outside)
	add("write_outside_denied", errors.Is(statErr, os.ErrNotExist) && !strings.Contains(out, "FAIL:write-outside"), "")
	got, _ := os.ReadFile(filepath.Join(work, "probe-ok"))
	add("write_work_allowed", string(got) == "ok\n", "")
	got, _ = os.ReadFile(protected)
	add("protected_read_only", string(got) == "keep\n" && !strings.Contains(out, "FAIL:write-protected"), "")
	add("hidden_invisible", !strings.Contains(out, "FAIL:hidden-visible"), "")
	add("env_scrubbed", !strings.Contains(out, "FAIL:env"), "")
	netTried := strings.Contains(out, "NET-TRIED")
	netCut := !strings.Contains(out, "FAIL:tcp") && !received(tcp, udp)
	switch {
	case !netCut:
		add("network_cut", false, "a listener on the host's loopback was reached")
	case !netTried:
		add("network_cut", false, "not verified: no bash inside to connect with")
	default:
		add("network_cut", true, "")
	}
	var broken []string
	for _, c := range checks {
		if !c.OK && (c.Name != "network_cut" || !netCut) {
			broken = append(broken, c.Name)
		}
	}
	if len(broken) > 0 {
		return checks, false, fmt.Errorf("the probe escaped: %s failed", strings.Join(broken, ", "))
	}
	return checks, netCut && netTried, nil
}

// received reports whether anything reached the probe's listeners. The
// probe has exited, so whatever it sent is queued already; the short
// deadlines only bound the look.
func received(tcp net.Listener, udp net.PacketConn) bool {
	got := false
	if tl, ok := tcp.(*net.TCPListener); ok {
		_ = tl.SetDeadline(time.Now().Add(20 * time.Millisecond))
		if c, err := tl.Accept(); err == nil {
			c.Close()
			got = true
		}
	}
	_ = udp.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	buf := make([]byte, 64)
	if _, _, err := udp.ReadFrom(buf); err == nil {
		got = true
	}
	return got
}

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w interface{ Write([]byte) (int, error) }
	n int
}

func (l *limited) Write(b []byte) (int, error) {
	if l.n <= 0 {
		return len(b), nil
	}
	k := min(len(b), l.n)
	l.n -= k
	if _, err := l.w.Write(b[:k]); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Prober caches [Probe]'s answer and probes again when the options change
// (or, with MaxAge, when the answer is older). It is safe for concurrent
// use; callers asking while a probe runs wait for it. The zero value is
// ready.
type Prober struct {
	// MaxAge is how long an answer stays good; zero means until the
	// options change or Invalidate is called.
	MaxAge time.Duration

	mu   sync.Mutex
	last *probeRun // the latest probe, done or running

	probe func(context.Context, Options) Diagnostics // nil: Probe; tests replace it
}

// probeRun is one probe, shared by the callers that wait for it.
type probeRun struct {
	key  string
	done chan struct{}
	d    Diagnostics // set before done is closed
}

// Get returns the diagnostics for o, probing when there is no answer yet
// for these options. If ctx ends first, it returns an unavailable answer
// saying so; the probe goes on for the next caller.
func (p *Prober) Get(ctx context.Context, o Options) Diagnostics {
	key := probeKey(o)
	p.mu.Lock()
	run := p.last
	if run == nil || run.key != key || p.stale(run) {
		run = &probeRun{key: key, done: make(chan struct{})}
		p.last = run
		probe := p.probe
		if probe == nil {
			probe = Probe
		}
		pctx := context.WithoutCancel(ctx)
		go func() {
			run.d = probe(pctx, o)
			close(run.done)
		}()
	}
	p.mu.Unlock()
	select {
	case <-run.done:
		return run.d
	case <-ctx.Done():
		return Diagnostics{
			Enabled: o.Enabled, Platform: platform, Launcher: o.launcherName(),
			FailClosed: !o.mayRunUnconfined(), ProbedAt: time.Now(),
			Reason: "the probe did not finish: " + ctx.Err().Error(),
		}
	}
}

// stale reports whether a finished run is older than MaxAge. p.mu is held.
func (p *Prober) stale(run *probeRun) bool {
	if p.MaxAge <= 0 {
		return false
	}
	select {
	case <-run.done:
		return time.Since(run.d.ProbedAt) > p.MaxAge
	default:
		return false
	}
}

// Invalidate forgets the cached answer: the next Get probes again.
func (p *Prober) Invalidate() {
	p.mu.Lock()
	p.last = nil
	p.mu.Unlock()
}

// probeKey identifies the options that matter to a probe. The environment
// is left out: it changes often and only its names matter.
func probeKey(o Options) string {
	o.Env = nil
	b, err := json.Marshal(o)
	if err != nil {
		return fmt.Sprintf("%#v", o)
	}
	return string(b)
}
