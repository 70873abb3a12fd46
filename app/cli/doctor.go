package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/settings"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/app/mcp/clients"
	"github.com/agatehq/agate/keystore"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

func init() {
	register(&command{
		name:    "doctor",
		args:    "[--json]",
		summary: "check the setup: config, daemon, sandbox (a real probe), keychain, secrets, leaked keys, hooks",
		run:     cmdDoctor,
	})
}

// Report is what `agate doctor` found. The settings panel shows the same.
type Report struct {
	Config      string `json:"config"`
	ConfigError string `json:"config_error,omitempty"`
	// Managed is the managed policy an administrator installed.
	Managed *api.ManagedStatus `json:"managed,omitempty"`
	Daemon  string             `json:"daemon"` // "running (pid N)" or why not
	// Export is the audit export's state, as the daemon reports it.
	Export *api.ExportStatus `json:"export,omitempty"`
	// Containers are the dev containers' sockets, as the daemon reports them.
	Containers []api.ContainerStatus `json:"containers,omitempty"`
	// Unasked is [sandbox] confine_unasked: whether what agate lets
	// through on its own judgment runs confined to it.
	Unasked  ConfineReport       `json:"confine_unasked"`
	Sandbox  sandbox.Diagnostics `json:"sandbox"`
	Keychain KeychainReport      `json:"keychain"`
	Unset    []string            `json:"secrets_unset"` // referenced secrets that read as unset, with why
	Leaked   []keystore.Leak     `json:"leaked"`        // keys seen in an agent's arguments, not rotated since
	Pasted   []api.Leak          `json:"pasted"`        // secrets pasted into an agent's chat, not rotated since
	Hooks    []HookReport        `json:"hooks"`
	Confine  ConfineReport       `json:"confine_project"`
	Grants   []GrantReport       `json:"grants"`
	MCP      []MCPReport         `json:"mcp"`
	Problems []string            `json:"problems"`
	Checked  time.Time           `json:"checked"`
}

// KeychainReport is the key store's state.
type KeychainReport struct {
	Store   string `json:"store"`
	Backend string `json:"backend"` // "keychain", "passphrase", or "" before the first key
	Keys    int    `json:"keys"`
	Health  string `json:"health"`
	// NoSessionBus is true when the keychain is out of reach for want of
	// a D-Bus session bus (Linux, the BSDs).
	NoSessionBus bool `json:"no_session_bus,omitempty"`
}

// ConfineReport is the state of [sandbox] confine_project: whether the
// project's own code may run unasked in the sandbox, and whether it can.
type ConfineReport struct {
	On    bool   `json:"on"`
	Works bool   `json:"works"` // on, and the sandbox works here
	State string `json:"state"` // in words
}

// GrantReport is one saved grant.
type GrantReport struct {
	Agent string `json:"agent"`
	Grant string `json:"grant"`
	Broad bool   `json:"broad"` // a risk-set grant: it covers more than what a person looked at
}

// MCPReport is one MCP client's file: which of its servers run through
// agate's proxy and which do not.
type MCPReport struct {
	Client  string   `json:"client"`
	File    string   `json:"file"`
	Proxied []string `json:"proxied"` // stdio servers run through `agate mcp run`
	Direct  []string `json:"direct"`  // stdio servers the client starts itself
	Remote  []string `json:"remote"`  // HTTP or SSE servers: the proxy cannot gate them
	Error   string   `json:"error,omitempty"`
}

// HookReport is one agent's hooks.
type HookReport struct {
	Agent     string `json:"agent"`
	File      string `json:"file"`
	Installed bool   `json:"installed"`
	Problem   string `json:"problem,omitempty"`
}

