//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/sandbox/sandboxtest"
)

// envUnprivileged is set in the test binary's environment when
// TestSandboxConfinementUnprivileged re-runs it as an ordinary user.
const envUnprivileged = "AGATE_SANDBOX_TEST_UNPRIVILEGED"

// harness is one confinement run's world: a work dir with protected files
// in it, a dir outside that anyone may write, a hidden dir holding a live
// unix socket (the daemon's), and TCP and UDP listeners on the host's
// loopback.
type harness struct {
	work, outside, hidden, sock string
	secrets                     []string // hidden: a folder, a file outside, a file in the work dir
	tcp                         *net.TCPListener
	udp                         net.PacketConn
	unix                        *net.UnixListener
	opts                        Options
}

func newHarness(t *testing.T, o Options) *harness {
	t.Helper()
	h := &harness{work: t.TempDir()}
	// Outside /tmp, which the Linux launchers replace: a write that escapes
	// lands here and is seen. World-writable, so only the sandbox stops it.
	outside, err := os.MkdirTemp(outsideBase(), "agate-sandbox-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	if err := os.Chmod(outside, 0o777); err != nil {
		t.Fatal(err)
	}
	h.outside = outside
	// The escape tests write here when nothing confines them.
	t.Cleanup(func() { os.Remove("/tmp/agate-private-" + filepath.Base(outside)) })

	h.hidden = filepath.Join(outside, "run-agate")
	if err := os.Mkdir(h.hidden, 0o700); err != nil {
		t.Fatal(err)
	}
	h.sock = filepath.Join(h.hidden, "agate.sock")
	if h.unix, err = net.ListenUnix("unix", &net.UnixAddr{Name: h.sock, Net: "unix"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.unix.Close() })

	// A secret store (a folder) and a token file, hidden, and a .env in
	// the work dir, hidden too.
	writeFile(t, filepath.Join(outside, "store", "credentials"), "s3cret-store\n")
	writeFile(t, filepath.Join(outside, "token"), "s3cret-token\n")
	writeFile(t, filepath.Join(h.work, ".env"), "KEY=s3cret-env\n")
	h.secrets = []string{filepath.Join(outside, "store"), filepath.Join(outside, "token"), filepath.Join(h.work, ".env")}

	// A file shown with other content: a git config without its tokens.
	writeFile(t, filepath.Join(outside, "gitconfig"), "[url \"https://s3cret-view@host/\"]\n")
	o.Views = []View{{Path: filepath.Join(outside, "gitconfig"), Data: []byte("[user]\n\tname = shown\n")}}

	writeFile(t, filepath.Join(h.work, ".bashrc"), "orig\n")
	writeFile(t, filepath.Join(h.work, ".git", "config"), "[core]\n")
	if err := os.MkdirAll(filepath.Join(h.work, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.work, ".git", "HEAD"), "ref: refs/heads/main\n")

	if h.tcp, err = net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.tcp.Close() })
	if h.udp, err = net.ListenPacket("udp4", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.udp.Close() })

	o.WorkDir = h.work
	o.FailClosed = true
	o.Protected = DefaultProtected(h.work, h.work, nil) // as when the work dir is home
	o.Hidden = append([]string{h.hidden}, h.secrets...)
	o.Env = []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + h.work, "LANG=C.UTF-8", "KEEP_ME=1",
		"FOO_TOKEN=tok-s3cret", "OPENAI_API_KEY=sk-s3cret", "MY_SECRET=s3cret",
		"DATABASE_URL=postgres://app:s3cret@db/app", "CONFIG_NAMED=s3cret",
	}
	o.SecretEnv = []string{"CONFIG_NAMED"}
	h.opts = o
	return h
}

