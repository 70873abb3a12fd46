package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mkTree creates the given paths under root: a trailing "/" makes a dir.
func mkTree(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDefaultProtected(t *testing.T) {
	base := t.TempDir()
	work, home, cfg := filepath.Join(base, "work"), filepath.Join(base, "home"), filepath.Join(base, "cfg", "agate")
	mkTree(t, work, ".git/hooks/", ".git/config", ".git/HEAD", ".claude/settings.json", ".env", ".env.local",
		".vscode/", "main.go", "key.pem", "src/")
	mkTree(t, home, ".bashrc", ".zshrc", ".ssh/", ".claude.json", ".local/bin/", "notes.txt")
	mkTree(t, cfg, "config.toml")

	tests := []struct {
		name        string
		work, home  string
		extra       []string
		want, wantn []string // wantn: must not be listed
	}{
		{
			name: "work dir and home",
			work: work, home: home,
			want: []string{
				work + "/.git/hooks", work + "/.git/config", work + "/.claude", work + "/.env", work + "/.env.local",
				work + "/.vscode", home + "/.bashrc", home + "/.zshrc", home + "/.ssh", home + "/.claude.json", home + "/.local/bin",
			},
			wantn: []string{work + "/.git/HEAD", work + "/main.go", work + "/src", home + "/notes.txt", work + "/.idea", home + "/.profile"},
		},
		{
			name: "extra: absolute, home-relative, glob",
			work: work, home: home,
			extra: []string{cfg, "~/notes.txt", "*.pem", "missing.txt", ""},
			want:  []string{cfg, home + "/notes.txt", work + "/key.pem"},
			wantn: []string{work + "/missing.txt", work},
		},
		{
			name: "no home",
			work: work,
			want: []string{work + "/.git/hooks"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DefaultProtected(tt.work, tt.home, tt.extra)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("missing %s in %q", w, got)
				}
			}
			for _, n := range tt.wantn {
				if slices.Contains(got, n) {
					t.Errorf("lists %s, which it should not", n)
				}
			}
			if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Errorf("not sorted and unique: %q", got)
			}
		})
	}
}

func TestDefaultHidden(t *testing.T) {
	base := t.TempDir()
	runtime, home, state := filepath.Join(base, "run", "user", "1000"), filepath.Join(base, "home"), filepath.Join(base, "state")
	mkTree(t, base, "run/user/1000/agate/", "home/.local/state/agate/keys.json", "state/agate/", "ssh/agent.sock", "sock/")
	env := map[string]string{
		"XDG_RUNTIME_DIR": runtime,
		"SSH_AUTH_SOCK":   filepath.Join(base, "ssh", "agent.sock"),
		"XDG_STATE_HOME":  state,
	}
	got := DefaultHidden(home, func(k string) string { return env[k] }, []string{filepath.Join(base, "sock"), "relative", filepath.Join(base, "missing")})
	for _, w := range []string{runtime, filepath.Join(base, "ssh", "agent.sock"), filepath.Join(home, ".local", "state", "agate"),
		filepath.Join(state, "agate"), filepath.Join(base, "sock")} {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s in %q", w, got)
		}
	}
	for _, n := range []string{"relative", filepath.Join(base, "missing")} {
		if slices.Contains(got, n) {
			t.Errorf("lists %s", n)
		}
	}
}

// kinds renders a layout as "kind path" lines relative to base, for
// comparing.
func kinds(ms []mount, base string) []string {
	names := map[mountKind]string{
		mountBindRW: "rw", mountBindRO: "ro", mountHideDir: "hide", mountHideFile: "hidefile", mountEmptyDir: "empty",
		mountPin: "pin", mountProtect: "protect",
	}
	var out []string
	for _, m := range ms {
		p := m.path
		if base == "" {
			out = append(out, names[m.kind]+" "+p)
			continue
		}
		if rel, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
		out = append(out, names[m.kind]+" "+p)
	}
	return out
}

