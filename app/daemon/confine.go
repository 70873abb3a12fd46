package daemon

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/app/machine/profile"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/policy/shellquote"
	"github.com/agatehq/agate/sandbox"
)

// What runs unasked runs confined to what agate judged of it ([sandbox]
// confine_unasked): a wrong judgment meets the OS, not the person's data.
// The daemon alone decides whether a call runs confined and how; the hook
// carries the profile in the command it rewrites the call to.

// confineProbeWait is how long a decision waits for the sandbox's probe
// (about 60 ms for bwrap here; a daemon starts it at once, and again when
// the options change): a call that comes sooner waits for it, one that
// comes when the probe is stuck is judged as without confinement. Well
// within the hook's budget (at least a second).
const confineProbeWait = time.Second

// kernelSandbox probes the OS's own sandbox (bwrap or Landlock), the only
// launchers a confined unasked call runs under: never a container, a
// wrapper or none.
func (d *Daemon) kernelSandbox(ctx context.Context) sandbox.Diagnostics {
	return d.confineProber.Get(ctx, d.kernelOptions())
}

// kernelOptions are the options kernelSandbox probes: worked out once per
// config and minute (they look for every secret store on the disk), not
// on every call.
func (d *Daemon) kernelOptions() sandbox.Options {
	cfg, _ := d.Config()
	now := time.Now()
	d.confineOpts.mu.Lock()
	defer d.confineOpts.mu.Unlock()
	c := &d.confineOpts
	if c.cfg != cfg || now.Sub(c.at) > time.Minute {
		c.cfg, c.at, c.o = cfg, now, machine.KernelOptions(machine.SandboxOptions(cfg, d.paths, os.TempDir()))
	}
	return c.o
}

// confineOptions caches kernelOptions.
type confineOptions struct {
	mu  sync.Mutex
	cfg *policy.Config
	at  time.Time
	o   sandbox.Options
}

// confinesUnasked reports whether what the policy lets through for r on
// its own judgment runs confined: the config says so, the agent lets
// agate rewrite the call, and the OS's own sandbox confines here. Only
// on Linux, where the harm test runs; elsewhere agate judges as before.
func (d *Daemon) confinesUnasked(cfg *policy.Config, r *api.DecideRequest) bool {
	if !cfg.Sandbox.ConfineUnasked || !rewritable(r) || runtime.GOOS != "linux" {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), confineProbeWait)
	defer cancel()
	diag := d.kernelSandbox(ctx)
	return diag.Available && diag.NetworkIsolation
}

// confinementFor is the profile a call runs with: the project as its work
// dir, writable only when the judgment says it writes there or runs its
// code. The paths come from the judgment (the request's project), never
// from the call's own working folder; what the config adds to the
// sandbox's lists (machine.Extra) comes along, and the secret files
// deep in the project (machine.ProjectSecrets), which the runner does not
// look for itself.
func (d *Daemon) confinementFor(cfg *policy.Config, r *api.DecideRequest, c policy.Confinement) *api.Confinement {
	work := r.Workspace
	if work == "" {
		work = r.Cwd
	}
	x := machine.Extra(cfg)
	secrets := append(slices.Clone(x.Secrets), d.projSecrets.get(work, profile.SecretPatterns(x), time.Now())...)
	out := &api.Confinement{Work: work, ReadOnly: c.ReadOnly(), Why: c.Why, Protected: x.Protected, Secrets: secrets, SecretEnv: x.SecretEnv}
	if c.RunsCode {
		out.Cache = confinedCacheDir()
	}
	for _, w := range c.Writable {
		if w != work {
			out.Writable = append(out.Writable, w)
		}
	}
	// The folder git takes hooks from (core.hooksPath) runs at the next
	// commit, outside any sandbox: it stays read-only in the project; one
	// that is not there yet could be made, so the project is read-only.
	if rf := d.facts.Repo(work); rf.HooksDir != "" && pathWithin(work, rf.HooksDir) && !out.ReadOnly {
		if fi, err := os.Lstat(rf.HooksDir); err == nil && fi.IsDir() {
			out.Protected = append(slices.Clone(out.Protected), rf.HooksDir)
		} else {
			out.ReadOnly = true
			out.Why = strings.TrimSpace(out.Why + " (read-only: the repository takes its hooks from " + rf.HooksDir + ", which is not there yet)")
		}
	}
	return out
}

// pathWithin reports whether p is dir or under it.
func pathWithin(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// projectSecretsTTL is how long the secret files found in a project are
// taken as its own before it is looked through again.
const projectSecretsTTL = 10 * time.Second

// projectSecrets keeps, per project, the secret files deep in it
// (machine.ProjectSecrets), looked for again after projectSecretsTTL.
// Each project has its own lock: a big project's walk holds up only the
// calls that need that project's list.
type projectSecrets struct {
	mu sync.Mutex // guards m
	m  map[string]*projectSecretsEntry
}

type projectSecretsEntry struct {
	mu    sync.Mutex // held while the project is looked through
	at    time.Time
	found []string
}

// get returns the secret files deep in work, looking through it when
// what was found is older than projectSecretsTTL. A second caller for
// the same project waits for the first's walk.
func (p *projectSecrets) get(work string, patterns []string, now time.Time) []string {
	if work == "" || !filepath.IsAbs(work) {
		return nil
	}
	p.mu.Lock()
	e := p.m[work]
	if e == nil {
		if p.m == nil || len(p.m) >= 64 {
			p.m = map[string]*projectSecretsEntry{} // (a few projects at a time; forget the rest)
		}
		e = &projectSecretsEntry{}
		p.m[work] = e
	}
	p.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.at.IsZero() && now.Sub(e.at) < projectSecretsTTL && now.Sub(e.at) >= 0 {
		return e.found
	}
	e.found, _ = machine.ProjectSecrets(work, patterns, machine.ProjectSecretLimit)
	e.at = now
	return e.found
}

// confinedCacheDir is the toolchains' cache confined builds use, apart
// from the person's own (so nothing a confined command writes there
// reaches an unconfined build): the user cache folder's agate/confined.
func confinedCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(dir) {
		return ""
	}
	return filepath.Join(dir, "agate", "confined")
}

// ConfineUnasked says whether [sandbox] confine_unasked holds here, and
// why not (machine.ConfineUnaskedState), from the daemon's probe.
func (d *Daemon) ConfineUnasked(ctx context.Context) (works bool, state string) {
	cfg, _ := d.Config()
	var diag sandbox.Diagnostics
	if cfg.Sandbox.ConfineUnasked && runtime.GOOS == "linux" {
		diag = d.kernelSandbox(ctx)
	}
	return machine.ConfineUnaskedState(cfg, runtime.GOOS, diag)
}

// confinedCommand returns the command a line the hook rewrote a call to
// runs confined (the last word of `BIN sandbox ... -- bash -c COMMAND`,
// BIN an absolute path: confine.Shell's form), and whether line is such a
// line: what an agent that gives calls no id reports it ran.
func confinedCommand(line string) (string, bool) {
	words, ok := shellquote.Split(line)
	n := len(words)
	if !ok || n < 6 || !filepath.IsAbs(words[0]) || words[1] != "sandbox" ||
		words[n-4] != "--" || words[n-3] != "bash" || words[n-2] != "-c" {
		return "", false
	}
	return words[n-1], true
}
