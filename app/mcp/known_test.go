package mcp

import (
	"slices"
	"strings"
	"testing"
)

// TestParseVersion: exact versions only.
func TestParseVersion(t *testing.T) {
	for in, ok := range map[string]bool{"1": true, "1.2": true, "2025.7.1": true, "1.2.3.4": true,
		"": false, "v1.2": false, "1.2.3-beta": false, "^1.2": false, "01.2": false, "1..2": false, "-1": false, "latest": false} {
		if _, got := parseVersion(in); got != ok {
			t.Errorf("parseVersion(%q) ok = %v, want %v", in, got, ok)
		}
	}
	k := Known{MinVersion: "2025.7.1"}
	for v, want := range map[string]bool{"2025.7.1": true, "2025.7": false, "2025.10.0": true, "2026": true, "2025.6.30": false, "": true, "latest": true, "next": false} {
		if got := k.describes(v); got != want {
			t.Errorf("describes(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestKnownServer(t *testing.T) {
	tests := []struct {
		command   []string
		name      string // "" when not recognized
		spec, bin string
		args      []string
	}{
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/a", "/b"}, "filesystem", "@modelcontextprotocol/server-filesystem", "mcp-server-filesystem", []string{"/a", "/b"}},
		{[]string{"npx", "--yes", "@modelcontextprotocol/server-filesystem@2026.8.31", "."}, "filesystem", "@modelcontextprotocol/server-filesystem@2026.8.31", "mcp-server-filesystem", []string{"."}},
		{[]string{"/usr/bin/npx", "-q", "-y", "@modelcontextprotocol/server-memory"}, "memory", "@modelcontextprotocol/server-memory", "mcp-server-memory", []string{}},
		{[]string{"npx", "-p", "@modelcontextprotocol/server-github", "mcp-server-github"}, "github", "@modelcontextprotocol/server-github", "mcp-server-github", []string{}},
		{[]string{"npm", "exec", "--yes", "--package=@modelcontextprotocol/server-everything", "--", "mcp-server-everything", "stdio"}, "everything", "@modelcontextprotocol/server-everything", "mcp-server-everything", []string{"stdio"}},
		{[]string{"/home/u/.cache/x/node_modules/.bin/mcp-server-filesystem", "/srv"}, "filesystem", "", "", []string{"/srv"}},
		{[]string{"node", "/opt/n/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "/srv"}, "filesystem", "", "", []string{"/srv"}},
		// Not recognized: an option npx has that agate does not read, a
		// package the catalog does not know, a program of another
		// package under a known one's name, npm exec without --package.
		{[]string{"npx", "--registry", "http://evil", "@modelcontextprotocol/server-filesystem", "/a"}, "", "", "", nil},
		{[]string{"npx", "-y", "some-other-server"}, "", "", "", nil},
		{[]string{"npx", "-p", "@modelcontextprotocol/server-github", "sh", "-c", "x"}, "", "", "", nil},
		{[]string{"npm", "exec", "--", "mcp-server-filesystem"}, "", "", "", nil},
		{[]string{"npx"}, "", "", "", nil},
		{[]string{"uvx", "mcp-server-fetch"}, "", "", "", nil},
		// Versions: the filesystem entry describes 2025.7.1 on; an older
		// one, or a range or tag npx resolves, is another server.
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem@2025.7.1", "/a"}, "filesystem", "@modelcontextprotocol/server-filesystem@2025.7.1", "mcp-server-filesystem", []string{"/a"}},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem@latest", "/a"}, "filesystem", "@modelcontextprotocol/server-filesystem@latest", "mcp-server-filesystem", []string{"/a"}},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem@2025.3.28", "/a"}, "", "", "", nil},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem@0.6.2", "/a"}, "", "", "", nil},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem@^2025.1.0", "/a"}, "", "", "", nil},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem@beta", "/a"}, "", "", "", nil},
		{[]string{"npx", "-p", "@modelcontextprotocol/server-filesystem@2025.1.1", "mcp-server-filesystem", "/a"}, "", "", "", nil},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-memory@0.1.0"}, "memory", "@modelcontextprotocol/server-memory@0.1.0", "mcp-server-memory", []string{}},
	}
	for _, tt := range tests {
		l, ok := KnownServer(tt.command)
		if tt.name == "" {
			if ok {
				t.Errorf("%q: recognized as %s, want not", tt.command, l.Package)
			}
			continue
		}
		if !ok || l.Name != tt.name || l.Spec != tt.spec || l.Bin != tt.bin || !slices.Equal(l.Args, tt.args) && len(l.Args)+len(tt.args) > 0 {
			t.Errorf("%q: %+v (%v), want %s spec %q bin %q args %q", tt.command, l, ok, tt.name, tt.spec, tt.bin, tt.args)
		}
	}
	l, _ := KnownServer([]string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/a", "--flag", "rel"})
	if got := l.ServedFolders(); !slices.Equal(got, []string{"/a", "rel"}) {
		t.Errorf("served folders %q", got)
	}
}

