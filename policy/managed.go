package policy

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Managed is the managed policy: a file in config.toml's shape that an
// administrator installs for every user of the machine, read before
// everything else. What it says holds whatever the person's config, a
// project overlay, a grant or a remembered answer says: those can
// tighten it, never loosen it.
//
//   - Its hard_deny, protected_paths and secret_paths are added to the
//     person's, and so are its [tools] switched off.
//   - Its deny and ask rules are a layer of their own (LayerManaged),
//     consulted right after hard_deny, before the mode (yolo included),
//     the person's rules, grants and the sandbox: a call they match asks
//     or is denied, never confined or kept instead. Its allow rules come
//     after the person's rules, which can still deny or ask first.
//   - Its mode is a floor: no agent runs looser.
//   - What can be tightened by a number or a switch is the stricter of
//     the two: [approvals] timeout and max_pending are ceilings,
//     allow_yolo = false and [sandbox] confine_project = false hold,
//     fail_closed, confine_unasked, [hooks] sandbox_bash, on_daemon_down =
//     "deny" and [tools] sandbox = true hold, [undo] keep = false holds
//     and its limits are ceilings (min_free_mb a floor), [audit] sizes
//     are floors, auto_approve is what both allow.
//   - Everything else it sets (trusted_dirs, trusted_domains, the
//     sandbox's launcher and writable paths, [secrets], [undo] max_age,
//     [agents], [catalog], [programs], [mcp]) replaces the person's whole.
//   - [managed] lock names keys the file does not set that the person may
//     not set either: the person's value goes, the default stands.
//
// A key the person's config sets looser than the managed file allows is
// left out and reported (Problems), the rest of the config applying.
type Managed struct {
	// Source is the file it was read from.
	Source string
	cfg    *Config
	set    map[string]bool // the keys the file sets, "auto.mode", "programs", "tools.web"
	lock   map[string]bool // [managed] lock
	mcp    []string        // [managed] mcp_servers
	mcpSet bool            // mcp_servers is written (an empty list allows none)
	failed error           // the file could not be used: FailedManaged
}

// ManagedSection is the [managed] section, which only the managed file
// may hold.
type ManagedSection struct {
	// Lock names keys the person's config may not set: "auto.trusted_dirs",
	// "sandbox.writable", or a whole section ("programs", "catalog").
	Lock []string `toml:"lock"`
	// MCPServers, when written, are the only MCP servers agents may use,
	// by what they run: an npm package ("@modelcontextprotocol/server-
	// filesystem"), a program's absolute path, or a remote server's URL
	// (a prefix: "https://mcp.example.com/"). Each runs through agate's
	// proxy; a tool of a server no proxy gates is denied.
	MCPServers []string `toml:"mcp_servers"`
}

// lockable are the keys [managed] lock may name: each key of the fixed
// sections (as "section.key"), and the sections whose keys are names.
func lockable(key string) bool {
	switch key {
	case "tools", "agents", "catalog", "programs", "mcp", "secrets.env", "auto", "approvals", "hooks", "sandbox", "secrets", "audit", "undo":
		return true
	}
	section, k, ok := strings.Cut(key, ".")
	if !ok {
		return false
	}
	switch section {
	case "auto", "approvals", "hooks", "sandbox", "secrets", "audit", "undo":
		return slices.Contains(configKeys[section], k)
	}
	return false
}

// configKeys are the keys of config.toml's fixed sections.
var configKeys = map[string][]string{
	"auto":      {"mode", "auto_approve", "rules", "trusted_dirs", "trusted_domains", "hard_deny", "protected_paths", "secret_paths"},
	"approvals": {"timeout", "allow_yolo", "max_pending"},
	"hooks":     {"on_daemon_down", "sandbox_bash"},
	"sandbox":   {"launcher", "fail_closed", "wrapper", "image", "network", "memory", "cpus", "runtime", "writable", "confine_project", "confine_unasked"},
	"secrets":   {"vault_env", "env"},
	"audit":     {"max_size_mb", "keep", "export"},
	"undo":      {"keep", "max_call_mb", "max_total_mb", "max_files", "max_age", "min_free_mb"},
}

