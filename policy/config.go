package policy

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// MaxConfigSize bounds a config file; a larger one is refused, not read in
// part.
const MaxConfigSize = 1 << 20

// Config is the whole of config.toml, decoded and checked. The zero value
// is not useful: start from DefaultConfig or Parse.
type Config struct {
	Auto      Auto                `toml:"auto"`
	Tools     map[string]bool     `toml:"tools"` // category toggles, and "sandbox"
	Agents    map[string]Agent    `toml:"agents"`
	Approvals Approvals           `toml:"approvals"`
	Hooks     Hooks               `toml:"hooks"`
	Sandbox   Sandbox             `toml:"sandbox"`
	Secrets   Secrets             `toml:"secrets"`
	Audit     Audit               `toml:"audit"`
	Undo      Undo                `toml:"undo"`
	Catalog   map[string]ToolSpec `toml:"catalog"` // extra or overriding tool specs
	// Programs adds programs to the catalog of programs, or replaces one
	// whole: [programs.NAME], as policy/programs/*.toml writes them.
	Programs map[string]ProgramSpec `toml:"programs"`
	// MCP is the [mcp] section: agate's MCP proxy, per server.
	MCP MCP `toml:"mcp"`
	// Managed is the [managed] section, read only from the managed
	// policy file (ParseManaged).
	Managed ManagedSection `toml:"managed"`

	// Source names where the config came from: a file path, or "" for the
	// built-in defaults.
	Source string `toml:"-"`
	data   []byte // the text it was parsed from, for line numbers
	// managed is the managed layer Apply put over it, and what it
	// refused of this config.
	managed         *Managed
	managedProblems []*ConfigError
}

// Auto is the [auto] section, the permission policy. It reads eVi's [auto]
// section unchanged and adds secret_paths.
type Auto struct {
	Mode           string   `toml:"mode"`            // ask | accept_edits | plan | yolo | auto | manual
	AutoApprove    []string `toml:"auto_approve"`    // categories allowed without asking
	Rules          []string `toml:"rules"`           // first-match "allow|deny|ask <tool-glob> [arg-glob]"
	TrustedDirs    []string `toml:"trusted_dirs"`    // fs/code calls under these allow
	TrustedDomains []string `toml:"trusted_domains"` // web calls to these hosts (and subdomains) allow
	HardDeny       []string `toml:"hard_deny"`       // "[deny] <tool-glob> [arg-glob]", before everything
	ProtectedPaths []string `toml:"protected_paths"` // writes here ask; extends the built-in list
	SecretPaths    []string `toml:"secret_paths"`    // reads here ask; extends the built-in list
}

// MCP is the [mcp] section: what `agate mcp run` does per server, by
// the name the policy knows its tools by ([mcp.servers.NAME]).
type MCP struct {
	Servers map[string]MCPServer `toml:"servers"`
}

// MCPServer is one [mcp.servers.NAME] section.
type MCPServer struct {
	// PIIRedact replaces personal data in the server's results (e-mail
	// addresses, card numbers, IBANs, national ids) with numbered
	// placeholders before the client reads them.
	PIIRedact bool `toml:"pii_redact"`
	// Confine starts the server inside agate's sandbox: its folders
	// (Writable, or those the catalog knows it serves) writable, the
	// network only with Network, the credential stores hidden. Unset, it
	// is on for the servers agate's catalog knows and for a server
	// started from the project (the project's own code), and off for the
	// rest.
	Confine *bool `toml:"confine"`
	// Network lets a confined server reach the network (a catalog entry
	// that needs it has it already).
	Network bool `toml:"network"`
	// Writable are more paths a confined server may write ("~/" is the
	// home folder).
	Writable []string `toml:"writable"`
	// PassEnv names variables passed to a confined server although their
	// names say they are credentials: the token its client sets for it.
	PassEnv []string `toml:"pass_env"`
}

// Agent is one [agents.NAME] section.
type Agent struct {
	Mode                  string   `toml:"mode"`                    // overrides [auto] mode for this agent
	AutoApprove           []string `toml:"auto_approve"`            // grants: "bash:none", "write_file:writes", "*"
	TrustUntrustedContent bool     `toml:"trust_untrusted_content"` // keep pre-approvals in tainted runs
}

