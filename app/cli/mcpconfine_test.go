package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agatehq/agate/policy"
)

func TestMCPProfile(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "src", "app")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := policy.Parse("config.toml", []byte(`
[mcp.servers.off]
confine = false
[mcp.servers.mine]
confine = true
network = true
writable = ["~/notes"]
pass_env = ["MY_TOKEN", "AGATE_PASSPHRASE"]
`))
	if err == nil {
		t.Fatal("AGATE_PASSPHRASE in pass_env was not refused")
	}
	cfg, err = policy.Parse("config.toml", []byte("[mcp.servers.off]\nconfine = false\n[mcp.servers.mine]\nconfine = true\nnetwork = true\nwritable = [\"~/notes\"]\npass_env = [\"MY_TOKEN\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, server string
		command      []string
		confine, net bool
		writable     []string
		keep         []string
	}{
		{"the catalog knows it", "filesystem", []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "docs", "/srv/x"}, true, false,
			[]string{filepath.Join(proj, "docs"), "/srv/x"}, nil},
		{"it needs the network and a token", "github", []string{"npx", "-y", "@modelcontextprotocol/server-github"}, true, true,
			nil, []string{"GITHUB_PERSONAL_ACCESS_TOKEN", "GITHUB_TOKEN"}},
		{"the project's own code", "dev", []string{"node", "./tools/mcp.js"}, true, false, []string{proj}, nil},
		{"a program on the PATH nobody knows", "other", []string{"my-mcp-server", "--stdio"}, false, false, nil, nil},
		{"switched off", "off", []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "docs"}, false, false, nil, nil},
		{"switched on", "mine", []string{"/opt/mine/server"}, true, true, []string{filepath.Join(home, "notes")}, []string{"MY_TOKEN", "EXTRA"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var passEnv []string // --pass-env: agate's own variables never pass
			if tt.server == "mine" {
				passEnv = []string{"EXTRA", "AGATE_SOCKET"}
			}
			p := mcpProfile(cfg, tt.server, tt.command, proj, home, passEnv)
			if p.confine != tt.confine || p.net != tt.net && tt.confine {
				t.Fatalf("confine %v net %v (%s), want %v %v", p.confine, p.net, p.why, tt.confine, tt.net)
			}
			if !tt.confine {
				return
			}
			if !slices.Equal(p.writable, tt.writable) {
				t.Errorf("writable %q, want %q", p.writable, tt.writable)
			}
			if !slices.Equal(p.keepEnv, tt.keep) {
				t.Errorf("kept variables %q, want %q", p.keepEnv, tt.keep)
			}
		})
	}
}