// ParseManaged reads a managed policy file. A file that does not parse,
// or that names a key [managed] lock cannot lock, is an error: the
// caller then runs FailedManaged.
func ParseManaged(name string, data []byte) (*Managed, error) {
	cfg, md, err := parse(name, data, true)
	if err != nil {
		return nil, err
	}
	m := &Managed{Source: name, cfg: cfg, set: map[string]bool{}, lock: map[string]bool{}}
	for _, k := range md.Keys() {
		switch {
		case len(k) == 0 || k[0] == "managed":
		case len(k) >= 2 && (k[0] == "tools" || (k[0] == "secrets" && k[1] == "env")):
			if k[0] == "tools" {
				m.set["tools."+k[1]] = true
			} else {
				m.set["secrets.env"] = true
			}
		case k[0] == "agents" || k[0] == "catalog" || k[0] == "programs" || k[0] == "mcp":
			if len(k) >= 2 {
				m.set[k[0]] = true
			}
		case len(k) >= 2:
			m.set[k[0]+"."+k[1]] = true
		}
	}
	var errs []*ConfigError
	if md.IsDefined("managed", "mcp_servers") {
		m.mcpSet = true
		for i, e := range cfg.Managed.MCPServers {
			if !validMCPEntry(e) {
				errs = append(errs, cfg.errAt("managed.mcp_servers", i, "%q is not an npm package, an absolute path or an https:// URL", e))
				continue
			}
			m.mcp = append(m.mcp, e)
		}
	}
	for i, l := range cfg.Managed.Lock {
		if !lockable(l) {
			errs = append(errs, cfg.errAt("managed.lock", i, "%q is not a key the managed policy can lock", l))
			continue
		}
		m.lock[l] = true
	}
	if len(errs) > 0 {
		return nil, joinConfigErrors(errs)
	}
	// What would not compile is refused now, not at the first reload
	// (which would keep the policy of before in force).
	if _, err := Compile(cfg, Options{}); err != nil {
		return nil, err
	}
	return m, nil
}

// HardDeny is the hard_deny entries in force: the managed policy's, then
// the person's.
func (c *Config) HardDeny() []string { return c.withManaged("auto.hard_deny", c.Auto.HardDeny) }

// ProtectedPaths is the protected paths in force, the managed policy's
// with the person's: what confined runs keep read-only.
func (c *Config) ProtectedPaths() []string {
	return c.withManaged("auto.protected_paths", c.Auto.ProtectedPaths)
}

// SecretPaths is the secret paths in force, the managed policy's with
// the person's: what confined runs hide.
func (c *Config) SecretPaths() []string {
	return c.withManaged("auto.secret_paths", c.Auto.SecretPaths)
}

func (c *Config) withManaged(key string, mine []string) []string {
	m := c.managed
	if m == nil || m.failed != nil || !m.set[key] {
		return mine
	}
	var theirs []string
	switch key {
	case "auto.hard_deny":
		theirs = m.cfg.Auto.HardDeny
	case "auto.protected_paths":
		theirs = m.cfg.Auto.ProtectedPaths
	case "auto.secret_paths":
		theirs = m.cfg.Auto.SecretPaths
	}
	return append(slices.Clone(theirs), mine...)
}

// FailedManaged is the managed layer of a managed file that exists but
// cannot be used (it does not parse, or another than root can write it):
// what it would have said cannot be known, so the policy fails closed on
// it: manual mode at the least, yolo off, a call with the daemon down
// denied, a missing sandbox refusing to run.
func FailedManaged(source string, err error) *Managed {
	if err == nil {
		err = errors.New("the managed policy cannot be used")
	}
	return &Managed{Source: source, failed: err}
}

// Failed returns why the managed file could not be used, or nil.
func (m *Managed) Failed() error { return m.failed }