// Approvals is the [approvals] section.
type Approvals struct {
	Timeout    Duration `toml:"timeout"`     // how long a question waits before it is denied
	AllowYolo  bool     `toml:"allow_yolo"`  // false makes mode = "yolo" a config error
	MaxPending int      `toml:"max_pending"` // questions waiting at once; past it, calls are denied
}

// Hooks is the [hooks] section, for the agent hook adapters.
type Hooks struct {
	OnDaemonDown string `toml:"on_daemon_down"` // "deny" (block the call) or "ask" (the agent's own prompt)
	SandboxBash  bool   `toml:"sandbox_bash"`   // rewrite allowed Claude Code Bash calls to run under `agate sandbox`
}

// Sandbox is the [sandbox] section. [tools] sandbox switches it on.
type Sandbox struct {
	Launcher   string   `toml:"launcher"`    // auto | bwrap | landlock | sandbox-exec | docker | podman | wrapper | none
	FailClosed bool     `toml:"fail_closed"` // refuse to run when no launcher works
	Wrapper    string   `toml:"wrapper"`     // executable for launcher = "wrapper"
	Image      string   `toml:"image"`       // container image
	Network    string   `toml:"network"`     // container network when --net: "bridge" or "none"
	Memory     string   `toml:"memory"`      // container memory limit, e.g. "2g"
	CPUs       string   `toml:"cpus"`        // container CPU limit, e.g. "1.5"
	Runtime    string   `toml:"runtime"`     // container OCI runtime, e.g. "runc"
	Writable   []string `toml:"writable"`    // extra writable paths besides the work dir
	// ConfineProject lets the project's own code (make test, pytest) run
	// unasked inside the sandbox, headless too, where the agent lets agate
	// rewrite the command and the sandbox works here.
	ConfineProject bool `toml:"confine_project"`
	// ConfineUnasked runs every shell call agate allows without a person
	// inside the sandbox, cut to what was judged of it (read-only, or the
	// project writable; never the network, never the secret stores),
	// where the agent lets agate rewrite the call and bwrap or Landlock
	// works here. On by default; false judges as before.
	ConfineUnasked bool `toml:"confine_unasked"`
}

// Secrets is the [secrets] section.
type Secrets struct {
	VaultEnv []string          `toml:"vault_env"` // variables passed to exec: references
	Env      map[string]string `toml:"env"`       // VARIABLE = reference, e.g. OPENAI_API_KEY = "keystore:openai"
}

// Audit is the [audit] section.
type Audit struct {
	MaxSizeMB int `toml:"max_size_mb"` // rotate the log past this size
	Keep      int `toml:"keep"`        // rotated files kept
	// Export ships the log to a team's log stack over OpenTelemetry's
	// log protocol (OTLP/HTTP).
	Export AuditExport `toml:"export"`
}

// AuditExport is the [audit.export] section. It is read from config.toml
// and the managed policy only, never from a project's overlay.
type AuditExport struct {
	// Endpoint is the collector's OTLP/HTTP address
	// ("https://otel.example.com:4318"; /v1/logs is added when the path is
	// empty). "" exports nothing. Plain http:// only to this machine.
	Endpoint string `toml:"endpoint"`
	// Headers are sent with each export, each value a secret's reference
	// ("keystore:otel-token", "${VAR}"), never the value in clear.
	Headers map[string]string `toml:"headers"`
	// Resource are attributes added to the resource of every record
	// (team, environment), beside user, host and agate's version.
	Resource map[string]string `toml:"resource"`
}

// Undo is the [undo] section: the copies agate keeps of what it lets a
// call delete or overwrite that git cannot give back (agate undo).
type Undo struct {
	Keep       bool     `toml:"keep"`         // false: keep nothing, and such calls ask
	MaxCallMB  int      `toml:"max_call_mb"`  // a call that would lose more asks
	MaxTotalMB int      `toml:"max_total_mb"` // all copies together; past it, calls that destroy ask
	MaxFiles   int      `toml:"max_files"`    // files one call may lose and have kept
	MaxAge     Duration `toml:"max_age"`      // copies older than this go
	MinFreeMB  int      `toml:"min_free_mb"`  // nothing is kept when the disk would have less free
}