// outsideBase is where a harness makes its dir outside /tmp: the temp
// dir when it is not under /tmp (a test run as another user is given one
// of its own), else /var/tmp.
func outsideBase() string {
	if tmp := filepath.Clean(os.TempDir()); !within(tmp, "/tmp") {
		return tmp
	}
	return "/var/tmp"
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a bash script confined and returns its status and output.
func (h *harness) run(t *testing.T, script, stdin string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code, err := Run(ctx, h.opts, []string{"bash", "-c", script}, strings.NewReader(stdin), &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run: %v (stderr %q)", err, stderr.String())
	}
	return code, stdout.String(), stderr.String()
}

// nothingReached fails the test if anything connected to or sent to the
// host's listeners. The confined command has exited, so anything it sent
// is queued already; the deadlines only bound the look.
func (h *harness) nothingReached(t testing.TB) {
	t.Helper()
	_ = h.tcp.SetDeadline(time.Now().Add(50 * time.Millisecond))
	if c, err := h.tcp.Accept(); err == nil {
		c.Close()
		t.Error("the TCP listener outside the sandbox got a connection")
	}
	_ = h.udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _, err := h.udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Errorf("the UDP listener outside the sandbox got %d bytes", n)
	}
	_ = h.unix.SetDeadline(time.Now().Add(50 * time.Millisecond))
	if c, err := h.unix.Accept(); err == nil {
		c.Close()
		t.Error("the daemon's socket got a connection")
	}
}

// confinementCase is one promise the sandbox makes, checked from inside
// (the script's status and output) and from outside (the host's state).
type confinementCase struct {
	name   string
	script func(h *harness) string
	stdin  string
	// skip names launchers the case does not apply to, with why.
	skip map[string]string
	// check judges the confined run; it must assert something.
	check func(t testing.TB, h *harness, code int, stdout, stderr string)
}

func wantFailure(t testing.TB, code int, stderr string) {
	t.Helper()
	if code == 0 {
		t.Errorf("the confined command succeeded; want a failure (stderr %q)", stderr)
	}
}

func wantSuccess(t testing.TB, code int, stderr string) {
	t.Helper()
	if code != 0 {
		t.Errorf("the confined command failed with %d; want success (stderr %q)", code, stderr)
	}
}

func wantAbsent(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists on the host: a write escaped", path)
	}
}

func wantContent(t testing.TB, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("read %s: %v", path, err)
	} else if string(got) != want {
		t.Errorf("%s = %q on the host, want %q", path, got, want)
	}
}