// Doctor checks the setup. It changes nothing: the config is read, not
// written; the key store is opened, not unlocked, unless a reference
// needs it.
func Doctor(ctx context.Context, p api.Paths) *Report {
	r := &Report{Config: p.Config, Checked: time.Now(), Unset: []string{}, Leaked: []keystore.Leak{}, Pasted: []api.Leak{}, Problems: []string{}}
	problem := func(format string, args ...any) { r.Problems = append(r.Problems, fmt.Sprintf(format, args...)) }

	cfg, err := config.Read(p)
	if err != nil {
		r.ConfigError = err.Error()
		cfg = config.UnderManaged(policy.DefaultConfig())
	}
	if r.ConfigError != "" {
		problem("the config is broken (the daemon keeps its last good policy): %s", firstLine(r.ConfigError))
	}
	if r.Managed = config.ManagedStatus(cfg); r.Managed != nil && !r.Managed.InForce {
		problem("the managed policy %s is not in force, so agate fails closed (manual mode, yolo off): %s", r.Managed.File, firstLine(r.Managed.Error))
	}

	sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	st, err := (&api.Client{Socket: p.Socket}).Status(sctx)
	cancel()
	switch {
	case err == nil:
		r.Daemon = fmt.Sprintf("running (pid %d, %s, socket %s)", st.PID, st.Mode, st.Socket)
		r.Export, r.Containers = st.Export, st.Containers
		if x := st.Export; x != nil && x.LastError != "" {
			problem("the audit export to %s is failing (since %s; %d record(s) read and waiting, kept in the log until it works): %s",
				x.Endpoint, x.LastErrorAt.Local().Format(time.DateTime), x.Waiting, firstLine(x.LastError))
		}
		for _, c := range st.Containers {
			if !c.Open {
				problem("container %s: its agents cannot reach agate: %s", c.Name, cmp.Or(c.Error, "its socket is not open"))
			}
		}
	case errors.Is(err, api.ErrDaemonDown):
		r.Daemon = "not running: start it with `agate` or `agate serve`"
		problem("the daemon is not running: hooks block every call until it is")
	default:
		r.Daemon = "not answering: " + err.Error()
		problem("the daemon does not answer: %v", err)
	}

	o := machine.SandboxOptions(cfg, p, os.TempDir())
	pctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	r.Sandbox = sandbox.Probe(pctx, o)
	cancel()
	if r.Sandbox.Enabled && !r.Sandbox.Available {
		msg := "the sandbox is on but no launcher works: " + r.Sandbox.Reason
		switch {
		case r.Sandbox.Fix != "":
			msg += "; to change: " + r.Sandbox.Fix
		case r.Sandbox.Install != "":
			msg += " (" + r.Sandbox.Install + ")"
		}
		problem("%s", msg)
	}

	r.Confine = ConfineReport{On: cfg.Sandbox.ConfineProject, Works: cfg.Sandbox.ConfineProject && r.Sandbox.Available}
	switch {
	case r.Confine.Works:
		r.Confine.State = "on: the project's own code (make test, pytest) runs unasked in the sandbox, for Claude Code's Bash"
	case r.Confine.On:
		r.Confine.State = "on, but the sandbox does not work here, so the project's own code asks as when it is off"
		problem("[sandbox] confine_project is on but the sandbox does not work: %s", r.Sandbox.Reason)
	case cfg.Sandbox.ConfineUnasked:
		r.Confine.State = "off; confine_unasked covers it: the project's own code runs unasked in the sandbox where it works"
	default:
		r.Confine.State = "off: the project's own code runs unasked only with a person to ask " +
			"(switch it on in the Sandbox tab, or [sandbox] confine_project = true)"
	}

	r.Unasked = confineUnaskedReport(ctx, cfg, o)
	if r.Unasked.On && !r.Unasked.Works {
		problem("[sandbox] confine_unasked: %s", r.Unasked.State)
	}

	r.Grants = []GrantReport{}
	if gs, err := grants.Load(p.Grants); err != nil {
		problem("the saved grants: %v", err)
	} else {
		for _, agent := range gs.Agents() {
			for _, g := range gs.ConfinedFor(agent) {
				r.Grants = append(r.Grants, GrantReport{Agent: agent, Grant: g.String() + api.ConfinedGrantSuffix, Broad: g.Broad()})
			}
			for _, g := range gs.For(agent) {
				r.Grants = append(r.Grants, GrantReport{Agent: agent, Grant: g.String(), Broad: g.Broad()})
				if g.Broad() {
					problem("the saved grant %q for %s is broad: it covers every call with those risks, not the command a person "+
						"looked at (it never covers a program agate does not know). To narrow it, revoke it "+
						"(`agate grants revoke %s %q`, or in the Grants tab) and answer the next prompt: the popup remembers what it shows",
						g.String(), agent, agent, g.String())
				}
			}
		}
	}

	r.Keychain = keychainReport(ctx, p)
	if r.Keychain.NoSessionBus && r.Keychain.Backend == "keychain" {
		problem("the key store's master key is in the OS keychain, which cannot be reached without a D-Bus session bus: " +
			"run agate in the desktop session (or set DBUS_SESSION_BUS_ADDRESS to its bus), " +
			"or there move the key with `agate keys backend --migrate passphrase`")
	}
	store, _ := keystore.Open(p.KeyStore(), &keystore.Keychain{}, &keystore.Passphrase{Ask: keystore.EnvPrompt(nil)})
	res := keystore.NewResolver(store, cfg.Secrets.VaultEnv)
	for _, name := range sortedNames(cfg.Secrets.Env) {
		ref := cfg.Secrets.Env[name]
		if _, ok, err := res.Resolve(ctx, ref); !ok {
			why := "not configured"
			if err != nil {
				why = err.Error()
			}
			r.Unset = append(r.Unset, fmt.Sprintf("%s (%s): %s", name, ref, why))
			problem("the secret %s is referenced but unset: %s", name, why)
		} else if w, _ := keystore.CheckField(ref, false); w != "" {
			problem("%s: %s", name, w)
		}
	}
	leaks, err := keystore.PendingLeaks(p.State)
	if err != nil {
		problem("the leak record: %v", err)
	}
	for _, l := range leaks {
		r.Leaked = append(r.Leaked, l)
		problem("%s appeared in an agent's arguments (%d times, last %s): rotate it, then `agate keys set` the new one",
			l.Name, l.Count, l.Last.Local().Format(time.DateTime))
	}
	pasted, err := pastedLeaks(p)
	if err != nil {
		problem("the record of pasted secrets: %v", err)
	}
	for _, l := range pasted {
		r.Pasted = append(r.Pasted, l)
		problem("%s; to rotate it: %s", leakLine(&l), rotateHint(&l))
	}

	for _, agent := range hooks.Agents() {
		file, err := settings.Path(agent, "")
		if err != nil {
			continue
		}
		hs := settings.Status(agent, file)
		hr := HookReport{Agent: agent, File: file, Installed: hs.Installed()}
		switch {
		case hs.Err != nil:
			hr.Problem = hs.Err.Error()
		case !hs.Exists || len(hs.Entries) == 0:
			hr.Problem = "not installed (agate hooks install " + agent + ")"
		case len(hs.Missing) > 0:
			hr.Problem = fmt.Sprintf("partly installed: %d hooks missing (agate hooks install %s)", len(hs.Missing), agent)
		}
		for _, e := range hs.Entries {
			if e.BinProblem != "" {
				hr.Problem = "the hook runs " + e.Bin + ": " + e.BinProblem
				hr.Installed = false
				problem("the %s hook cannot run: %s", agent, e.BinProblem)
			}
			if e.Trust != "" && e.Trust != "trusted" && e.BinProblem == "" {
				// codex exec skips such a hook without a word.
				hr.Problem = fmt.Sprintf("the %s hook is %s: Codex skips it (agate hooks install %s)", e.Event, e.Trust, agent)
				problem("the %s %s hook is %s, so Codex does not run it: run `agate hooks install %s`", agent, e.Event, e.Trust, agent)
			}
		}
		if hs.HooksOff != "" && len(hs.Entries) > 0 {
			hr.Problem = agent + " runs no hooks (" + hs.HooksOff + ")"
			hr.Installed = false
			problem("%s runs no hooks (%s): agate's hooks in %s do nothing", agent, hs.HooksOff, file)
		}
		r.Hooks = append(r.Hooks, hr)
	}
	r.MCP = mcpReports(problem)
	return r
}

