//go:build linux

package sandbox

import (
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestBwrapArgs(t *testing.T) {
	base := []string{
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--ro-bind", "/proc/sys", "/proc/sys", "--tmpfs", "/tmp",
	}
	cat := func(parts ...[]string) []string { return slices.Concat(parts...) }
	tests := []struct {
		name string
		p    *plan
		want []string
	}{
		{
			name: "no network by default",
			p: &plan{work: "/w", argv: []string{"make", "test"},
				mounts: []mount{{mountBindRW, "/w"}}},
			want: cat([]string{"--unshare-all"}, base,
				[]string{"--bind", "/w", "/w", "--chdir", "/w", "--", "make", "test"}),
		},
		{
			name: "network shared when asked",
			p: &plan{work: "/w", net: true, argv: []string{"curl", "x"},
				mounts: []mount{{mountBindRW, "/w"}}},
			want: cat([]string{"--unshare-all", "--share-net"}, base,
				[]string{"--bind", "/w", "/w", "--chdir", "/w", "--", "curl", "x"}),
		},
		{
			name: "every kind of mount, in the plan's order",
			p: &plan{work: "/run/u/w", argv: []string{"sh"}, mounts: []mount{
				{mountEmptyDir, "/run/u"}, {mountBindRW, "/run/u/w"}, {mountBindRW, "/data"},
				{mountBindRO, "/opt/sdk"}, {mountHideFile, "/run/docker.sock"}, {mountHideDir, "/home/u/.aws"},
				{mountPin, "/run/u/w/.git"}, {mountProtect, "/run/u/w/.git/hooks"},
			}},
			want: cat([]string{"--unshare-all"}, base, []string{
				"--tmpfs", "/run/u", "--bind", "/run/u/w", "/run/u/w", "--bind", "/data", "/data",
				"--ro-bind", "/opt/sdk", "/opt/sdk", "--perms", "0000", "--ro-bind-data", "3", "/run/docker.sock",
				"--perms", "0000", "--tmpfs", "/home/u/.aws", "--remount-ro", "/home/u/.aws",
				"--bind", "/run/u/w/.git", "/run/u/w/.git", "--ro-bind", "/run/u/w/.git/hooks", "/run/u/w/.git/hooks",
				"--chdir", "/run/u/w", "--", "sh",
			}),
		},
		{
			name: "arguments that look like flags stay after --",
			p: &plan{work: "/w", argv: []string{"--bind", "/", "/"},
				mounts: []mount{{mountBindRW, "/w"}}},
			want: cat([]string{"--unshare-all"}, base,
				[]string{"--bind", "/w", "/w", "--chdir", "/w", "--", "--bind", "/", "/"}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bwrapArgs(tt.p)
			if !slices.Equal(got, tt.want) {
				t.Errorf("bwrapArgs\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestBwrapArgsKeepSecretsOut checks that variable values never reach
// bwrap's command line, where any user could read them in ps.
func TestBwrapArgsKeepSecretsOut(t *testing.T) {
	p, err := newPlan(Options{WorkDir: t.TempDir(), Env: []string{"PATH=/bin", "LANG=xx-secret-looking"}}, []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	if args := strings.Join(bwrapArgs(p), " "); strings.Contains(args, "xx-secret-looking") || strings.Contains(args, "--setenv") {
		t.Errorf("the environment is on the command line: %s", args)
	}
}

// TestNetworkCutHere: where this process can open a socket, bwrap makes a
// network namespace of its own (networkCut is for an enclosing sandbox
// that refuses every socket, which the Codex test runs under).
func TestNetworkCutHere(t *testing.T) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skipf("no IPv4 socket here: %v", err)
	}
	syscall.Close(fd)
	if networkCut() {
		t.Fatal("networkCut says the network is cut where a socket opens")
	}
	if a := strings.Join(bwrapArgs(&plan{work: "/w", argv: []string{"true"}}), " "); strings.Contains(a, "--share-net") {
		t.Fatalf("bwrap shares the network: %s", a)
	}
}