var confinementCases = []confinementCase{
	{
		name:   "write to /etc fails",
		script: func(h *harness) string { return "echo x > /etc/agate-sandbox-" + filepath.Base(h.outside) },
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantFailure(t, code, stderr)
			wantAbsent(t, "/etc/agate-sandbox-"+filepath.Base(h.outside))
		},
	},
	{
		name:   "write to a world-writable dir outside fails",
		script: func(h *harness) string { return "echo x > " + h.outside + "/escaped" },
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantFailure(t, code, stderr)
			wantAbsent(t, filepath.Join(h.outside, "escaped"))
		},
	},
	{
		name:   "write in the work dir succeeds",
		script: func(*harness) string { return "mkdir -p sub && echo hello > sub/out.txt && mv sub/out.txt moved.txt" },
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantSuccess(t, code, stderr)
			wantContent(t, filepath.Join(h.work, "moved.txt"), "hello\n")
		},
	},
	{
		name:   "private /tmp is writable and does not reach the host",
		script: func(h *harness) string { return "echo x > /tmp/agate-private-" + filepath.Base(h.outside) },
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantSuccess(t, code, stderr)
			wantAbsent(t, "/tmp/agate-private-"+filepath.Base(h.outside))
		},
	},
	{
		name:   "no capabilities",
		script: func(*harness) string { return `grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status` },
		check: func(t testing.TB, _ *harness, code int, stdout, stderr string) {
			wantSuccess(t, code, stderr)
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if len(lines) != 3 {
				t.Fatalf("capability lines %q", stdout)
			}
			for _, l := range lines {
				if !strings.HasSuffix(l, "0000000000000000") {
					t.Errorf("%s: want no capability", l)
				}
			}
		},
	},
	{
		name:   "remount of / fails",
		script: func(*harness) string { return "mount -o remount,rw /" },
		check: func(t testing.TB, _ *harness, code int, _, stderr string) {
			wantFailure(t, code, stderr)
		},
	},
	{
		name: "/proc/sys is read-only",
		script: func(*harness) string {
			return `ro=
while read -r _ _ _ _ mp opts _; do
  [ "$mp" = /proc/sys ] && case $opts in ro|ro,*) ro=1 ;; esac
done < /proc/self/mountinfo
[ -n "$ro" ] || exit 9
v=$(cat /proc/sys/kernel/domainname) && echo "$v" > /proc/sys/kernel/domainname`
		},
		check: func(t testing.TB, _ *harness, code int, _, stderr string) {
			if code == 9 {
				t.Error("/proc/sys is not mounted read-only")
			}
			wantFailure(t, code, stderr)
		},
	},
	{
		name: "TCP connect to the host's loopback fails",
		script: func(h *harness) string {
			return fmt.Sprintf("echo x > /dev/tcp/127.0.0.1/%d", h.tcp.Addr().(*net.TCPAddr).Port)
		},
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantFailure(t, code, stderr)
			h.nothingReached(t)
		},
	},
	{
		name: "UDP send to the host's loopback arrives nowhere",
		script: func(h *harness) string {
			port := h.udp.LocalAddr().(*net.UDPAddr).Port
			return fmt.Sprintf("for i in 1 2 3; do echo x > /dev/udp/127.0.0.1/%d; done; true", port)
		},
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantSuccess(t, code, stderr) // the script ignores the sends' status
			h.nothingReached(t)
		},
	},
	{
		name:   "protected file in the work dir cannot be written",
		script: func(*harness) string { return "echo evil >> .bashrc" },
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantFailure(t, code, stderr)
			wantContent(t, filepath.Join(h.work, ".bashrc"), "orig\n")
		},
	},
	{
		name:   "protected file cannot be replaced",
		script: func(*harness) string { return "rm -f .bashrc; mv .git/config .git/config.old" },
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantFailure(t, code, stderr)
			wantContent(t, filepath.Join(h.work, ".bashrc"), "orig\n")
			wantContent(t, filepath.Join(h.work, ".git", "config"), "[core]\n")
		},
	},
	{
		name:   "git hooks cannot be added",
		script: func(*harness) string { return "printf '#!/bin/sh\\n' > .git/hooks/pre-commit" },
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantFailure(t, code, stderr)
			wantAbsent(t, filepath.Join(h.work, ".git", "hooks", "pre-commit"))
		},
	},
	{
		name:   "the dir holding protected paths cannot be renamed away",
		script: func(*harness) string { return "mv .git .git-moved" },
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantFailure(t, code, stderr)
			wantAbsent(t, filepath.Join(h.work, ".git-moved"))
			wantContent(t, filepath.Join(h.work, ".git", "config"), "[core]\n")
		},
	},
	{
		name:   "the rest of a dir holding protected paths stays writable",
		script: func(*harness) string { return "echo 'ref: refs/heads/dev' > .git/HEAD" },
		check: func(t testing.TB, h *harness, code int, _, stderr string) {
			wantSuccess(t, code, stderr)
			wantContent(t, filepath.Join(h.work, ".git", "HEAD"), "ref: refs/heads/dev\n")
		},
	},
	{
		name:   "environment has no credentials",
		script: func(*harness) string { return "env" },
		check: func(t testing.TB, _ *harness, code int, stdout, stderr string) {
			wantSuccess(t, code, stderr)
			if strings.Contains(stdout, "s3cret") {
				t.Errorf("a credential reached the sandbox:\n%s", stdout)
			}
			for _, want := range []string{"PATH=", "KEEP_ME=1", "LANG=C.UTF-8"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("env lacks %s:\n%s", want, stdout)
				}
			}
		},
	},
	{
		name:   "the daemon's socket dir is not reachable",
		script: func(h *harness) string { return "ls -A " + h.hidden + "; test -e " + h.sock },
		check: func(t testing.TB, h *harness, code int, stdout, stderr string) {
			wantFailure(t, code, stderr)
			if strings.Contains(stdout, "agate.sock") {
				t.Errorf("the socket is visible inside: %q", stdout)
			}
			h.nothingReached(t)
		},
	},
	{
		name: "hidden secrets read as permission denied, and cannot be opened up",
		script: func(h *harness) string {
			s := ""
			for _, p := range h.secrets {
				s += "cat " + p + "; ls " + p + "; cat " + p + "/credentials; chmod 777 " + p + "; cat " + p + "; "
			}
			return s + "true"
		},
		check: func(t testing.TB, h *harness, code int, stdout, stderr string) {
			if strings.Contains(stdout, "s3cret") {
				t.Errorf("a hidden secret reached the sandbox:\n%s", stdout)
			}
			// The folder: cat, ls, a file in it and cat again after the
			// chmod are refused; each file: cat, and cat again (ls shows a
			// file's name, and a path below a file is "not a directory").
			want := 4 + 2 + 2
			if l := h.opts.Launcher; l == LauncherPodman || l == LauncherDocker {
				// A container holds only what it mounts: the two secrets
				// outside the work dir are not in it at all; the one in
				// it reads as permission denied.
				want = 2
			} else if strings.Contains(stderr, "No such file") && !strings.Contains(stderr, "Not a directory") {
				t.Errorf("a hidden path reads as missing:\n%s", stderr)
			}
			if n := strings.Count(stderr, "Permission denied"); n != want {
				t.Errorf("%d reads refused as permission denied, want %d: a hidden path must not read as empty\n%s", n, want, stderr)
			}
			if n := strings.Count(stderr, "chmod: "); n != len(h.secrets) {
				t.Errorf("%d chmods refused, want %d:\n%s", n, len(h.secrets), stderr)
			}
		},
	},
	{
		name:   "own pid namespace",
		script: func(*harness) string { return "readlink /proc/self/ns/pid" },
		check: func(t testing.TB, _ *harness, code int, stdout, stderr string) {
			wantSuccess(t, code, stderr)
			host, err := os.Readlink("/proc/self/ns/pid")
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(stdout) == host {
				t.Errorf("the command shares the host's pid namespace %s", host)
			}
		},
	},
	{
		name:   "status, stdout, stderr and stdin pass through",
		script: func(*harness) string { return "echo out; echo err >&2; cat; exit 7" },
		stdin:  "in\n",
		check: func(t testing.TB, _ *harness, code int, stdout, stderr string) {
			if code != 7 || stdout != "out\nin\n" || stderr != "err\n" {
				t.Errorf("got status %d, stdout %q, stderr %q; want 7, %q, %q", code, stdout, stderr, "out\nin\n", "err\n")
			}
		},
	},
	{
		name: "a view shows its content, read-only",
		script: func(h *harness) string {
			f := filepath.Join(h.outside, "gitconfig")
			return "cat " + f + "; echo x >> " + f + " && echo WROTE; ls -l " + f
		},
		skip: map[string]string{
			LauncherPodman: "a container shows only what it binds",
			LauncherDocker: "a container shows only what it binds",
		},
		check: func(t testing.TB, h *harness, _ int, stdout, _ string) {
			if !strings.HasPrefix(stdout, "[user]\n\tname = shown\n") || strings.Contains(stdout, "s3cret") || strings.Contains(stdout, "WROTE") {
				t.Errorf("stdout %q: want the view, unwritable", stdout)
			}
			wantContent(t, filepath.Join(h.outside, "gitconfig"), "[url \"https://s3cret-view@host/\"]\n")
		},
	},
	{
		name:   "death by signal is 128+n",
		script: func(*harness) string { return "kill -TERM $$" },
		skip: map[string]string{
			LauncherPodman: containerPID1,
			LauncherDocker: containerPID1,
		},
		check: func(t testing.TB, _ *harness, code int, _, _ string) {
			if code != 143 {
				t.Errorf("status %d, want 143", code)
			}
		},
	},
}