// mcpReports reads the MCP clients' user files, writing nothing. A
// client with no hook of agate's (Claude Desktop, VS Code) that starts a
// server itself runs its tools ungated: that is a problem.
func mcpReports(problem func(string, ...any)) []MCPReport {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	var out []MCPReport
	for _, client := range clients.Clients() {
		targets, err := clients.Targets(client, home, "", nil)
		if err != nil {
			continue
		}
		for _, t := range targets {
			res, err := clients.Inspect(t)
			if err == nil && !res.Exists {
				continue
			}
			mr := MCPReport{Client: client, File: t.File}
			if err != nil {
				mr.Error = err.Error()
			}
			for _, s := range res.Proxied {
				mr.Proxied = append(mr.Proxied, s.Key)
			}
			for _, s := range res.Rewritten {
				mr.Direct = append(mr.Direct, s.Key)
			}
			for _, s := range res.Remote {
				mr.Remote = append(mr.Remote, s.Key)
			}
			if len(mr.Direct) > 0 && !hooks.Known(client) {
				problem("%s starts MCP servers agate does not gate (%s, in %s): run `agate mcp install %s`",
					client, strings.Join(mr.Direct, ", "), t.File, client)
			}
			if mr.Error != "" || len(mr.Proxied)+len(mr.Direct)+len(mr.Remote) > 0 {
				out = append(out, mr)
			}
		}
	}
	return out
}