// Locked reports whether the person's config may not set key ("auto.mode",
// "programs"): the managed file sets it, or locks it.
func (m *Managed) Locked(key string) bool {
	if m == nil {
		return false
	}
	if m.failed != nil {
		switch key {
		case "auto.mode", "approvals.allow_yolo", "hooks.on_daemon_down", "sandbox.fail_closed":
			return true
		}
		return false
	}
	section, _, _ := strings.Cut(key, ".")
	return m.set[key] || m.lock[key] || m.lock[section]
}

// has reports whether the managed file speaks for key.
func (m *Managed) has(key string) bool { return m.Locked(key) }

// Apply returns the config in force: user's with the managed layer over
// it. user is not changed. What user says that the managed policy does
// not allow is left out and returned as problems, each naming the
// person's file and key.
func (m *Managed) Apply(user *Config) (*Config, []*ConfigError) {
	out := *user
	out.managed = m
	var problems []*ConfigError
	refuse := func(key string, format string, args ...any) {
		e := user.errAt(key, -1, format, args...)
		e.Err = fmt.Errorf("refused, the managed policy (%s) does not allow it: %w", m.Source, e.Err)
		problems = append(problems, e)
	}
	if m.failed != nil {
		out.Approvals.AllowYolo = false
		out.Hooks.OnDaemonDown = "deny"
		out.Sandbox.FailClosed = true
		problems = append(problems, &ConfigError{File: m.Source, Err: fmt.Errorf("the managed policy is not in force (%w): every call that acts asks, yolo is off", m.failed)})
		out.managedProblems = problems
		return &out, problems
	}
	M, def := m.cfg, DefaultConfig()
	// [auto]
	if m.has("auto.auto_approve") {
		var both []string
		for _, c := range user.Auto.AutoApprove {
			if slices.Contains(M.Auto.AutoApprove, c) {
				both = append(both, c)
			} else {
				refuse("auto.auto_approve", "category %q is not auto-approved by the managed policy", c)
			}
		}
		out.Auto.AutoApprove = both
	}
	if m.has("auto.rules") && !m.set["auto.rules"] && len(user.Auto.Rules) > 0 {
		refuse("auto.rules", "the managed policy locks the rules")
		out.Auto.Rules = nil
	}
	for _, k := range []string{"trusted_dirs", "trusted_domains"} {
		if !m.has("auto." + k) {
			continue
		}
		mine, theirs := &out.Auto.TrustedDirs, M.Auto.TrustedDirs
		if k == "trusted_domains" {
			mine, theirs = &out.Auto.TrustedDomains, M.Auto.TrustedDomains
		}
		for _, v := range *mine {
			if !slices.Contains(theirs, v) {
				refuse("auto."+k, "%q is not in the managed policy's %s", v, k)
			}
		}
		*mine = nil // the managed file's, compiled with its own lines
	}
	// [approvals]
	if m.has("approvals.timeout") && user.Approvals.Timeout > M.Approvals.Timeout {
		refuse("approvals.timeout", "%s is longer than the managed policy's %s", user.Approvals.Timeout.D(), M.Approvals.Timeout.D())
		out.Approvals.Timeout = M.Approvals.Timeout
	}
	if m.has("approvals.max_pending") && user.Approvals.MaxPending > M.Approvals.MaxPending {
		refuse("approvals.max_pending", "%d is more than the managed policy's %d", user.Approvals.MaxPending, M.Approvals.MaxPending)
		out.Approvals.MaxPending = M.Approvals.MaxPending
	}
	if m.has("approvals.allow_yolo") && !M.Approvals.AllowYolo && user.Approvals.AllowYolo {
		refuse("approvals.allow_yolo", "the managed policy turns yolo off")
		out.Approvals.AllowYolo = false
	}
	if !out.Approvals.AllowYolo {
		if user.Auto.Mode == "yolo" {
			refuse("auto.mode", "mode yolo is off under the managed policy")
			out.Auto.Mode = "ask"
		}
		agents := map[string]Agent{}
		for name, a := range user.Agents {
			if a.Mode == "yolo" {
				refuse("agents."+name+".mode", "mode yolo is off under the managed policy")
				a.Mode = ""
			}
			agents[name] = a
		}
		out.Agents = agents
	}
	// [hooks]
	if m.has("hooks.on_daemon_down") && M.Hooks.OnDaemonDown == "deny" && user.Hooks.OnDaemonDown != "deny" {
		refuse("hooks.on_daemon_down", "the managed policy denies a call when the daemon is down")
		out.Hooks.OnDaemonDown = "deny"
	}
	if m.has("hooks.sandbox_bash") && M.Hooks.SandboxBash && !user.Hooks.SandboxBash {
		refuse("hooks.sandbox_bash", "the managed policy runs Bash calls in the sandbox")
		out.Hooks.SandboxBash = true
	}
	// [sandbox]
	strictTrue := func(key string, managed bool, mine *bool) {
		if m.has(key) && managed && !*mine {
			refuse(key, "the managed policy turns it on")
			*mine = true
		}
	}
	strictTrue("sandbox.fail_closed", M.Sandbox.FailClosed, &out.Sandbox.FailClosed)
	strictTrue("sandbox.confine_unasked", M.Sandbox.ConfineUnasked, &out.Sandbox.ConfineUnasked)
	if m.has("sandbox.confine_project") && !M.Sandbox.ConfineProject && user.Sandbox.ConfineProject {
		refuse("sandbox.confine_project", "the managed policy does not let the project's code run unasked")
		out.Sandbox.ConfineProject = false
	}
	replaceString := func(key string, managed string, mine *string, def string) {
		if m.has(key) {
			if *mine != managed && *mine != def {
				refuse(key, "the managed policy sets it to %q", managed)
			}
			*mine = managed
		}
	}
	replaceString("sandbox.launcher", M.Sandbox.Launcher, &out.Sandbox.Launcher, def.Sandbox.Launcher)
	replaceString("sandbox.wrapper", M.Sandbox.Wrapper, &out.Sandbox.Wrapper, def.Sandbox.Wrapper)
	replaceString("sandbox.image", M.Sandbox.Image, &out.Sandbox.Image, def.Sandbox.Image)
	replaceString("sandbox.network", M.Sandbox.Network, &out.Sandbox.Network, def.Sandbox.Network)
	replaceString("sandbox.memory", M.Sandbox.Memory, &out.Sandbox.Memory, def.Sandbox.Memory)
	replaceString("sandbox.cpus", M.Sandbox.CPUs, &out.Sandbox.CPUs, def.Sandbox.CPUs)
	replaceString("sandbox.runtime", M.Sandbox.Runtime, &out.Sandbox.Runtime, def.Sandbox.Runtime)
	replaceList := func(key string, managed []string, mine *[]string) {
		if m.has(key) {
			for _, v := range *mine {
				if !slices.Contains(managed, v) {
					refuse(key, "%q is not in the managed policy's list", v)
				}
			}
			*mine = slices.Clone(managed)
		}
	}
	replaceList("sandbox.writable", M.Sandbox.Writable, &out.Sandbox.Writable)
	// [secrets]
	replaceList("secrets.vault_env", M.Secrets.VaultEnv, &out.Secrets.VaultEnv)
	if m.has("secrets.env") {
		if len(user.Secrets.Env) > 0 && !mapsEqual(user.Secrets.Env, M.Secrets.Env) {
			refuse("secrets.env", "the managed policy sets [secrets.env]")
		}
		out.Secrets.Env = cloneMap(M.Secrets.Env)
	}
	// [audit]: keeping more is stricter.
	if m.has("audit.max_size_mb") && user.Audit.MaxSizeMB < M.Audit.MaxSizeMB {
		out.Audit.MaxSizeMB = M.Audit.MaxSizeMB
	}
	if m.has("audit.keep") && user.Audit.Keep < M.Audit.Keep {
		out.Audit.Keep = M.Audit.Keep
	}
	// [audit.export]: the team's log stack, whole.
	if m.has("audit.export") {
		if user.Audit.Export.Endpoint != "" && user.Audit.Export.Endpoint != M.Audit.Export.Endpoint {
			refuse("audit.export", "the managed policy sets where the audit log is exported")
		}
		out.Audit.Export = M.Audit.Export
	}
	// [undo]: keeping nothing asks more; smaller limits ask more.
	if m.has("undo.keep") && !M.Undo.Keep && user.Undo.Keep {
		refuse("undo.keep", "the managed policy keeps nothing: such calls ask")
		out.Undo.Keep = false
	}
	ceiling := func(key string, managed int, mine *int) {
		if m.has(key) && *mine > managed {
			refuse(key, "%d is more than the managed policy's %d", *mine, managed)
			*mine = managed
		}
	}
	ceiling("undo.max_call_mb", M.Undo.MaxCallMB, &out.Undo.MaxCallMB)
	ceiling("undo.max_total_mb", M.Undo.MaxTotalMB, &out.Undo.MaxTotalMB)
	ceiling("undo.max_files", M.Undo.MaxFiles, &out.Undo.MaxFiles)
	if m.has("undo.min_free_mb") && out.Undo.MinFreeMB < M.Undo.MinFreeMB {
		out.Undo.MinFreeMB = M.Undo.MinFreeMB
	}
	if m.has("undo.max_age") {
		if user.Undo.MaxAge != M.Undo.MaxAge && user.Undo.MaxAge != def.Undo.MaxAge {
			refuse("undo.max_age", "the managed policy sets it to %s", M.Undo.MaxAge.D())
		}
		out.Undo.MaxAge = M.Undo.MaxAge
	}
	// [tools]: off holds; the sandbox on holds.
	tools := cloneMap(user.Tools)
	for k, v := range M.Tools {
		if !m.has("tools." + k) {
			continue
		}
		if (k == "sandbox" && v && !tools[k]) || (k != "sandbox" && !v && tools[k]) {
			refuse("tools."+k, "the managed policy sets it %v", v)
			tools[k] = v
		}
	}
	if m.lock["tools"] {
		for k, v := range tools {
			if d := def.Tools[k]; v != d && !m.set["tools."+k] {
				refuse("tools."+k, "the managed policy locks [tools]")
				tools[k] = d
			}
		}
	}
	out.Tools = tools
	out.Catalog, out.Programs = cloneMap(user.Catalog), cloneMap(user.Programs)
	// Under managed rules or paths, the person's catalog may add tools
	// and programs, never redefine agate's own: a Write redefined as a
	// read-only memory tool, a cp with no effects, would hide from the
	// managed layer what a call writes.
	if !m.has("catalog") && m.guards() {
		builtin := builtinCatalog()
		for name := range user.Catalog {
			if _, ok := builtin.exact[name]; ok || builtin.Lookup(name).known {
				refuse("catalog."+name, "the managed policy's rules and paths hold: agate's own %s is not redefined", name)
				if out.Catalog != nil {
					delete(out.Catalog, name)
				}
			}
		}
	}
	if !m.has("programs") && m.guards() {
		if specs, err := builtinProgramSpecs(); err == nil {
			for name := range user.Programs {
				if _, ok := specs[name]; ok {
					refuse("programs."+name, "the managed policy's rules and paths hold: agate's own %s is not redefined", name)
					delete(out.Programs, name)
				}
			}
		}
	}
	// Whole sections.
	if m.has("agents") {
		if len(user.Agents) > 0 {
			refuse("agents", "the managed policy sets [agents]")
		}
		out.Agents = cloneMap(M.Agents)
	}
	if m.has("catalog") {
		if len(user.Catalog) > 0 {
			refuse("catalog", "the managed policy sets [catalog]")
		}
		out.Catalog = cloneMap(M.Catalog)
	}
	if m.has("programs") {
		if len(user.Programs) > 0 {
			refuse("programs", "the managed policy sets [programs]")
		}
		out.Programs = cloneMap(M.Programs)
	}
	if m.has("mcp") {
		if len(user.MCP.Servers) > 0 {
			refuse("mcp", "the managed policy sets [mcp]")
		}
		out.MCP = MCP{Servers: cloneMap(M.MCP.Servers)}
	}
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].Line < problems[j].Line })
	out.managedProblems = problems
	return &out, problems
}