// containerPID1 is why a container cannot be killed by its own signal.
const containerPID1 = "the command is pid 1 in a container and ignores signals it has no handler for " +
	"(no --init: its catatonit or tini is only a recommended package)"

// launcherUnderTest is a launcher configuration and why it may be skipped.
type launcherUnderTest struct {
	name string
	opts func(t *testing.T) (Options, string) // the options, or a reason to skip
}

var launchersUnderTest = []launcherUnderTest{
	{"bwrap", func(*testing.T) (Options, string) {
		o := Options{Launcher: LauncherBwrap}
		if err := (&bwrap{}).check(o); err != nil {
			return o, "bwrap cannot run here: " + err.Error()
		}
		return o, ""
	}},
	{"landlock", func(*testing.T) (Options, string) {
		o := Options{Launcher: LauncherLandlock}
		if err := (&landlockLauncher{}).check(o); err != nil {
			return o, "landlock launcher unavailable here: " + err.Error()
		}
		return o, ""
	}},
	{"podman", func(t *testing.T) (Options, string) { return podmanOptions(t) }},
	{"docker", func(t *testing.T) (Options, string) {
		o := Options{Launcher: LauncherDocker}
		if err := (&container{engine: LauncherDocker}).check(o); err != nil {
			return o, "docker: " + err.Error()
		}
		if out, err := exec.Command("docker", "info").CombinedOutput(); err != nil {
			return o, "docker has no working engine here: " + firstLineOf(out)
		}
		if firstLine(context.Background(), "docker", "image", "inspect", DefaultImage) == "" {
			return o, "docker has no local " + DefaultImage + " image and the test does not pull"
		}
		return o, ""
	}},
}