// Duration is a length of time written as "120s", "2m" or a number of
// seconds.
type Duration time.Duration

// UnmarshalTOML implements toml.Unmarshaler.
func (d *Duration) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		p, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("bad duration %q (want e.g. \"120s\" or \"2m\")", v)
		}
		*d = Duration(p)
	case int64:
		*d = Duration(time.Duration(v) * time.Second)
	default:
		return fmt.Errorf("bad duration %v (want e.g. \"120s\")", v)
	}
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// ConfigError is one problem in a config file, with where it is.
type ConfigError struct {
	File string // the file, or "" for built-in defaults
	Line int    // 1-based; 0 when unknown
	Key  string // dotted key, with an index for array elements: "auto.rules[2]"
	Err  error
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// DefaultConfig returns the built-in defaults: eVi's [auto] defaults, every
// category switched on but computer, the sandbox off and failing closed.
func DefaultConfig() *Config {
	return &Config{
		Auto: Auto{
			Mode:        "ask",
			AutoApprove: []string{"fs", "code", "memory", "skills", "image"},
		},
		Tools: map[string]bool{
			"fs": true, "code": true, "shell": true, "web": true, "mcp": true, "memory": true,
			"skills": true, "image": true, "subagent": true, "git": true, "computer": false,
			"sandbox": false,
		},
		Approvals: Approvals{Timeout: Duration(120 * time.Second), AllowYolo: true, MaxPending: 100},
		Hooks:     Hooks{OnDaemonDown: "deny"},
		Sandbox:   Sandbox{Launcher: "auto", FailClosed: true, Network: "none", ConfineUnasked: true},
		Audit:     Audit{MaxSizeMB: 10, Keep: 5},
		Undo: Undo{Keep: true, MaxCallMB: 256, MaxTotalMB: 2048, MaxFiles: 20000,
			MaxAge: Duration(7 * 24 * time.Hour), MinFreeMB: 1024},
	}
}

// Parse decodes and checks a config file. name is used in errors. Every
// problem found is reported, each as a *ConfigError naming file, line and
// key; on any error nothing is returned, so nothing is partly applied.
func Parse(name string, data []byte) (*Config, error) {
	cfg, _, err := parse(name, data, false)
	return cfg, err
}

// parse is Parse, with what the decoder read; managed allows the
// [managed] section.
func parse(name string, data []byte, managed bool) (*Config, toml.MetaData, error) {
	if len(data) > MaxConfigSize {
		return nil, toml.MetaData{}, &ConfigError{File: name, Err: fmt.Errorf("file is %d bytes, more than the %d allowed", len(data), MaxConfigSize)}
	}
	cfg := DefaultConfig()
	cfg.Tools = map[string]bool{}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, md, &ConfigError{File: name, Line: pe.Position.Line, Key: pe.LastKey, Err: errors.New(pe.Message)}
		}
		return nil, md, &ConfigError{File: name, Err: err}
	}
	// The [tools] toggles not written keep their defaults.
	for k, v := range DefaultConfig().Tools {
		if _, set := cfg.Tools[k]; !set {
			cfg.Tools[k] = v
		}
	}
	cfg.Source, cfg.data = name, data

	var errs []*ConfigError
	for _, k := range md.Undecoded() {
		errs = append(errs, &ConfigError{File: name, Line: findLine(data, k, -1), Key: k.String(),
			Err: errors.New("unknown key")})
	}
	if !managed && md.IsDefined("managed") {
		errs = append(errs, &ConfigError{File: name, Line: findLine(data, toml.Key{"managed"}, -1), Key: "managed",
			Err: errors.New("[managed] belongs in the managed policy file an administrator installs, not here")})
	}
	errs = append(errs, cfg.check()...)
	if len(errs) > 0 {
		return nil, md, joinConfigErrors(errs)
	}
	return cfg, md, nil
}

