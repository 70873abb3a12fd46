package profile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/sandbox"
)

func TestSocketHideDir(t *testing.T) {
	tests := []struct {
		p    api.Paths
		want string
	}{
		{api.Paths{Socket: "/run/user/1000/agate/agate.sock", State: "/home/a/.local/state/agate"}, "/run/user/1000/agate"},
		{api.Paths{Socket: "/home/a/.local/state/agate/run/agate.sock", State: "/home/a/.local/state/agate"}, "/home/a/.local/state/agate/run"},
		{api.Paths{Socket: "/home/a/agate.sock", State: "/home/a/.local/state/agate"}, "/home/a/agate.sock"},
	}
	for _, tt := range tests {
		if got := socketHideDir(tt.p); got != tt.want {
			t.Errorf("socketHideDir(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestBase: the lists hold agate's own folders, the built-in stores and
// protected paths that exist, and what the config adds; home's rc files
// are protected only when a writable path holds home.
func TestBase(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "proj")
	cfgDir := filepath.Join(home, ".config", "agate")
	for _, f := range []string{".aws/credentials", "proj/.env", "proj/.env.example", "proj/CLAUDE.md", "proj/secret.vault", ".bashrc", ".config/agate/config.toml",
		".local/state/agate/run/agate.sock"} {
		write(t, filepath.Join(home, f))
	}
	p := api.Paths{Config: filepath.Join(cfgDir, "config.toml"), State: filepath.Join(home, ".local/state/agate"),
		Socket: filepath.Join(home, ".local/state/agate/run/agate.sock")}
	x := Extra{Protected: []string{"deploy.sh"}, Secrets: []string{"*.vault"}, SecretEnv: []string{"MY_TOKEN"}}
	write(t, filepath.Join(work, "deploy.sh"))

	o := Base(p, home, work, nil, x)
	for _, want := range []string{filepath.Join(work, "CLAUDE.md"), filepath.Join(work, "deploy.sh"), cfgDir} {
		if !slices.Contains(o.Protected, want) {
			t.Errorf("not protected: %s (%q)", want, o.Protected)
		}
	}
	if slices.Contains(o.Protected, filepath.Join(home, ".bashrc")) {
		t.Errorf("home's rc files protected with only the project writable: %q", o.Protected)
	}
	for _, want := range []string{filepath.Join(home, ".aws/credentials"), filepath.Join(work, ".env"), filepath.Join(work, "secret.vault"), p.State} {
		if !hidden(o, want) {
			t.Errorf("not hidden: %s (%q)", want, o.Hidden)
		}
	}
	if hidden(o, filepath.Join(work, ".env.example")) {
		t.Errorf("a template hidden: %q", o.Hidden)
	}
	if !slices.Equal(o.SecretEnv, []string{"MY_TOKEN"}) {
		t.Errorf("scrubbed %q", o.SecretEnv)
	}
	if o := Base(p, home, work, []string{home}, x); !slices.Contains(o.Protected, filepath.Join(home, ".bashrc")) {
		t.Errorf("home writable, its rc files not protected: %q", o.Protected)
	}
}

// TestStrict: a judged call's profile runs in the OS's own sandbox,
// fail-closed, nothing writable but the work dir and the judgment's
// paths; a store inside a folder of home hidden whole is hidden with
// it, and the protected paths looked for are those under what is
// writable.
func TestStrict(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "proj")
	out := filepath.Join(home, "out")
	for _, f := range []string{"proj/main.go", "proj/CLAUDE.md", ".aws/sso/cache/t.json", "out/deploy.sh", "other/deploy.sh", ".config/agate/config.toml", ".npmrc"} {
		write(t, filepath.Join(home, f))
	}
	p := api.Paths{Config: filepath.Join(home, ".config/agate/config.toml"), State: filepath.Join(home, "s"), Socket: filepath.Join(home, "s", "run", "agate.sock")}
	x := Extra{Protected: []string{"~/out/deploy.sh", "~/other/deploy.sh"}}
	o := Strict(p, home, work, false, []string{out}, x, func(string) string { return "" })
	if o.Launcher != sandbox.LauncherKernel || !o.FailClosed || !slices.Equal(o.Writable, []string{out}) || o.WorkDir != work {
		t.Errorf("%+v", o)
	}
	for _, want := range []string{filepath.Join(work, "CLAUDE.md"), filepath.Join(out, "deploy.sh")} {
		if !slices.Contains(o.Protected, want) {
			t.Errorf("not protected: %s (%q)", want, o.Protected)
		}
	}
	for _, skipped := range []string{filepath.Dir(p.Config), filepath.Join(home, "other/deploy.sh")} {
		if slices.Contains(o.Protected, skipped) {
			t.Errorf("%s looked for although nothing writable holds it: %q", skipped, o.Protected)
		}
	}
	// ~/.aws is hidden whole (home but the toolchains is), and so is
	// ~/.npmrc, a store at home's top.
	for _, want := range []string{filepath.Join(home, ".aws"), filepath.Join(home, ".npmrc")} {
		if !hidden(o, want) {
			t.Errorf("not hidden: %s (%q)", want, o.Hidden)
		}
	}
	if hidden(o, filepath.Join(home, ".aws/sso/cache")) {
		t.Errorf("a store inside a folder hidden whole was looked for: %q", o.Hidden)
	}
	if o := Strict(p, home, home, false, nil, Extra{}, nil); !slices.Contains(o.Protected, filepath.Dir(p.Config)) {
		t.Errorf("home writable, agate's config folder not protected: %q", o.Protected)
	}
	// Read-only: nothing to keep read-only in work, the writable paths'
	// protected ones still.
	o = Strict(p, home, work, true, []string{out}, x, nil)
	if !o.ReadOnlyWork || slices.Contains(o.Protected, filepath.Join(work, "CLAUDE.md")) || !slices.Contains(o.Protected, filepath.Join(out, "deploy.sh")) {
		t.Errorf("read-only: %v, protected %q", o.ReadOnlyWork, o.Protected)
	}
	// A read-only work dir is still seen: a secret deep in it stays hidden.
	deep := filepath.Join(work, "services/api/.env")
	write(t, deep)
	if o := Strict(p, home, work, true, nil, Extra{Secrets: []string{deep}}, nil); !hidden(o, deep) {
		t.Errorf("read-only, a secret deep in work shows: %q", o.Hidden)
	}
}

// TestLiteralPrefix: the folder a pattern names before its first glob.
func TestLiteralPrefix(t *testing.T) {
	for _, c := range []struct {
		pat, want string
		ok        bool
	}{
		{"~/.aws/credentials", "/h/.aws/credentials", true},
		{"~/.config/gcloud/", "/h/.config/gcloud", true},
		{"~/.config/*/token", "/h/.config", true},
		{"/etc/cron.d/", "/etc/cron.d", true},
		{".env", "", false},
		{"*.pem", "", false},
	} {
		if got, ok := literalPrefix(c.pat, "/h"); got != c.want || ok != c.ok {
			t.Errorf("%q: %q %v, want %q %v", c.pat, got, ok, c.want, c.ok)
		}
	}
	if _, ok := literalPrefix("~/.aws", ""); ok {
		t.Error("~ without a home")
	}
}

func hidden(o sandbox.Options, path string) bool {
	for _, h := range o.Hidden {
		if filepath.Clean(h) == path {
			return true
		}
	}
	return false
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}