// keychainReport says which backend keeps the master key and whether it
// answers, without unlocking anything.
func keychainReport(ctx context.Context, p api.Paths) KeychainReport {
	kr := KeychainReport{Store: p.KeyStore()}
	store, err := keystore.Open(p.KeyStore(), &keystore.Keychain{}, &keystore.Passphrase{Ask: keystore.EnvPrompt(nil)})
	if err != nil {
		kr.Health = "the store cannot be read: " + err.Error()
		return kr
	}
	kr.Backend = store.Backend()
	names, err := store.Names()
	if err != nil {
		kr.Health = "the store cannot be read: " + err.Error()
		return kr
	}
	kr.Keys = len(names)
	kctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, kerr := (&keystore.Keychain{}).Get(kctx, nil)
	switch {
	case kerr == nil || errors.Is(kerr, keystore.ErrNotFound):
		kr.Health = "the OS keychain answers"
	case errors.Is(kerr, keystore.ErrNoSessionBus):
		kr.NoSessionBus = true
		kr.Health = "no OS keychain here: there is no D-Bus session bus (a server, an SSH login, cron), " +
			"and agate starts none; keys use the passphrase (AGATE_PASSPHRASE or a prompt). " +
			"For the keychain, run agate in the desktop session, or set DBUS_SESSION_BUS_ADDRESS to its bus"
	default:
		kr.Health = "the OS keychain does not answer (" + kerr.Error() + "): keys use the passphrase (AGATE_PASSPHRASE or a prompt)"
	}
	return kr
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " (and more)"
	}
	return s
}

func cmdDoctor(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "doctor")
	var cf configFlags
	cf.add(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	r := Doctor(ctx, paths)
	if *asJSON {
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Fprintf(e.Stdout, "%s\n", b)
	} else {
		r.print(e.Stdout)
	}
	if len(r.Problems) > 0 {
		return &exitError{code: exitFailure, err: errSilent}
	}
	return nil
}

