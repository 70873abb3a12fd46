package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon/daemontest"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/sandbox"
)

// sandboxWorld is a temp home for one `agate sandbox` run: a work dir with
// agate's config file and state dir inside it, where only protection and
// hiding keep them from the command.
type sandboxWorld struct {
	dir, work, config, state string
}

func newSandboxWorld(t *testing.T, configText string) *sandboxWorld {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	w := &sandboxWorld{dir: dir, work: work, config: filepath.Join(work, "cfg", "config.toml"),
		state: filepath.Join(work, "state")}
	for _, d := range []string{w.work, filepath.Dir(w.config), w.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if configText == "" {
		configText = "# the defaults\n" // an empty file is a config error
	}
	if err := os.WriteFile(w.config, []byte(configText), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGATE_CONFIG", w.config)
	t.Setenv("AGATE_STATE_DIR", w.state)
	t.Setenv("AGATE_SOCKET", filepath.Join(w.state, "run", "agate.sock"))
	t.Setenv(sandbox.EnvWorkDir, "")
	t.Setenv(sandbox.EnvPepeWorkDir, "")
	t.Chdir(w.work)
	return w
}

// runSandbox runs `agate sandbox ARGS` and returns its status and output.
func runSandbox(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &Env{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := Run(ctx, e, append([]string{"sandbox"}, args...))
	return code, stdout.String(), stderr.String()
}

// needBwrap skips t unless bwrap can confine commands here: it is
// installed, and the machine gives it user namespaces.
func needBwrap(t *testing.T) {
	t.Helper()
	o := sandbox.Options{Launcher: sandbox.LauncherBwrap, FailClosed: true, WorkDir: t.TempDir()}
	if _, err := sandbox.Prepare(context.Background(), o, []string{"true"}); err != nil {
		t.Skipf("bwrap cannot run here: %v", err)
	}
}

func TestSandboxUsage(t *testing.T) {
	newSandboxWorld(t, "")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "no command to run"},
		{"only flags", []string{"--net", "--"}, "no command to run"},
		{"agent without ask", []string{"--agent", "pepe", "--", "true"}, "--agent goes with --ask"},
		{"unknown launcher", []string{"--launcher", "chroot", "--", "true"}, `unknown launcher "chroot"`},
		{"unknown flag", []string{"--nope", "--", "true"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runSandbox(t, "", tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("status %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}

func TestSandboxBadConfig(t *testing.T) {
	newSandboxWorld(t, "[sandbox]\nlauncher = \"chroot\"\n")
	code, _, stderr := runSandbox(t, "", "--", "true")
	if code != exitUsage || !strings.Contains(stderr, "sandbox.launcher") {
		t.Errorf("status %d, stderr %q; want a config error", code, stderr)
	}
}

// TestSandboxPassesThrough: the command's status, stdout and stderr are
// its own, and agate adds nothing to them.
func TestSandboxPassesThrough(t *testing.T) {
	needBwrap(t)
	newSandboxWorld(t, "")
	tests := []struct {
		name                 string
		script, stdin        string
		code                 int
		wantStdout, wantErrs string
	}{
		{"success", "echo out; echo err >&2", "", 0, "out\n", "err\n"},
		{"failure status", "echo out; echo err >&2; exit 3", "", 3, "out\n", "err\n"},
		{"stdin", "cat; exit 42", "piped\n", 42, "piped\n", ""},
		{"death by signal", "kill -KILL $$", "", 137, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runSandbox(t, tt.stdin, "--", "sh", "-c", tt.script)
			if code != tt.code || stdout != tt.wantStdout || stderr != tt.wantErrs {
				t.Errorf("status %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tt.code, tt.wantStdout, tt.wantErrs)
			}
		})
	}
}

// TestSandboxConfines checks the CLI wires the config into the sandbox:
// the work dir writable and nothing else, agate's config and state out of
// reach, the config's secrets scrubbed, the network only with --net.
func TestSandboxConfines(t *testing.T) {
	needBwrap(t)
	w := newSandboxWorld(t, "[secrets.env]\nMY_PLAIN_NAME = \"keystore:x\"\n")
	t.Setenv("MY_PLAIN_NAME", "s3cret")
	t.Setenv("SOME_API_KEY", "s3cret")
	if err := os.WriteFile(filepath.Join(w.state, "keys.json"), []byte("sealed"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Outside /tmp, which the sandbox replaces with a private one.
	outsideDir, err := os.MkdirTemp("/var/tmp", "agate-sandbox-cli-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outsideDir) })
	outside := filepath.Join(outsideDir, "escaped")
	tests := []struct {
		name   string
		script string
		ok     bool
		after  func(t *testing.T)
	}{
		{"work dir writable", "echo hi > made.txt", true, func(t *testing.T) {
			if b, err := os.ReadFile(filepath.Join(w.work, "made.txt")); err != nil || string(b) != "hi\n" {
				t.Errorf("made.txt = %q, %v", b, err)
			}
		}},
		{"outside read-only", "echo x > " + outside, false, func(t *testing.T) {
			if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s was written", outside)
			}
		}},
		{"agate's config read-only", "echo 'mode = \"yolo\"' >> " + w.config, false, func(t *testing.T) {
			if b, _ := os.ReadFile(w.config); strings.Contains(string(b), "yolo") {
				t.Error("the sandboxed command rewrote agate's config")
			}
		}},
		{"key store hidden", "cat " + filepath.Join(w.state, "keys.json"), false, nil},
		{"secrets scrubbed", `[ -z "$MY_PLAIN_NAME$SOME_API_KEY" ] && [ -n "$PATH" ]`, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runSandbox(t, "", "--", "sh", "-c", tt.script)
			if (code == 0) != tt.ok {
				t.Errorf("status %d (stderr %q), want success %v", code, stderr, tt.ok)
			}
			if tt.after != nil {
				tt.after(t)
			}
		})
	}
}

func TestSandboxNetFlag(t *testing.T) {
	needBwrap(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash's /dev/tcp")
	}
	newSandboxWorld(t, "")
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	script := fmt.Sprintf("echo x > /dev/tcp/127.0.0.1/%d", ln.Addr().(*net.TCPAddr).Port)
	for _, tt := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"--", "bash", "-c", script}, false},
		{[]string{"--net", "--", "bash", "-c", script}, true},
	} {
		code, _, stderr := runSandbox(t, "", tt.args...)
		if (code == 0) != tt.ok {
			t.Errorf("%q: status %d (stderr %q), want success %v", tt.args, code, stderr, tt.ok)
		}
	}
}

// TestSandboxWorkDir: --work, then AGATE_SANDBOX_CWD, then PEPE_SANDBOX_CWD
// (agate as Pepe's wrapper), then the current dir.
func TestSandboxWorkDir(t *testing.T) {
	needBwrap(t)
	w := newSandboxWorld(t, "")
	dirs := map[string]string{}
	for _, n := range []string{"flag", "agate", "pepe"} {
		dirs[n] = filepath.Join(w.dir, n)
		if err := os.Mkdir(dirs[n], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name        string
		agate, pepe string
		args        []string
		want        string
	}{
		{"current dir", "", "", nil, w.work},
		{"pepe's variable", "", dirs["pepe"], nil, dirs["pepe"]},
		{"agate's variable first", dirs["agate"], dirs["pepe"], nil, dirs["agate"]},
		{"--work first", dirs["agate"], dirs["pepe"], []string{"--work", dirs["flag"]}, dirs["flag"]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(sandbox.EnvWorkDir, tt.agate)
			t.Setenv(sandbox.EnvPepeWorkDir, tt.pepe)
			args := append(tt.args, "--", "sh", "-c", "pwd -P; touch here")
			code, stdout, stderr := runSandbox(t, "", args...)
			if code != 0 || strings.TrimSpace(stdout) != tt.want {
				t.Fatalf("status %d, pwd %q (stderr %q); want %s", code, stdout, stderr, tt.want)
			}
			if _, err := os.Stat(filepath.Join(tt.want, "here")); err != nil {
				t.Errorf("the work dir is not writable: %v", err)
			}
		})
	}
}

func TestSandboxFailsClosed(t *testing.T) {
	tests := []struct {
		name, config string
		code         int
		stdout, errs string
	}{
		{"fail closed names what to install", "[sandbox]\nlauncher = \"none\"\n", exitSandboxFailed, "", "install"},
		{"fail open runs with eVi's note", "[sandbox]\nlauncher = \"none\"\nfail_closed = false\n", 0, "ran\n", sandbox.UnconfinedNote},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newSandboxWorld(t, tt.config)
			code, stdout, stderr := runSandbox(t, "", "--", "sh", "-c", "echo ran")
			if code != tt.code || stdout != tt.stdout || !strings.Contains(stderr, tt.errs) {
				t.Errorf("status %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tt.code, tt.stdout, tt.errs)
			}
		})
	}
}

func TestSandboxAsk(t *testing.T) {
	needBwrap(t)
	tests := []struct {
		name   string
		config string // "" runs no daemon
		args   []string
		code   int
		errs   string
		ran    bool
	}{
		{"no daemon denies", "", []string{"--ask"}, exitSandboxDenied, "not running", false},
		{"allowed runs", "[auto]\nrules = [\"allow bash touch*\"]\n", []string{"--ask", "--agent", "pepe"}, 0, "", true},
		{"denied does not run", "[auto]\nrules = [\"deny shell touch*\"]\n", []string{"--ask"}, exitSandboxDenied, "denied: rule \"deny shell touch*\"", false},
		{"nobody to ask denies", "[auto]\nauto_approve = []\n", []string{"--ask"}, exitSandboxDenied, "nobody can be asked", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newSandboxWorld(t, tt.config)
			if tt.config != "" {
				daemontest.Start(t, api.Paths{Config: w.config, Grants: filepath.Join(filepath.Dir(w.config), "grants.toml"),
					State: w.state, Socket: os.Getenv("AGATE_SOCKET")})
			}
			code, _, stderr := runSandbox(t, "", append(tt.args, "--", "sh", "-c", "touch ran")...)
			if code != tt.code || !strings.Contains(stderr, tt.errs) {
				t.Errorf("status %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.errs)
			}
			_, err := os.Stat(filepath.Join(w.work, "ran"))
			if ran := err == nil; ran != tt.ran {
				t.Errorf("ran %v, want %v", ran, tt.ran)
			}
			if tt.name == "allowed runs" {
				found := false
				audit.Read(filepath.Join(w.state, "audit.jsonl"), func(r *audit.Record) error {
					found = found || (r.Agent == "pepe" && r.Subject == "touch ran" && r.Cwd == w.work)
					return nil
				})
				if !found {
					t.Error("the daemon's log has no call from pepe for \"touch ran\" in the work dir")
				}
			}
		})
	}
}

func TestShellCommand(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"sh", "-c", "ls -la | wc -l"}, "ls -la | wc -l"},
		{[]string{"/bin/bash", "-c", "echo $HOME"}, "echo $HOME"},
		{[]string{"bash", "-c", "echo $1", "x", "y"}, "bash -c 'echo $1' x y"},
		{[]string{"git", "commit", "-m", "it's done"}, `git commit -m "it's done"`},
		{[]string{"ls", "-la", "/tmp/a b"}, "ls -la '/tmp/a b'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"python3", "-c", "print(1)"}, "python3 -c 'print(1)'"},
	}
	if _, err := shellCommand([]string{"echo", "a\x00b"}); err == nil {
		t.Error("a NUL in a word: no error")
	}
	for _, tt := range tests {
		if got, err := shellCommand(tt.argv); err != nil || got != tt.want {
			t.Errorf("shellCommand(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}

func TestSandboxPrint(t *testing.T) {
	needBwrap(t)
	w := newSandboxWorld(t, "")
	code, stdout, stderr := runSandbox(t, "", "--print", "--launcher", "bwrap", "--", "sh", "-c", "touch ran")
	if code != 0 {
		t.Fatalf("status %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"bwrap --unshare-all ", "--cap-drop ALL", "--bind " + w.work + " " + w.work, "-- sh -c 'touch ran'"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("printed %q, lacks %q", stdout, want)
		}
	}
	if _, err := os.Stat(filepath.Join(w.work, "ran")); err == nil {
		t.Error("--print ran the command")
	}
}

// TestSandboxStrictProfile: --strict runs only what the flags say: the
// config's writable paths are not writable, a read-only work dir takes no
// write, the command starts in --cwd, and a launcher other than the OS's
// own is refused.
func TestSandboxStrictProfile(t *testing.T) {
	needBwrap(t)
	outside, err := os.MkdirTemp("/var/tmp", "agate-strict-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	w := newSandboxWorld(t, "[sandbox]\nwritable = [\""+outside+"\"]\n")
	sub := filepath.Join(w.work, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runSandbox(t, "", "--strict", "--work", w.work, "--read-only", "--cwd", sub, "--",
		"sh", "-c", "pwd; touch "+outside+"/x; touch "+w.work+"/y; touch /tmp/z && echo tmp-ok")
	if code != 0 || !strings.Contains(stdout, sub) || !strings.Contains(stdout, "tmp-ok") || strings.Count(stderr, "Read-only file system") != 2 {
		t.Errorf("status %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, p := range []string{filepath.Join(outside, "x"), filepath.Join(w.work, "y")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if code, _, stderr := runSandbox(t, "", "--strict", "--work", w.work, "--launcher", "docker", "--", "true"); code != exitUsage || !strings.Contains(stderr, "own sandbox") {
		t.Errorf("--strict with docker: %d %q", code, stderr)
	}
	if code, _, _ := runSandbox(t, "", "--strict", "--", "true"); code != exitUsage {
		t.Errorf("--strict with no --work: %d", code)
	}
}

// TestSandboxCache: with --cache, the toolchains' caches of a confined
// command are the confined cache, writable; the person's own cache stays
// read-only, so what a confined build writes never reaches an
// unconfined one.
func TestSandboxCache(t *testing.T) {
	needBwrap(t)
	own, err := os.MkdirTemp("/var/tmp", "agate-own-cache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(own) })
	w := newSandboxWorld(t, "")
	cache := filepath.Join(w.dir, "confined-cache")
	t.Setenv("GOCACHE", own)
	code, stdout, stderr := runSandbox(t, "", "--strict", "--work", w.work, "--cache", cache, "--",
		"sh", "-c", `echo "$GOCACHE $XDG_CACHE_HOME"; mkdir -p "$GOCACHE" && echo poison > "$GOCACHE/entry"; echo poison > `+own+`/entry`)
	if !strings.Contains(stdout, filepath.Join(cache, "go-build")+" "+cache) {
		t.Errorf("status %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(cache, "go-build", "entry")); err != nil {
		t.Errorf("the confined cache took no write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(own, "entry")); err == nil {
		t.Error("a confined command wrote the person's own cache")
	}
	if _, err := exec.LookPath("go"); err == nil {
		// A real build: confined, it works; its cache is not the person's.
		mod := filepath.Join(w.work, "m")
		os.MkdirAll(mod, 0o755)
		os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module m\ngo 1.21\n"), 0o644)
		os.WriteFile(filepath.Join(mod, "m_test.go"), []byte("package m\nimport \"testing\"\nfunc TestM(t *testing.T) {}\n"), 0o644)
		code, stdout, stderr := runSandbox(t, "", "--strict", "--work", w.work, "--cwd", mod, "--cache", cache, "--", "go", "test", "./...")
		if code != 0 || !strings.Contains(stdout, "ok") {
			t.Errorf("go test confined: status %d, %s %s", code, stdout, stderr)
		}
	}
}

// TestSandboxStrictHome: confined to a judgment (--strict), a command sees
// of home the toolchains, git's config (without what can carry a token)
// and the project, not a store no list names: that reads as permission
// denied.
func TestSandboxStrictHome(t *testing.T) {
	needBwrap(t)
	home, err := os.MkdirTemp("/var/tmp", "agate-strict-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	proj := filepath.Join(home, "src", "proj")
	for f, text := range map[string]string{".myapp/token": "CANARY_myapp", ".config/other/cred.json": "CANARY_other",
		".gitconfig": "[user]\n\tname = x\n[url \"https://CANARY_git@host/\"]\n\tinsteadOf = https://host/\n", "src/proj/main.go": "package main\n", "src/other/secret.txt": "CANARY_src"} {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o600)
	}
	t.Setenv("HOME", home)
	newSandboxWorld(t, "")
	code, stdout, stderr := runSandbox(t, "", "--strict", "--work", proj, "--read-only", "--",
		"sh", "-c", "cat ~/.myapp/token ~/.config/other/cred.json ~/src/other/secret.txt; cat ~/.gitconfig main.go; true")
	if code != 0 || strings.Contains(stdout, "CANARY") || !strings.Contains(stdout, "package main") || !strings.Contains(stdout, `name = "x"`) {
		t.Errorf("status %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if n := strings.Count(stderr, "Permission denied"); n != 3 {
		t.Errorf("%d reads refused, want 3: %s", n, stderr)
	}
}

// TestSandboxStrictRepoConfig: confined, the project's own git config
// shows without the token a CI checkout leaves or a remote's password, and
// git works on the repository as before, read-only or with the project
// writable.
func TestSandboxStrictRepoConfig(t *testing.T) {
	needBwrap(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	w := newSandboxWorld(t, "")
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", w.work}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic CANARY_header")
	git("config", "remote.origin.url", "https://x-access-token:CANARY_url@github.com/o/r")
	git("config", "user.name", "t")
	git("config", "user.email", "t@example.com")
	os.WriteFile(filepath.Join(w.work, "a.txt"), []byte("a\n"), 0o644)
	// And the config a CI job hands git in the environment.
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "http.https://github.com/.extraheader")
	t.Setenv("GIT_CONFIG_VALUE_0", "AUTHORIZATION: basic CANARY_env")
	for _, mode := range [][]string{{"--read-only"}, nil} {
		args := append(append([]string{"--strict", "--work", w.work}, mode...), "--", "sh", "-c",
			"cat .git/config; git config --list; git status --short")
		code, stdout, stderr := runSandbox(t, "", args...)
		if code != 0 || strings.Contains(stdout, "CANARY") || !strings.Contains(stdout, "?? a.txt") {
			t.Errorf("%v: status %d, stdout %q, stderr %q", mode, code, stdout, stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.work, ".git", "config")); !strings.Contains(string(b), "CANARY_header") {
		t.Errorf("the repository's own config changed: %s", b)
	}
}
