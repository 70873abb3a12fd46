package policy

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfigTextParsesToDefaults(t *testing.T) {
	cfg, err := Parse("default.toml", DefaultConfigText)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.Source, want.data = cfg.Source, cfg.data
	if cfg.Secrets.Env == nil {
		want.Secrets.Env = nil
	} else if want.Secrets.Env == nil {
		want.Secrets.Env = map[string]string{}
	}
	// Empty and nil lists are the same config.
	norm := func(c *Config) {
		for _, l := range []*[]string{&c.Auto.Rules, &c.Auto.TrustedDirs, &c.Auto.TrustedDomains, &c.Auto.HardDeny,
			&c.Auto.ProtectedPaths, &c.Auto.SecretPaths, &c.Sandbox.Writable, &c.Secrets.VaultEnv} {
			if len(*l) == 0 {
				*l = nil
			}
		}
		if len(c.Secrets.Env) == 0 {
			c.Secrets.Env = nil
		}
	}
	norm(cfg)
	norm(want)
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("default.toml parses to\n%+v\nwant\n%+v", cfg, want)
	}
}

// An eVi user's [auto] section works unchanged.
func TestEviConfigReadsUnchanged(t *testing.T) {
	text := `
[auto]
mode            = "ask"                              # ask | accept_edits | plan | yolo
auto_approve    = ["fs", "code", "memory", "skills", "image"]
rules           = []                                 # first-match "allow|deny <tool> [arg]"
trusted_dirs    = []                                 # auto-approve fs/code under these paths
trusted_domains = []                                 # auto-approve web fetches to these hosts
hard_deny       = ["shell rm -rf*"]
protected_paths = [".env", "*.pem"]

[tools]
fs       = true
code     = true
shell    = false
web      = false
computer = false
voice    = true
pdf      = true
sandbox  = true
`
	cfg, err := Parse("config.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.SandboxEnabled() || cfg.Tools["shell"] {
		t.Errorf("tools = %v", cfg.Tools)
	}
	p, err := Compile(cfg, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(req(t, "bash", `{"command":"ls"}`)); d.Verdict != Deny || d.Layer != LayerTools {
		t.Errorf("shell = false: got %s at %s", d.Verdict, d.Layer)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		line int
		key  string
		msg  string
	}{
		{"typo in hard_deny", "[auto]\nmode = \"ask\"\nhard_deyn = [\"shell rm*\"]\n", 3, "auto.hard_deyn", "unknown key"},
		{"unknown section", "[autoo]\nmode = \"ask\"\n", 1, "autoo", "unknown key"},
		{"unknown mode", "[auto]\n\nmode = \"yes\"\n", 3, "auto.mode", "unknown mode"},
		{"bad category", "[auto]\nauto_approve = [\"fs\", \"files\"]\n", 2, "auto.auto_approve[1]", "unknown category"},
		{"bad rule verb", "[auto]\nrules = [\n  \"allow web\",\n  \"permit shell ls\",\n]\n", 4, "auto.rules[1]", "want \"allow\""},
		{"bad rule glob", "[auto]\nrules = [\"deny shell [abc\"]\n", 2, "auto.rules[0]", "unclosed"},
		{"hard deny allow", "[auto]\nhard_deny = [\"allow shell\"]\n", 2, "auto.hard_deny[0]", "can only deny"},
		{"yolo forbidden", "[auto]\nmode = \"yolo\"\n[approvals]\nallow_yolo = false\n", 2, "auto.mode", "allow_yolo"},
		{"agent yolo forbidden", "[approvals]\nallow_yolo = false\n[agents.x]\nmode = \"yolo\"\n", 4, "agents.x.mode", "allow_yolo"},
		{"bad grant", "[agents.claude-code]\nauto_approve = [\"bash:sometimes\"]\n", 2, "agents.claude-code.auto_approve[0]", "unknown risk"},
		{"secret grant", "[agents.a]\nauto_approve = [\"bash:secret\"]\n", 2, "agents.a.auto_approve[0]", "cannot be granted"},
		{"unknown tools key", "[tools]\nshel = true\n", 2, "tools.shel", "unknown category"},
		{"bad domain", "[auto]\ntrusted_domains = [\"https://docs.python.org/3\"]\n", 2, "auto.trusted_domains[0]", "not a host name"},
		{"bad timeout", "[approvals]\ntimeout = \"soon\"\n", 2, "approvals.timeout", "bad duration"},
		{"negative timeout", "[approvals]\ntimeout = \"-1s\"\n", 2, "approvals.timeout", "out of range"},
		{"syntax error", "[auto]\nmode = \"ask\n", 2, "auto.mode", "newlines"},
		{"bad on_daemon_down", "[hooks]\non_daemon_down = \"allow\"\n", 2, "hooks.on_daemon_down", "unknown value"},
		{"bad launcher", "[sandbox]\nlauncher = \"chroot\"\n", 2, "sandbox.launcher", "unknown launcher"},
		{"wrapper without path", "[sandbox]\nlauncher = \"wrapper\"\n", 2, "sandbox.launcher", "needs [sandbox] wrapper"},
		{"bad catalog", "[catalog.x]\ncategory = \"nope\"\n", 1, "catalog.x", "unknown category"},
		{"literal secret", "[secrets.env]\nOPENAI_API_KEY = \"sk-live-value\"\n", 2, "secrets.env.OPENAI_API_KEY", "literal secret is refused"},
		{"unknown agent key", "[agents.claude-code]\nauto_aprove = [\"*\"]\n", 2, "agents.claude-code.auto_aprove", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("/home/u/.config/agate/config.toml", []byte(tt.text))
			if err == nil {
				t.Fatal("no error")
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *ConfigError", err)
			}
			if ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Err.Error(), tt.msg) {
				t.Errorf("got line %d key %q err %q; want line %d key %q containing %q", ce.Line, ce.Key, ce.Err, tt.line, tt.key, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "/home/u/.config/agate/config.toml:") {
				t.Errorf("error %q does not start with file:line", err)
			}
		})
	}
}

