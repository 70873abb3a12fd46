package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/internal/apptest"
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

// TestConfinedServerRefuses: a profile agate will not cut is refused,
// never run unconfined instead: all of home writable, a file whose
// writes ask; a file the server keeps is made and given to it alone.
func TestConfinedServerRefuses(t *testing.T) {
	needBwrap(t)
	p := apptest.Paths(t, "")
	home, err := os.MkdirTemp("/var/tmp", "agate-mcp-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	cfg := policy.DefaultConfig()
	var stderr strings.Builder
	for _, prof := range []serverProfile{
		{confine: true, writable: []string{home}},
		{confine: true, writable: []string{"/"}},
		{confine: true, files: []string{filepath.Join(home, ".zshenv")}},
		{confine: true, files: []string{filepath.Join(home, ".config", "autostart", "x.desktop")}},
	} {
		cmd, err := confinedServer(context.Background(), cfg, p, prof, []string{"true"}, home, home, os.Environ(), &stderr)
		if !errors.Is(err, errBadProfile) || cmd != nil {
			t.Errorf("%+v: %v, want it refused", prof, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".zshenv")); err == nil {
		t.Error("a refused profile made the file")
	}
	mem := filepath.Join(home, "memory.jsonl")
	cmd, err := confinedServer(context.Background(), cfg, p, serverProfile{confine: true, files: []string{mem}}, []string{"sh", "-c", "echo x >> " + mem + " && echo y > " + home + "/other"}, home, home, os.Environ(), &stderr)
	if err != nil || cmd == nil {
		t.Fatalf("the memory file: %v %s", err, stderr.String())
	}
	cmd.Run()
	if b, _ := os.ReadFile(mem); string(b) != "x\n" {
		t.Errorf("the memory file holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "other")); err == nil {
		t.Error("the server wrote beside its file")
	}
}

// TestServerCode: what of a server's program shows in the sandbox: its
// node packages' folder, its own folder in home, itself alone in /tmp.
func TestServerCode(t *testing.T) {
	base, err := os.MkdirTemp("/var/tmp", "agate-server-code-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	home := filepath.Join(base, "home")
	nm := filepath.Join(base, "cache", "node_modules")
	for _, d := range []string{filepath.Join(nm, ".bin"), filepath.Join(nm, "pkg", "dist"), filepath.Join(home, "bin")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(nm, "pkg", "dist", "index.js"), []byte("#!/usr/bin/env node\n"), 0o755)
	os.Symlink("../pkg/dist/index.js", filepath.Join(nm, ".bin", "srv"))
	os.WriteFile(filepath.Join(home, "bin", "mine"), []byte("#!/bin/sh\n"), 0o755)
	tmpProg, err := os.CreateTemp("/tmp", "agate-server-")
	if err != nil {
		t.Fatal(err)
	}
	tmpProg.Close()
	t.Cleanup(func() { os.Remove(tmpProg.Name()) })
	for _, tt := range []struct {
		argv []string
		want []string
	}{
		{[]string{filepath.Join(nm, ".bin", "srv"), "/data"}, []string{nm, filepath.Join(nm, ".bin")}},
		{[]string{"node", filepath.Join(nm, "pkg", "dist", "index.js")}, nil}, // node's own folder, then the package's
		{[]string{filepath.Join(home, "bin", "mine")}, []string{filepath.Join(home, "bin")}},
		{[]string{tmpProg.Name()}, []string{tmpProg.Name()}},
	} {
		got := serverCode(tt.argv, base, home)
		if tt.want == nil {
			if !slices.Contains(got, nm) {
				t.Errorf("%q: %q, want %s among them", tt.argv, got, nm)
			}
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.argv, got, tt.want)
		}
	}
}