func TestLayout(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkTree(t, base, "w/out/ro/", "w/.git/hooks/", "w/.git/config", "w/.bashrc", "w/.claude/sub/x", "w/state/keys",
		"rt/w2/state/", "rt/agate/", "extra/", "ro/", "w/sock", "outside/.bashrc")
	at := func(p string) string { return filepath.Join(base, p) }
	tests := []struct {
		name      string
		o         Options
		protected []string
		hidden    []string
		want      []string
	}{
		{
			name:      "protected paths pinned and bound read-only after the work dir",
			o:         Options{WorkDir: at("w")},
			protected: []string{at("w/.git/hooks"), at("w/.git/config"), at("w/.bashrc"), at("outside/.bashrc")},
			want:      []string{"rw w", "pin w/.git", "protect w/.bashrc", "protect w/.git/config", "protect w/.git/hooks"},
		},
		{
			name:      "no pins inside a protected dir",
			o:         Options{WorkDir: at("w")},
			protected: []string{at("w/.claude"), at("w/.claude/sub/x")},
			want:      []string{"rw w", "protect w/.claude", "protect w/.claude/sub/x"},
		},
		{
			name:   "a hidden dir around the work dir is taken apart (what is beside it, under the private /tmp, is out of sight), one inside it last",
			o:      Options{WorkDir: at("rt/w2"), Writable: []string{at("w")}, ReadOnly: []string{at("ro")}},
			hidden: []string{at("rt"), at("w/state"), at("w/sock")},
			want:   []string{"rw w", "ro ro", "rw rt/w2", "hide w/state", "hidefile w/sock"},
		},
		{
			name: "binds shallow first: a writable folder inside a read-only work dir stays writable, a read-only one inside it read-only",
			o:    Options{WorkDir: at("w"), ReadOnlyWork: true, Writable: []string{at("w/out")}, ReadOnly: []string{at("w/out/ro")}},
			want: []string{"ro w", "rw w/out", "ro w/out/ro"},
		},
		{
			name:   "unless a bind shows it again",
			o:      Options{WorkDir: at("rt/w2")},
			hidden: []string{at("rt"), at("rt/w2/state")},
			want:   []string{"rw rt/w2", "hide rt/w2/state"},
		},
		{
			name:   "a hidden path inside a hidden dir is hidden already",
			o:      Options{WorkDir: at("w")},
			hidden: []string{at("w/state"), at("w/state/run"), at("w/state/keys.json")},
			want:   []string{"rw w", "hide w/state"},
		},
		{
			name:      "protected paths in a hidden dir stay hidden",
			o:         Options{WorkDir: at("w")},
			protected: []string{at("w/state/keys")},
			hidden:    []string{at("w/state")},
			want:      []string{"rw w", "hide w/state"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := newPlan(tt.o, []string{"true"})
			if err != nil {
				t.Fatal(err)
			}
			got := kinds(p.layout(tt.protected, tt.hidden), base)
			if !within(base, "/tmp") {
				// Beside the work dir, outside the private /tmp, rt/agate is
				// hidden, after the binds.
				got = slices.DeleteFunc(got, func(s string) bool { return s == "hide rt/agate" })
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("layout\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestHiddenInsideHiddenDropped(t *testing.T) {
	p := &plan{work: "/home/a/w"}
	got := kinds(p.layout(nil, []string{"/nonexistent-agate/run", "/nonexistent-agate/run/user"}), "")
	if want := []string{"rw /home/a/w", "hidefile /nonexistent-agate/run"}; !slices.Equal(got, want) {
		t.Errorf("layout %q, want %q", got, want)
	}
}

func TestHiddenUnderTmpDropped(t *testing.T) {
	p := &plan{work: "/home/a/w"}
	// Neither path exists, so both count as files.
	got := kinds(p.layout(nil, []string{"/tmp/ssh-x/agent.sock", "/run/agate-test-missing"}), "")
	if want := []string{"rw /home/a/w", "hidefile /run/agate-test-missing"}; !slices.Equal(got, want) {
		t.Errorf("layout %q, want %q: /tmp is private already", got, want)
	}
}

func TestNewPlanRefuses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	mkTree(t, filepath.Dir(file), "f")
	tests := []struct {
		name string
		o    Options
		argv []string
	}{
		{"no command", Options{WorkDir: t.TempDir()}, nil},
		{"empty command", Options{WorkDir: t.TempDir()}, []string{""}},
		{"work dir /", Options{WorkDir: "/"}, []string{"true"}},
		{"work dir missing", Options{WorkDir: "/nonexistent/agate"}, []string{"true"}},
		{"work dir a file", Options{WorkDir: file}, []string{"true"}},
		{"writable /", Options{WorkDir: t.TempDir(), Writable: []string{"/"}}, []string{"true"}},
		{"writable missing", Options{WorkDir: t.TempDir(), Writable: []string{"/nonexistent/agate"}}, []string{"true"}},
		{"read-only missing", Options{WorkDir: t.TempDir(), ReadOnly: []string{"/nonexistent/agate"}}, []string{"true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := newPlan(tt.o, tt.argv); err == nil {
				t.Errorf("newPlan accepted it: %+v", p)
			}
		})
	}
}

func TestNewPlanResolvesSymlinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkTree(t, base, "real/")
	if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	p, err := newPlan(Options{WorkDir: filepath.Join(base, "link"), Env: []string{"A_TOKEN=x", "B=1"}}, []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	if p.work != filepath.Join(base, "real") {
		t.Errorf("work %s, want the link resolved", p.work)
	}
	if want := []string{"B=1", "PWD=" + p.work}; !slices.Equal(p.env, want) {
		t.Errorf("env %q, want it scrubbed", p.env)
	}
}

// TestTmpdirWritable: a TMPDIR the command could not write becomes its
// private /tmp; one under a writable path stays.
func TestTmpdirWritable(t *testing.T) {
	work := t.TempDir()
	for _, c := range []struct{ tmpdir, want string }{
		{"/var/tmp/elsewhere", "/tmp"},
		{work + "/tmp", work + "/tmp"},
		{"/tmp/x", "/tmp/x"},
	} {
		p, err := newPlan(Options{WorkDir: work, Env: []string{"PATH=/bin", "TMPDIR=" + c.tmpdir}}, []string{"true"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(p.env, "TMPDIR="+c.want) {
			t.Errorf("TMPDIR=%s: env %q, want TMPDIR=%s", c.tmpdir, p.env, c.want)
		}
	}
}

// TestHomeDenied: of home, a confined command sees the toolchains and
// git's config; every other entry, and the other entries of .config,
// .local, .local/share and .cache, is hidden.
func TestHomeDenied(t *testing.T) {
	home := t.TempDir()
	for _, f := range []string{".gitconfig", "go/pkg/x", ".cargo/bin/cargo", ".config/git/config", ".config/myapp/token",
		".config/gh/hosts.yml", ".local/bin/tool", ".local/share/secrets/k", ".local/state/x", ".cache/go-build/a",
		".cache/other/t", "Documents/thesis.txt", ".myapp", ".bashrc", "src/proj/main.go"} {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o600)
	}
	got := HomeDenied(home)
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], home+"/")
	}
	want := []string{".bashrc", ".cache/other", ".config/gh", ".config/myapp", ".local/share/secrets", ".local/state", ".myapp", "Documents", "src"}
	if !slices.Equal(got, want) {
		t.Errorf("hidden %q\nwant   %q", got, want)
	}
	if HomeDenied("/") != nil || HomeDenied("") != nil {
		t.Error("a home of / or none hides something")
	}
}

// TestHomeShown: what a judged command sees of home is the toolchains,
// git's config and the folders judged entry by entry; a glob is shown
// when it can match one of them.
func TestHomeShown(t *testing.T) {
	for rel, want := range map[string]bool{
		".cargo": true, ".cargo/credentials.toml": true, ".config/go/env": true, ".config": true, "": true,
		".config/git/config": true, ".config/git/credentials": false, ".aws/credentials": false, ".npmrc": false,
		".config/gcloud": false, "*.pem": false, ".env.*": false, ".cargo/*": true, ".c*": true, ".config/g*": true,
		"[": true, // a bad pattern: shown, so looked for
	} {
		if got := HomeShown(rel); got != want {
			t.Errorf("HomeShown(%q) = %v, want %v", rel, got, want)
		}
	}
}