// guards reports whether the managed file holds calls to rules or paths
// of its own, which what a call does must be judged against.
func (m *Managed) guards() bool {
	return m.set["auto.rules"] || m.set["auto.hard_deny"] || m.set["auto.protected_paths"] || m.set["auto.secret_paths"] || m.mcpSet
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// ManagedLayer returns the managed layer the config was put under, or
// nil.
func (c *Config) ManagedLayer() *Managed { return c.managed }

// ManagedProblems returns what the managed layer refused of the person's
// config (and, when it failed, why it is not in force).
func (c *Config) ManagedProblems() []*ConfigError { return c.managedProblems }

// LockedKeys lists the keys of config.toml the managed layer speaks for
// (sorted): what the settings panel shows locked.
func (m *Managed) LockedKeys() []string {
	if m == nil {
		return nil
	}
	var out []string
	for section, keys := range configKeys {
		for _, k := range keys {
			if m.Locked(section + "." + k) {
				out = append(out, section+"."+k)
			}
		}
	}
	for _, s := range []string{"tools", "agents", "catalog", "programs", "mcp"} {
		if m.Locked(s) {
			out = append(out, s)
		}
	}
	for k := range m.set {
		if strings.HasPrefix(k, "tools.") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// validMCPEntry reports whether e can name a server in mcp_servers.
func validMCPEntry(e string) bool {
	switch {
	case e == "" || strings.ContainsAny(e, " \t\n\x00"):
		return false
	case strings.HasPrefix(e, "https://") || strings.HasPrefix(e, "http://"):
		return len(e) > len("https://")
	case strings.HasPrefix(e, "/"):
		return true
	}
	// An npm package: name, or @scope/name.
	name := e
	if strings.HasPrefix(e, "@") {
		scope, rest, ok := strings.Cut(e[1:], "/")
		if !ok || scope == "" || rest == "" || strings.Contains(rest, "/") {
			return false
		}
		name = rest
	}
	return !strings.ContainsAny(name, "/@:\\")
}

// MCPServers returns the MCP servers the managed policy allows; ok is
// false when it does not say (any server may run).
func (m *Managed) MCPServers() (list []string, ok bool) {
	if m == nil {
		return nil, false
	}
	if m.failed != nil {
		return nil, true // what it allowed cannot be known: none
	}
	return m.mcp, m.mcpSet
}

// AllowsMCPServer reports whether the managed policy lets a server run
// that is what ids say (its npm package, its program's absolute path, or
// its URL). With no mcp_servers, every server may.
func (m *Managed) AllowsMCPServer(ids ...string) bool {
	list, set := m.MCPServers()
	if !set {
		return true
	}
	for _, e := range list {
		for _, id := range ids {
			switch {
			case id == "":
			case strings.HasPrefix(e, "https://") || strings.HasPrefix(e, "http://"):
				if dotted(id) {
					continue // /team/../admin is not under /team/
				}
				if strings.HasPrefix(id, e) && (strings.HasSuffix(e, "/") || len(id) == len(e) || strings.ContainsRune("/?#", rune(id[len(e)]))) {
					return true
				}
			case id == e:
				return true
			}
		}
	}
	return false
}

// dotted reports whether a URL's path climbs (a ".." segment, plain or
// escaped), so that a prefix says nothing of where it goes.
func dotted(u string) bool {
	l := strings.ToLower(u)
	return strings.Contains(l, "/..") || strings.Contains(l, "%2e") || strings.Contains(l, "\\")
}
