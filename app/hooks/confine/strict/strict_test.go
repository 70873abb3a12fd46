package strict

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/hooks/confine"
	"github.com/agatehq/agate/policy/shellquote"
	"github.com/agatehq/agate/sandbox"
)

// run runs the runner on args and returns its status and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := Run(ctx, args, Stdio{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}, os.Getenv)
	return code, stdout.String(), stderr.String()
}

// world gives the runner its own agate files, and a home whose secrets
// and protected files it must not reach.
func world(t *testing.T) (home, work string) {
	t.Helper()
	home = t.TempDir()
	work = filepath.Join(home, "proj")
	t.Setenv("HOME", home)
	t.Setenv("AGATE_CONFIG", filepath.Join(home, ".config/agate/config.toml"))
	t.Setenv("AGATE_STATE_DIR", filepath.Join(home, ".local/state/agate"))
	t.Setenv("AGATE_SOCKET", filepath.Join(home, ".local/state/agate/run/agate.sock"))
	for _, f := range []string{"proj/main.go", "proj/plan.vault", "proj/deploy.sh", ".aws/credentials"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, f), []byte("canary-"+filepath.Base(f)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, work
}

func needBwrap(t *testing.T) {
	t.Helper()
	o := sandbox.Options{Launcher: sandbox.LauncherBwrap, FailClosed: true, WorkDir: t.TempDir()}
	if _, err := sandbox.Prepare(context.Background(), o, []string{"true"}); err != nil {
		t.Skipf("bwrap cannot run here: %v", err)
	}
}

// TestRunsShellsLine: the line confine.Shell writes, every flag in it, is
// the line the runner takes: what the config adds (--protect, --hide,
// --scrub-env) holds in the real sandbox, the work dir is read-only as
// the line says, and the network is closed.
func TestRunsShellsLine(t *testing.T) {
	needBwrap(t)
	_, work := world(t)
	t.Setenv("DEPLOY_TOKEN", "canary-env")
	script := `cat plan.vault; echo "tok=$DEPLOY_TOKEN"; echo x >> deploy.sh; echo y > new.txt; cat ~/.aws/credentials; ` +
		`(exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null && echo net-open; echo done`
	out, err := confine.Shell([]byte(`{"command":`+mustJSON(script)+`}`), confine.Sandbox{
		Bin: "/x/agate-hook", Work: work, ReadOnly: true, Strict: true, Cwd: work,
		Protected: []string{"deploy.sh"}, Secrets: []string{"*.vault"}, SecretEnv: []string{"DEPLOY_TOKEN"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var in struct{ Command string }
	if err := json.Unmarshal(out, &in); err != nil {
		t.Fatal(err)
	}
	words, ok := shellquote.Split(in.Command)
	if !ok || len(words) < 3 || words[1] != "sandbox" {
		t.Fatalf("the line %q", in.Command)
	}
	code, stdout, stderr := run(t, words[2:]...)
	if code != 0 || !strings.Contains(stdout, "done") {
		t.Fatalf("status %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, leak := range []string{"canary-plan.vault", "canary-env", "canary-credentials", "net-open"} {
		if strings.Contains(stdout, leak) {
			t.Errorf("%s reached the command: %q", leak, stdout)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(work, "deploy.sh")); string(b) != "canary-deploy.sh" {
		t.Errorf("deploy.sh changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(work, "new.txt")); err == nil {
		t.Error("a read-only line wrote the work dir")
	}
}

// TestProtectedInWritable: with the work dir writable, a protected path
// in it (the config's, the built-in list's) stays read-only, and the rest
// takes the write.
func TestProtectedInWritable(t *testing.T) {
	needBwrap(t)
	_, work := world(t)
	if err := os.WriteFile(filepath.Join(work, "CLAUDE.md"), []byte("rules"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "--strict", "--work", work, "--protect", "deploy.sh", "--", "sh", "-c",
		"cd "+work+"; echo x >> deploy.sh; echo x >> CLAUDE.md; echo ok > built.txt")
	if code != 0 || strings.Count(stderr, "Read-only file system") != 2 {
		t.Errorf("status %d, stderr %q", code, stderr)
	}
	for f, want := range map[string]string{"deploy.sh": "canary-deploy.sh", "CLAUDE.md": "rules", "built.txt": "ok\n"} {
		if b, _ := os.ReadFile(filepath.Join(work, f)); string(b) != want {
			t.Errorf("%s: %q, want %q", f, b, want)
		}
	}
}

// TestRefused: a line not of the form Shell writes is refused with the
// reason, before anything runs.
func TestRefused(t *testing.T) {
	_, work := world(t)
	marker := filepath.Join(work, "ran")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no --strict", []string{"--work", work, "--", "touch", marker}, "--strict form"},
		{"no --work", []string{"--strict", "--", "touch", marker}, "needs --work"},
		{"a relative work dir", []string{"--strict", "--work", "proj", "--", "touch", marker}, "absolute"},
		{"a relative --rw", []string{"--strict", "--work", work, "--rw", "out", "--", "touch", marker}, "absolute"},
		{"a relative --cwd", []string{"--strict", "--work", work, "--cwd", "sub", "--", "touch", marker}, "absolute"},
		{"a container", []string{"--strict", "--work", work, "--launcher", "docker", "--", "touch", marker}, "own sandbox"},
		{"no launcher at all", []string{"--strict", "--work", work, "--launcher", "none", "--", "touch", marker}, "own sandbox"},
		{"an unknown flag", []string{"--strict", "--work", work, "--ask", "--", "touch", marker}, "not defined"},
		{"no command", []string{"--strict", "--work", work, "--"}, "no command"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: status %d, stderr %q; want %d with %q", c.name, code, stderr, ExitUsage, c.want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a refused line ran its command")
	}
}

// TestCacheEnv: the toolchains' caches point into the confined cache,
// and nothing else of the environment changes.
func TestCacheEnv(t *testing.T) {
	got := CacheEnv([]string{"PATH=/bin", "GOCACHE=/home/u/.cache/go-build", "XDG_CACHE_HOME=/home/u/.cache"}, "/c")
	want := []string{"PATH=/bin", "GOCACHE=/c/go-build", "PIP_CACHE_DIR=/c/pip", "XDG_CACHE_HOME=/c", "npm_config_cache=/c/npm"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%q, want %q", got, want)
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