// joinConfigErrors sorts errors by line and joins them.
func joinConfigErrors(errs []*ConfigError) error {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
	all := make([]error, len(errs))
	for i, e := range errs {
		all[i] = e
	}
	return errors.Join(all...)
}

// errAt builds a ConfigError for key (dotted) and, if index >= 0, its
// array element.
func (c *Config) errAt(key string, index int, format string, args ...any) *ConfigError {
	parts := strings.Split(key, ".")
	k := key
	if index >= 0 {
		k = fmt.Sprintf("%s[%d]", key, index)
	}
	return &ConfigError{File: c.Source, Line: findLine(c.data, parts, index), Key: k, Err: fmt.Errorf(format, args...)}
}

// check validates what the TOML decoder cannot: names, globs, grants, modes.
func (c *Config) check() []*ConfigError {
	var errs []*ConfigError
	add := func(e *ConfigError) { errs = append(errs, e) }

	for name, s := range c.MCP.Servers {
		if !validServerName(name) {
			add(c.errAt("mcp.servers."+name, -1, "a server name is 1 to 64 letters, digits, '_', '-' or '.', without \"__\" and without '_' at either end"))
		}
		for i, w := range s.Writable {
			if w == "/" || !(path.IsAbs(w) || w == "~" || strings.HasPrefix(w, "~/")) {
				add(c.errAt("mcp.servers."+name+".writable", i, "%q: a writable path is absolute or \"~/...\", and not /", w))
			}
		}
		for i, v := range s.PassEnv {
			if !ValidEnvName(v) || strings.HasPrefix(strings.ToUpper(v), "AGATE_") {
				add(c.errAt("mcp.servers."+name+".pass_env", i, "%q: a variable's name (letters, digits and '_', not starting with a digit), not one of agate's AGATE_*", v))
			}
		}
	}
	if m, err := ParseMode(c.Auto.Mode); err != nil {
		add(c.errAt("auto.mode", -1, "%v", err))
	} else if m == ModeYolo && !c.Approvals.AllowYolo {
		add(c.errAt("auto.mode", -1, "mode \"yolo\" is switched off by [approvals] allow_yolo = false"))
	}
	for i, cat := range c.Auto.AutoApprove {
		if !knownCategory(cat) {
			add(c.errAt("auto.auto_approve", i, "unknown category %q (want one of %s)", cat, strings.Join(Categories, ", ")))
		}
	}
	for i, r := range c.Auto.Rules {
		if _, err := parseRule(r, false); err != nil {
			add(c.errAt("auto.rules", i, "%v", err))
		}
	}
	for i, r := range c.Auto.HardDeny {
		if _, err := parseRule(r, true); err != nil {
			add(c.errAt("auto.hard_deny", i, "%v", err))
		}
	}
	for i, d := range c.Auto.TrustedDirs {
		if strings.TrimSpace(d) == "" {
			add(c.errAt("auto.trusted_dirs", i, "empty path"))
		}
	}
	for i, d := range c.Auto.TrustedDomains {
		if err := checkDomain(d); err != nil {
			add(c.errAt("auto.trusted_domains", i, "%v", err))
		}
	}
	for i, p := range c.Auto.ProtectedPaths {
		if _, err := compilePathPattern(p, Options{}); err != nil {
			add(c.errAt("auto.protected_paths", i, "%v", err))
		}
	}
	for i, p := range c.Auto.SecretPaths {
		if _, err := compilePathPattern(p, Options{}); err != nil {
			add(c.errAt("auto.secret_paths", i, "%v", err))
		}
	}
	for k := range c.Tools {
		if k != "sandbox" && !knownCategory(k) {
			add(c.errAt("tools."+k, -1, "unknown category %q (want one of %s, or sandbox)", k, strings.Join(Categories, ", ")))
		}
	}
	for _, name := range sortedKeys(c.Agents) {
		a := c.Agents[name]
		if strings.TrimSpace(name) == "" {
			add(c.errAt("agents", -1, "empty agent name"))
		}
		if a.Mode != "" {
			if m, err := ParseMode(a.Mode); err != nil {
				add(c.errAt("agents."+name+".mode", -1, "%v", err))
			} else if m == ModeYolo && !c.Approvals.AllowYolo {
				add(c.errAt("agents."+name+".mode", -1, "mode \"yolo\" is switched off by [approvals] allow_yolo = false"))
			}
		}
		for i, g := range a.AutoApprove {
			if _, err := ParseGrant(g); err != nil {
				add(c.errAt("agents."+name+".auto_approve", i, "%v", err))
			}
		}
	}
	if t := c.Approvals.Timeout.D(); t <= 0 || t > 24*time.Hour {
		add(c.errAt("approvals.timeout", -1, "timeout %v is out of range (want more than 0s, at most 24h)", t))
	}
	if c.Approvals.MaxPending < 1 || c.Approvals.MaxPending > 10000 {
		add(c.errAt("approvals.max_pending", -1, "max_pending %d is out of range (want 1 to 10000)", c.Approvals.MaxPending))
	}
	switch c.Hooks.OnDaemonDown {
	case "deny", "ask":
	default:
		add(c.errAt("hooks.on_daemon_down", -1, "unknown value %q (want \"deny\" or \"ask\")", c.Hooks.OnDaemonDown))
	}
	switch c.Sandbox.Launcher {
	case "auto", "bwrap", "landlock", "sandbox-exec", "docker", "podman", "wrapper", "none":
	default:
		add(c.errAt("sandbox.launcher", -1, "unknown launcher %q (want auto, bwrap, landlock, sandbox-exec, docker, podman, wrapper or none)", c.Sandbox.Launcher))
	}
	if c.Sandbox.Launcher == "wrapper" && strings.TrimSpace(c.Sandbox.Wrapper) == "" {
		add(c.errAt("sandbox.launcher", -1, "launcher \"wrapper\" needs [sandbox] wrapper, the wrapper's path"))
	}
	switch c.Sandbox.Network {
	case "none", "bridge", "":
	default:
		add(c.errAt("sandbox.network", -1, "unknown network %q (want \"none\" or \"bridge\")", c.Sandbox.Network))
	}
	for i, v := range c.Secrets.VaultEnv {
		if !ValidEnvName(v) {
			add(c.errAt("secrets.vault_env", i, "%q is not a variable name", v))
		}
	}
	for _, k := range sortedKeys(c.Secrets.Env) {
		if !ValidEnvName(k) {
			add(c.errAt("secrets.env."+k, -1, "%q is not a variable name", k))
		}
		if !isSecretReference(c.Secrets.Env[k]) {
			// Never quote the value: it may be the secret itself.
			add(c.errAt("secrets.env."+k, -1, "a literal secret is refused here: write a reference, \"${VAR}\", \"exec:COMMAND\", \"file:/path\" or \"keystore:NAME\" (store the value with `agate keys set NAME`)"))
		}
	}
	if c.Audit.MaxSizeMB < 1 {
		add(c.errAt("audit.max_size_mb", -1, "must be at least 1"))
	}
	if e := c.Audit.Export.Endpoint; e != "" {
		if why := checkExportEndpoint(e); why != "" {
			add(c.errAt("audit.export.endpoint", -1, "%s", why))
		}
	}
	for _, k := range sortedKeys(c.Audit.Export.Headers) {
		if !ValidHeaderName(k) {
			add(c.errAt("audit.export.headers", -1, "%q is not a header's name", k))
		} else if !isSecretReference(c.Audit.Export.Headers[k]) {
			// Never quote the value: it may be the secret itself.
			add(c.errAt("audit.export.headers."+k, -1, "a header's value is a secret's reference (\"keystore:NAME\", \"${VAR}\", \"exec:COMMAND\", \"file:/path\"), never the value in clear"))
		}
	}
	if c.Audit.Keep < 1 {
		add(c.errAt("audit.keep", -1, "must be at least 1"))
	}
	if c.Undo.MaxCallMB < 0 {
		add(c.errAt("undo.max_call_mb", -1, "must not be negative"))
	}
	if c.Undo.MaxTotalMB < c.Undo.MaxCallMB {
		add(c.errAt("undo.max_total_mb", -1, "%d is less than max_call_mb (%d)", c.Undo.MaxTotalMB, c.Undo.MaxCallMB))
	}
	if c.Undo.MaxFiles < 0 {
		add(c.errAt("undo.max_files", -1, "must not be negative"))
	}
	if a := c.Undo.MaxAge.D(); a < time.Minute {
		add(c.errAt("undo.max_age", -1, "%v is too short (want at least 1m)", a))
	}
	if c.Undo.MinFreeMB < 0 {
		add(c.errAt("undo.min_free_mb", -1, "must not be negative"))
	}
	for _, name := range sortedKeys(c.Catalog) {
		if _, err := c.Catalog[name].compile(name); err != nil {
			add(c.errAt("catalog."+name, -1, "%v", err))
		}
	}
	return errs
}