func firstLineOf(b []byte) string {
	l, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return l
}

// podmanOptions builds a podman configuration that works offline: a root
// filesystem made of the host's /usr, read-only, with runc (crun cannot
// run under this machine's cgroup setup).
func podmanOptions(t *testing.T) (Options, string) {
	o := Options{Launcher: LauncherPodman, Image: "/"} // (the root folder is made below: no registry here)
	if err := (&container{engine: LauncherPodman}).check(o); err != nil {
		return o, "podman: " + err.Error()
	}
	if os.Getuid() != 0 {
		return o, "rootless podman needs subuid ranges and a home for its storage; tested as root"
	}
	rootfs := t.TempDir()
	for _, d := range []string{"usr", "etc", "proc", "dev", "sys", "tmp", "run", "var/tmp"} {
		if err := os.MkdirAll(filepath.Join(rootfs, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{"bin", "sbin", "lib", "lib64"} {
		if err := os.Symlink("usr/"+l, filepath.Join(rootfs, l)); err != nil {
			t.Fatal(err)
		}
	}
	o.Image, o.ReadOnly = rootfs, []string{"/usr"}
	if _, err := exec.LookPath("runc"); err == nil {
		o.Runtime = "runc"
	}
	d := Probe(context.Background(), o)
	if !d.Available {
		return o, "podman cannot run a container here: " + d.Reason
	}
	return o, ""
}

// TestSandboxConfinement runs every promise under every launcher present, as
// whoever runs the tests (root here; TestSandboxConfinementUnprivileged re-runs
// it as nobody).
func TestSandboxConfinement(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real sandboxes")
	}
	who := fmt.Sprintf("uid %d", os.Getuid())
	for _, l := range launchersUnderTest {
		t.Run(l.name, func(t *testing.T) {
			o, skip := l.opts(t)
			if skip != "" {
				t.Skip(skip)
			}
			for _, c := range confinementCases {
				t.Run(c.name, func(t *testing.T) {
					if why, ok := c.skip[l.name]; ok {
						t.Skip(why)
					}
					h := newHarness(t, o)
					code, stdout, stderr := h.run(t, c.script(h), c.stdin)
					c.check(t, h, code, stdout, stderr)
				})
			}
			t.Logf("%s confined as %s", l.name, who)
		})
	}
}

// TestSandboxConfinementUnprivileged re-runs TestSandboxConfinement as nobody
// (uid 65534) when the tests run as root, so both kinds of caller are
// proved. It runs it as on a machine whose /tmp is not world-writable (a
// private /tmp of mode 0755, sandboxtest.Tmp0755), as some are: nobody
// gets a temp dir and a home of its own, made here with the modes it
// needs.
func TestSandboxConfinementUnprivileged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real sandboxes")
	}
	if os.Getenv(envUnprivileged) != "" {
		t.Skip("this is the unprivileged re-run")
	}
	if os.Getuid() != 0 {
		t.Skipf("already unprivileged (uid %d): TestSandboxConfinement covered it", os.Getuid())
	}
	u := newUserWorld(t, nobody)
	cmd, err := sandboxtest.Command(sandboxtest.Tmp0755, nobody, u.env(envUnprivileged+"=1"),
		u.bin, "-test.run=^TestSandboxConfinement$", "-test.v", "-test.count=1")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = u.dir
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := runContext(ctx, cmd)
	t.Logf("as nobody, with /tmp of mode 0755:\n%s", out)
	if err != nil {
		t.Fatalf("TestSandboxConfinement as nobody: %v", err)
	}
	if why := refusedFor(out, "bwrap", "landlock"); why != "" {
		t.Skipf("as nobody, neither launcher can run here: %s", why)
	}
	for _, want := range []string{"--- PASS: TestSandboxConfinement/bwrap ", "--- PASS: TestSandboxConfinement/landlock ", "confined as uid 65534"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("as nobody, the output lacks %q", want)
		}
	}
}

