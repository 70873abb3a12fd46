package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestContainerArgs(t *testing.T) {
	uidArgs := func(engine string) []string {
		if os.Getuid() <= 0 {
			return nil
		}
		if engine == LauncherPodman {
			return []string{"--userns", "keep-id"}
		}
		return []string{"--user", "x"} // checked by prefix only
	}
	tests := []struct {
		name    string
		engine  string
		p       *plan
		want    []string // in this order, not necessarily adjacent
		wantNot []string
	}{
		{
			name:   "podman, no network, only the work dir",
			engine: LauncherPodman,
			p: &plan{work: "/w", argv: []string{"make"}, env: []string{"PATH=/x", "LANG=C", "HOME=/root", "KEEP=1"},
				mounts: []mount{{mountBindRW, "/w"}, {mountPin, "/w/.git"}, {mountProtect, "/w/.git/hooks"}}},
			want: []string{"run", "--rm", "-i", "--pull", "never", "--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
				"--ulimit", "nofile=1024:1024", "--network", "none",
				"-v", "/w:/w", "-v", "/w/.git:/w/.git", "-v", "/w/.git/hooks:/w/.git/hooks:ro", "-w", "/w",
				"-e", "LANG", "-e", "KEEP", DefaultImage, "make"},
			wantNot: []string{"PATH", "HOME", "LANG=C", "--memory", "--cpus", "--runtime"},
		},
		{
			name:   "docker with network and limits",
			engine: LauncherDocker,
			p: &plan{work: "/w", net: true, argv: []string{"sh", "-c", "x"},
				opts:   Options{Network: "bridge", Memory: "2g", CPUs: "1.5", Runtime: "runsc", Image: "alpine:3"},
				mounts: []mount{{mountBindRW, "/w"}, {mountBindRO, "/opt"}}},
			want:    []string{"run", "--tmpfs", "/tmp", "--network", "bridge", "--memory", "2g", "--cpus", "1.5", "--runtime", "runsc", "-v", "/w:/w", "-v", "/opt:/opt:ro", "-w", "/w", "alpine:3", "sh", "-c", "x"},
			wantNot: []string{"--ulimit"},
		},
		{
			name:   "network none in the config holds even with --net",
			engine: LauncherDocker,
			p: &plan{work: "/w", net: true, argv: []string{"true"}, opts: Options{Network: "none"},
				mounts: []mount{{mountBindRW, "/w"}}},
			want: []string{"--network", "none"},
		},
		{
			name:   "--net with no network set is bridge",
			engine: LauncherDocker,
			p: &plan{work: "/w", net: true, argv: []string{"true"},
				mounts: []mount{{mountBindRW, "/w"}}},
			want: []string{"--network", "bridge"},
		},
		{
			name:   "a root filesystem dir instead of an image",
			engine: LauncherPodman,
			p: &plan{work: "/w", argv: []string{"true"}, opts: Options{Image: "/srv/rootfs"},
				mounts: []mount{{mountBindRW, "/w"}}},
			want:    []string{"--rootfs", "/srv/rootfs", "true"},
			wantNot: []string{DefaultImage},
		},
		{
			name:   "hidden paths: those inside a mount read as permission denied",
			engine: LauncherPodman,
			p: &plan{work: "/w", argv: []string{"true"}, hiddenFile: "/tmp/agate-hidden-0/hidden",
				mounts: []mount{{mountBindRW, "/w"}, {mountHideDir, "/w/state"}, {mountHideFile, "/w/s.sock"}, {mountHideDir, "/run/user"}}},
			want:    []string{"--tmpfs", "/w/state:ro,mode=0000", "-v", "/tmp/agate-hidden-0/hidden:/w/s.sock:ro"},
			wantNot: []string{"/dev/null:/w/s.sock:ro", "/run/user:ro,mode=0000"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (&container{engine: tt.engine}).args(tt.p)
			if !subsequence(got, tt.want) {
				t.Errorf("args %q\nlack, in order, %q", got, tt.want)
			}
			for _, n := range tt.wantNot {
				if slices.Contains(got, n) {
					t.Errorf("args %q contain %q", got, n)
				}
			}
			if u := uidArgs(tt.engine); u != nil && !slices.Contains(got, u[0]) {
				t.Errorf("args %q lack %s for a non-root caller", got, u[0])
			}
			if !slices.Equal(got[len(got)-len(tt.p.argv):], tt.p.argv) {
				t.Errorf("args %q do not end with the command", got)
			}
		})
	}
}

// subsequence reports whether want appears in got in order.
func subsequence(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

func TestContainerRefusesColons(t *testing.T) {
	p := &plan{work: "/w:x", argv: []string{"true"}, mounts: []mount{{mountBindRW, "/w:x"}}}
	_, err := (&container{engine: LauncherPodman}).command(t.Context(), p)
	if err == nil || !strings.Contains(err.Error(), "colon") {
		t.Errorf("err %v, want a refusal of the colon", err)
	}
}