func (r *Report) print(w io.Writer) {
	fmt.Fprintf(w, "config:    %s", r.Config)
	if r.ConfigError != "" {
		fmt.Fprintf(w, "\n  BROKEN: %s", strings.ReplaceAll(r.ConfigError, "\n", "\n          "))
	}
	fmt.Fprintln(w)
	printManaged(w, "managed:   ", r.Managed)
	printExport(w, "export:    ", r.Export)
	printContainers(w, "container: ", r.Containers)
	fmt.Fprintf(w, "daemon:    %s\n", r.Daemon)
	s := r.Sandbox
	fmt.Fprintf(w, "sandbox:   enabled=%v launcher=%s available=%v network_isolation=%v fail_closed=%v\n", s.Enabled, s.Launcher, s.Available, s.NetworkIsolation, s.FailClosed)
	fmt.Fprintf(w, "           %s", s.Reason)
	if s.Version != "" {
		fmt.Fprintf(w, " (%s)", s.Version)
	}
	fmt.Fprintln(w)
	if s.Install != "" {
		fmt.Fprintf(w, "           to install: %s\n", s.Install)
	}
	if s.Fix != "" {
		fmt.Fprintf(w, "           to change: %s\n", s.Fix)
	}
	backend := r.Keychain.Backend
	if backend == "" {
		backend = "none yet (no key stored)"
	}
	fmt.Fprintf(w, "keys:      %d in %s, master key: %s; %s\n", r.Keychain.Keys, r.Keychain.Store, backend, r.Keychain.Health)
	fmt.Fprintf(w, "confine:   %s\n", r.Confine.State)
	fmt.Fprintf(w, "unasked:   %s\n", r.Unasked.State)
	broad := 0
	for _, g := range r.Grants {
		if g.Broad {
			broad++
		}
	}
	fmt.Fprintf(w, "grants:    %d saved, %d broad\n", len(r.Grants), broad)
	for _, h := range r.Hooks {
		state := "installed"
		if !h.Installed {
			state = h.Problem
		}
		fmt.Fprintf(w, "hooks:     %-12s %s (%s)\n", h.Agent, state, h.File)
	}
	for _, m := range r.MCP {
		fmt.Fprintf(w, "mcp:       %-12s %s (%s)\n", m.Client, mcpLine(m), m.File)
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(w, "\nno problems found")
		return
	}
	fmt.Fprintf(w, "\n%d problem(s):\n", len(r.Problems))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  - %s\n", p)
	}
}

// mcpLine says in words what one MCP client's file runs.
func mcpLine(m MCPReport) string {
	if m.Error != "" {
		return "cannot be read: " + m.Error
	}
	var parts []string
	if len(m.Proxied) > 0 {
		parts = append(parts, fmt.Sprintf("%d through agate's proxy", len(m.Proxied)))
	}
	if len(m.Direct) > 0 {
		parts = append(parts, fmt.Sprintf("%d started directly (%s; agate mcp install %s)", len(m.Direct), strings.Join(m.Direct, ", "), m.Client))
	}
	if len(m.Remote) > 0 {
		parts = append(parts, fmt.Sprintf("%d over HTTP/SSE, not gated (%s; agate mcp install %s runs those it can through agate's bridge)", len(m.Remote), strings.Join(m.Remote, ", "), m.Client))
	}
	return strings.Join(parts, "; ")
}

// confineUnaskedReport probes the OS's own sandbox, the one confined
// unasked calls run in, and says whether [sandbox] confine_unasked holds
// here, and why not.
func confineUnaskedReport(ctx context.Context, cfg *policy.Config, o sandbox.Options) ConfineReport {
	r := ConfineReport{On: cfg.Sandbox.ConfineUnasked}
	var diag sandbox.Diagnostics
	if r.On && runtime.GOOS == "linux" {
		pctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		diag = sandbox.Probe(pctx, machine.KernelOptions(o))
		cancel()
	}
	r.Works, r.State = machine.ConfineUnaskedState(cfg, runtime.GOOS, diag)
	return r
}