func TestParseReportsEveryError(t *testing.T) {
	text := "[auto]\nmode = \"nope\"\nrules = [\"maybe x\"]\nhard_dney = []\n"
	_, err := Parse("c.toml", []byte(text))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"c.toml:2: auto.mode", "c.toml:3: auto.rules[0]", "c.toml:4: auto.hard_dney"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestParseTooBig(t *testing.T) {
	_, err := Parse("c.toml", make([]byte, MaxConfigSize+1))
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("err = %v", err)
	}
}

func TestDurations(t *testing.T) {
	for text, want := range map[string]time.Duration{
		"[approvals]\ntimeout = \"2m\"": 2 * time.Minute,
		"[approvals]\ntimeout = 30":     30 * time.Second,
		"":                              120 * time.Second,
	} {
		cfg, err := Parse("c.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.ApprovalTimeout(); got != want {
			t.Errorf("%q: timeout %v, want %v", text, got, want)
		}
	}
}

func TestSecretEnvNames(t *testing.T) {
	cfg, err := Parse("c.toml", []byte("[secrets.env]\nOPENAI_API_KEY = \"keystore:openai\"\nGH = \"${GITHUB_TOKEN}\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.SecretEnvNames()
	want := []string{"GH", "GITHUB_TOKEN", "OPENAI_API_KEY"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRuleSourcesNameTheLine(t *testing.T) {
	p := mustPolicy(t, "[auto]\nrules = [\n  \"allow web\",\n  \"deny shell rm*\",\n]\n")
	d := p.Decide(req(t, "Bash", `{"command":"rm x"}`))
	if d.Rule == nil || d.Rule.Source != "config.toml:4" {
		t.Fatalf("rule = %+v, want source config.toml:4", d.Rule)
	}
}

func TestBuiltinCatalog(t *testing.T) {
	c := builtinCatalog()
	for _, tool := range []string{"Bash", "Write", "Read", "WebFetch", "TodoWrite", "run_shell_command", "write_file", "shell", "apply_patch", "mcp__github__create_issue"} {
		if !c.Lookup(tool).known {
			t.Errorf("%s is not in the catalog", tool)
		}
	}
	if c.Lookup("frobnicate").known {
		t.Error("an unknown tool is known")
	}
}