// isSecretReference reports whether v says where a secret lives rather
// than holding it.
func isSecretReference(v string) bool {
	switch {
	case strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") && ValidEnvName(v[2:len(v)-1]):
		return true
	case strings.HasPrefix(v, "exec:") && strings.TrimSpace(v[5:]) != "",
		strings.HasPrefix(v, "file:/"),
		strings.HasPrefix(v, "keystore:") && strings.TrimSpace(v[9:]) != "":
		return true
	}
	return false
}

// checkExportEndpoint says why e cannot be the audit export's endpoint,
// "" when it can.
func checkExportEndpoint(e string) string {
	u, err := url.Parse(e)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return "want an http:// or https:// URL of an OTLP/HTTP collector"
	case u.User != nil:
		return "the URL must not hold a user or password (send them as a header)"
	case u.RawQuery != "" || u.Fragment != "":
		return "the URL must not hold a query or a fragment"
	case u.Scheme == "http" && !LoopbackHost(u.Hostname()):
		return "plain http:// only to this machine: the records would cross the network in the clear"
	}
	return ""
}

// LoopbackHost reports whether h names this machine (localhost, or a
// loopback address).
func LoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ValidHeaderName reports whether name is an HTTP header's name (a
// token).
func ValidHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// checkDomain accepts a bare host name such as "docs.python.org".
func checkDomain(d string) error {
	switch {
	case d == "":
		return errors.New("empty domain")
	case strings.Contains(d, "://"), strings.ContainsAny(d, "/:@ *"):
		return fmt.Errorf("%q is not a host name (write just the host, e.g. \"docs.python.org\"; subdomains are included)", d)
	case net.ParseIP(d) == nil && strings.Trim(d, ".") != d:
		return fmt.Errorf("%q has a leading or trailing dot", d)
	}
	return nil
}

// ValidEnvName reports whether s is a variable's name: a letter or '_',
// then letters, digits and '_'.
func ValidEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SandboxEnabled reports whether [tools] sandbox is on.
func (c *Config) SandboxEnabled() bool { return c.Tools["sandbox"] }

// ApprovalTimeout is how long a question waits before it is denied.
func (c *Config) ApprovalTimeout() time.Duration { return c.Approvals.Timeout.D() }

// SecretEnvNames returns the variables the config treats as secrets: the
// keys of [secrets] env and every ${VAR} a reference names. Commands
// launched for agents never inherit them.
func (c *Config) SecretEnvNames() []string {
	seen := map[string]bool{}
	for k, ref := range c.Secrets.Env {
		seen[k] = true
		if strings.HasPrefix(ref, "${") && strings.HasSuffix(ref, "}") {
			seen[ref[2:len(ref)-1]] = true
		}
	}
	return sortedKeys(seen)
}

// validServerName is app/mcp's ValidName: what can name an MCP server in
// "mcp__NAME__TOOL".
func validServerName(name string) bool {
	if name == "" || len(name) > 64 || strings.Contains(name, "__") || name[0] == '_' || name[len(name)-1] == '_' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