func TestKnownCatalogReads(t *testing.T) {
	cat, err := known()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat) < 8 {
		t.Fatalf("%d servers", len(cat))
	}
	for pkg, k := range cat {
		if DefaultName([]string{"npx", "-y", pkg}) != k.Name {
			t.Errorf("%s: its name %q is not what agate names it from its command (%q)", pkg, k.Name, DefaultName([]string{"npx", "-y", pkg}))
		}
	}
}

func TestValidSpec(t *testing.T) {
	for spec, want := range map[string]bool{
		"pkg": true, "pkg@1.2.3": true, "@scope/pkg": true, "@scope/pkg@^1": true,
		"": false, "-y": false, "../x": false, "./dir": false, "github:a/b": false, "https://x/y.tgz": false,
		"@scope/a/b": false, "a b": false, "file:../x": false, "@/x": false,
	} {
		if validSpec(spec) != want {
			t.Errorf("validSpec(%q) = %v", spec, !want)
		}
	}
}

// FuzzKnownServer: whatever the command, a recognized one names a package
// of the catalog, and the server's arguments are the command's last ones.
func FuzzKnownServer(f *testing.F) {
	f.Add("npx\x00-y\x00@modelcontextprotocol/server-filesystem@1\x00/a")
	f.Add("npm\x00exec\x00--package=@modelcontextprotocol/server-everything\x00--\x00mcp-server-everything")
	f.Add("node\x00/x/node_modules/@modelcontextprotocol/server-memory/dist/index.js")
	f.Fuzz(func(t *testing.T, s string) {
		command := strings.Split(s, "\x00")
		l, ok := KnownServer(command)
		if !ok {
			return
		}
		cat, _ := known()
		if _, in := cat[l.Package]; !in {
			t.Fatalf("%q: recognized as %q, not in the catalog", command, l.Package)
		}
		if len(l.Args) > len(command) || !slices.Equal(l.Args, command[len(command)-len(l.Args):]) {
			t.Fatalf("%q: args %q are not its last arguments", command, l.Args)
		}
	})
}

func TestNpmEnv(t *testing.T) {
	got := npmEnv([]string{"PATH=/bin", "NODE_OPTIONS=--require ./evil.js", "npm_config_registry=https://evil", "NPM_CONFIG_USERCONFIG=x", "HOME=/h",
		"NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt", "NODE_PATH=/x"})
	if !slices.Equal(got, []string{"PATH=/bin", "HOME=/h", "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt"}) {
		t.Errorf("npm's environment %q", got)
	}
}

// TestPackageOf: the npm package a command runs, and nothing for a spec
// that runs something else under a package's name.
func TestPackageOf(t *testing.T) {
	for _, tt := range []struct {
		command string
		want    string // "" for none
	}{
		{"npx -y @modelcontextprotocol/server-filesystem /x", "@modelcontextprotocol/server-filesystem"},
		{"npx -y @modelcontextprotocol/server-filesystem@2025.8.1 /x", "@modelcontextprotocol/server-filesystem"},
		{"npx pkg@^1.2", "pkg"},
		{"npm exec --package=pkg@1 -- pkg", "pkg"},
		{"npm exec --package=pkg@1 -- bash -c x", ""},
		{"npx -p @s/p p", "@s/p"},
		{"npx -p @s/p bash", ""},
		{"node /a/node_modules/@s/p/../../../evil.js", ""},
		{"node /a/node_modules/@s/p/dist/i.js", "@s/p"},
		{"node /a/node_modules/p/i.js", "p"},
		{"npx @modelcontextprotocol/server-filesystem@npm:evil", ""},
		{"npx pkg@github:e/x", ""},
		{"npx pkg@git+https://e.example/x.git", ""},
		{"npx pkg@file:../x", ""},
		{"npx evil/repo", ""},
		{"npx ./local", ""},
		{"npx https://e.example/x.tgz", ""},
		{"npx --registry=https://e.example pkg", ""},
		{"uvx mcp-server-git", ""},
		{"/usr/local/bin/server", ""},
	} {
		got, ok := PackageOf(strings.Fields(tt.command))
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: %q %v, want %q", tt.command, got, ok, tt.want)
		}
	}
	// The catalog does not take an alias for the server it knows.
	if _, ok := KnownServer(strings.Fields("npx -y @modelcontextprotocol/server-filesystem@npm:evil-fs /x")); ok {
		t.Error("an npm alias is taken for the filesystem server")
	}
}