// TestChildRefusesOutsideNamespace proves that the re-exec entry point does
// not touch the caller's mounts when it is not pid 1 of fresh namespaces,
// as when someone runs `agate __sandbox-child` by hand.
func TestChildRefusesOutsideNamespace(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, spec, want string
	}{
		{"valid spec", `{"work":"/","roots":["/"],"argv":["true"]}`, "not started by the landlock launcher"},
		{"bad spec", `{`, "bad spec"},
		{"no command", `{"work":"/"}`, "no command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(self, childArg, tt.spec)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitSetupFailed {
				t.Fatalf("err %v, want exit %d", err, ExitSetupFailed)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.want)
			}
		})
	}
}

// TestLandlockNotFound checks the child's own failures keep their
// conventional statuses.
func TestLandlockNotFound(t *testing.T) {
	o := Options{Launcher: LauncherLandlock, FailClosed: true, WorkDir: t.TempDir()}
	if err := (&landlockLauncher{}).check(o); err != nil {
		t.Skip("landlock launcher unavailable here: " + err.Error())
	}
	var stderr bytes.Buffer
	code, err := Run(context.Background(), o, []string{"agate-no-such-command"}, nil, nil, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if code != ExitNotFound || !strings.Contains(stderr.String(), "command not found") {
		t.Errorf("status %d, stderr %q; want %d and command not found", code, stderr.String(), ExitNotFound)
	}
}

// escapeCases are the cases that must fail when nothing confines the
// command: run unconfined, each proves its check can see an escape. The
// others are left out because they would change the host (/etc, a
// remount, a sysctl), or hold unconfined too (agate scrubs the
// environment itself; status pass-through).
var escapeCases = []string{
	"write to a world-writable dir outside fails",
	"private /tmp is writable and does not reach the host",
	"protected file in the work dir cannot be written",
	"protected file cannot be replaced",
	"git hooks cannot be added",
	"the dir holding protected paths cannot be renamed away",
	"TCP connect to the host's loopback fails",
	"UDP send to the host's loopback arrives nowhere",
	"the daemon's socket dir is not reachable",
	"own pid namespace",
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Error(...any)          { r.failed = true }
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true; runtime.Goexit() }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

// TestSandboxChecksSeeEscapes runs the escape cases unconfined and
// wants every check to fail: a check that passes without a sandbox proves
// nothing about the sandbox.
func TestSandboxChecksSeeEscapes(t *testing.T) {
	byName := map[string]confinementCase{}
	for _, c := range confinementCases {
		byName[c.name] = c
	}
	for _, name := range escapeCases {
		c, ok := byName[name]
		if !ok {
			t.Fatalf("no confinement case %q", name)
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, Options{Launcher: LauncherNone})
			h.opts.FailClosed = false
			code, stdout, stderr := h.run(t, c.script(h), c.stdin)
			rec := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				c.check(rec, h, code, stdout, stderr)
			}()
			<-done
			if !rec.failed {
				t.Errorf("the check passed with no sandbox: it cannot tell confinement from none")
			}
		})
	}
}
