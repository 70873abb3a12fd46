package app

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is agate's module path; rules name packages relative to it ("."
// is the main package at the root).
const module = "github.com/agatehq/agate"

// rule says which of agate's packages one package may import. A package
// ending in "/..." covers the package and every package below it.
type rule struct {
	pkg string
	// may are the packages its non-test files may import.
	may []string
	// tests are what its tests may import besides: test helpers, or a
	// package to stand up what the code under test talks to.
	tests []string
	// why says what the rule keeps apart.
	why string
}

// testHelpers may be imported by any package's tests.
var testHelpers = []string{"app/internal/apptest", "app/internal/agenttest", "app/daemon/daemontest", "sandbox/sandboxtest"}

// lean is what the hook binary may link of agate, through every import:
// the hook protocols and their runner, the API's types and client, the
// OS helpers and the policy's wire words, and the runner of confined
// calls with the sandbox and the policy's lists; never the policy engine,
// the daemon or the command line.
var lean = []string{"app/hooks/agate-hook", "app/hooks/runner", "app/files/managed", "app/hooks", "app/hooks/agents",
	"app/hooks/claude", "app/hooks/gemini", "app/hooks/cursor", "app/hooks/codex", "app/hooks/qwen", "app/hooks/copilot", "app/hooks/opencode", "app/hooks/confine", "app/hooks/internal/hookjson",
	"app/hooks/confine/strict", "app/machine/profile", "policy/stores", "sandbox",
	"app/api", "app/osutil", "app/internal/strictjson", "policy/schema", "policy/verdict", "policy/shellquote"}

// rules are agate's rooms and what each may import. Every package of the
// module needs one: a new room says where it stands.
var rules = []rule{
	{pkg: "policy/...", may: []string{"policy/..."},
		why: "the policy is pure: it imports nothing of agate's but its own subpackages"},
	{pkg: "watcher", why: "live reloads know nothing of what they reload"},
	{pkg: "sandbox", why: "the sandbox takes its options whole"},
	{pkg: "sandbox/sandboxtest"},
	{pkg: "keystore", may: []string{"app/osutil"}, tests: []string{"keystore"},
		why: "the key store shares only the OS helpers"},
	{pkg: "assets"},
	{pkg: "bench/...", may: []string{"app/api", "policy/verdict"},
		why: "the benchmarks' floors speak to the daemon as a hook does, through its API client"},
	{pkg: "ui", may: []string{"app/api", "app/daemon", "app/files/audit", "app/files/config", "app/files/undo", "app/hooks", "app/hooks/settings",
		"app/machine", "app/version", "assets", "keystore", "policy", "sandbox", "ui/internal/..."},
		tests: []string{"app/files/managed"},
		why:   "the desktop app drives an in-process daemon and uses the packages that own agate's files"},
	{pkg: "ui/internal/..."},
	{pkg: ".", may: []string{"app/cli", "sandbox", "ui"}, why: "main is thin"},

	{pkg: "app", why: "app holds the map of the rooms and this test"},

	// The service, its API and its clients.
	{pkg: "app/api", may: []string{"app/osutil", "policy/verdict"},
		why: "the API's types and client are linked by the hook binary: not the policy, not the daemon"},
	{pkg: "app/daemon", may: []string{"app/api", "app/files/...", "app/hooks/settings/codexrules", "app/machine", "app/machine/profile", "app/mcp", "app/mcp/pins", "policy/shellquote",
		"app/osutil", "app/internal/strictjson", "app/version", "keystore", "policy", "sandbox", "watcher"},
		why: "the daemon never imports its clients (the command line, the desktop app, the hooks)"},
	{pkg: "app/daemon/daemontest", may: []string{"app/api", "app/daemon", "app/internal/apptest"},
		why: "a real daemon for the tests of its clients"},
	{pkg: "app/cli", may: []string{"app/api", "app/cli/replay", "app/files/...", "app/hooks", "app/hooks/runner", "app/hooks/confine/strict", "app/hooks/settings",
		"app/hooks/settings/codexrules", "app/machine", "app/mcp", "app/mcp/clients", "app/osutil", "app/internal/strictjson", "app/version",
		"keystore", "policy", "policy/shellquote", "sandbox",
		"app/daemon"}, // serve.go only: see TestOnlyServeConstructsADaemon
		tests: []string{"app/hooks/settings/settingsjson"},
		why:   "the commands reach the daemon through the API's client"},
	{pkg: "app/cli/replay", may: []string{"app/hooks", "app/hooks/agents", "policy"},
		why: "replay re-decides recorded calls under a policy; the caller brings the files and the disk"},

	// The agents' hooks: their protocols, the runner, their settings.
	{pkg: "app/hooks", may: []string{"policy/verdict", "policy/shellquote"},
		why: "the hooks' words: what every agent's adapter shares, and nothing of the daemon's"},
	{pkg: "app/hooks/internal/hookjson", may: []string{"app/hooks", "app/internal/strictjson"}},
	{pkg: "app/hooks/claude", may: []string{"app/hooks", "app/hooks/internal/hookjson", "policy/verdict", "policy/shellquote"},
		why: "one agent's protocol: bytes in, bytes out"},
	{pkg: "app/hooks/gemini", may: []string{"app/hooks", "app/hooks/internal/hookjson", "policy/verdict"},
		why: "one agent's protocol: bytes in, bytes out"},
	{pkg: "app/hooks/cursor", may: []string{"app/hooks", "app/hooks/internal/hookjson", "policy/verdict"},
		why: "one agent's protocol: bytes in, bytes out"},
	{pkg: "app/hooks/codex", may: []string{"app/hooks", "app/hooks/internal/hookjson", "policy/verdict"},
		why: "one agent's protocol: bytes in, bytes out"},
	{pkg: "app/hooks/opencode", may: []string{"app/hooks", "app/hooks/internal/hookjson", "policy/verdict"},
		why: "one agent's protocol (agate's plugin's): bytes in, bytes out"},
	{pkg: "app/hooks/copilot", may: []string{"app/hooks", "app/hooks/internal/hookjson", "policy/verdict"},
		why: "one agent's protocol: bytes in, bytes out"},
	{pkg: "app/hooks/qwen", may: []string{"app/hooks", "app/hooks/claude", "policy/verdict"},
		why: "one agent's protocol (Claude Code's, with Qwen Code's answers): bytes in, bytes out"},
	{pkg: "app/hooks/agents", may: []string{"app/hooks", "app/hooks/claude", "app/hooks/gemini", "app/hooks/cursor", "app/hooks/codex", "app/hooks/qwen", "app/hooks/copilot", "app/hooks/opencode", "policy/verdict"},
		why: "the one table of the agents' adapters"},
	{pkg: "app/hooks/confine", may: []string{"app/hooks/internal/hookjson", "policy/shellquote"},
		tests: []string{"app/hooks/claude"},
		why:   "the rewrite of a confined call: bytes in, bytes out"},
	{pkg: "app/hooks/runner", may: []string{"app/api", "app/files/managed", "app/hooks", "app/hooks/agents", "app/hooks/confine", "app/osutil", "app/internal/strictjson",
		"policy/schema", "policy/verdict"},
		tests: []string{"policy", "keystore"},
		why:   "the hook runner runs once per tool call: it links neither the policy nor the daemon"},
	{pkg: "app/hooks/confine/strict", may: []string{"app/api", "app/hooks/confine", "app/machine/profile", "policy/shellquote", "sandbox"},
		tests: []string{"app/osutil"},
		why:   "the runner of a confined call's line starts once per confined command: the profile from its flags, never the policy engine"},
	{pkg: "app/hooks/agate-hook", may: []string{"app/hooks", "app/hooks/runner", "app/hooks/confine/strict", "sandbox"}},
	{pkg: "app/hooks/settings", may: []string{"app/api", "app/hooks", "app/hooks/settings/...", "app/osutil"},
		tests: []string{"app/internal/tomledit"},
		why:   "the agents' settings files are edited by their formats' editors, nothing of the daemon's"},
	{pkg: "app/hooks/settings/settingsjson", may: []string{"app/hooks", "app/hooks/internal/hookjson", "app/internal/jsonc"},
		why: "agate's hooks in the agents' JSON settings, edited as bytes: no files, no daemon"},
	{pkg: "app/hooks/settings/codexconfig", may: []string{"app/hooks", "app/internal/tomledit"},
		why: "Codex's config.toml and its hook trust are edited as bytes: no files, no daemon"},
	{pkg: "app/hooks/settings/codexrules", may: []string{"app/osutil", "policy"},
		why: "agate's Codex exec-policy rules are rendered from the policy's config; the daemon and the command line write them"},

	// The MCP proxy, its pins and its clients' configs.
	{pkg: "app/mcp", may: []string{"app/internal/strictjson", "policy"}, tests: []string{"app/mcp/mcptest"},
		why: "the MCP proxy asks a Gate; it knows nothing of the daemon behind it"},
	{pkg: "app/mcp/mcptest", may: []string{"app/mcp"}},
	{pkg: "app/mcp/clients", may: []string{"app/mcp", "app/osutil", "app/internal/strictjson", "app/internal/jsonc", "app/internal/tomledit", "policy"},
		why: "rewriting MCP clients' configs knows the proxy's names, nothing of the daemon"},
	{pkg: "app/mcp/pins", may: []string{"app/mcp", "app/osutil", "app/internal/strictjson"},
		why: "the pin store owns the pinned MCP tool definitions: it imports neither the daemon nor the command line"},

	// The files agate owns.
	{pkg: "app/files/audit", may: []string{"app/api", "app/osutil"},
		why: "the audit log owns its file: it imports neither the daemon nor the command line"},
	{pkg: "app/files/grants", may: []string{"app/osutil", "app/internal/tomledit", "policy"},
		why: "the grants store owns grants.toml: it imports neither the daemon nor the command line"},
	{pkg: "app/files/config", may: []string{"app/api", "app/files/managed", "app/osutil", "app/internal/tomledit", "policy"},
		why: "the config owns config.toml and its copies: it imports neither the daemon nor the command line"},
	{pkg: "app/files/leaks", may: []string{"app/api", "app/osutil"},
		why: "the leak record owns leaks.json: it imports neither the daemon nor the command line"},
	{pkg: "app/files/managed", why: "the managed policy file, where it is and whether it can be trusted: agate-hook reads it, so it links nothing of agate's"},
	{pkg: "app/files/audit/export", may: []string{"app/api", "app/files/audit", "app/osutil"},
		why: "the audit export reads the audit log and speaks OTLP/HTTP: it imports neither the daemon nor the command line"},
	{pkg: "app/files/tokens", may: []string{"app/osutil"},
		why: "the token store owns tokens.json: it imports neither the daemon nor the command line"},
	{pkg: "app/files/undo", may: []string{"app/osutil"},
		why: "the undo store owns the kept copies: it imports neither the daemon nor the command line, and is told what a secret is"},

	// Around them.
	{pkg: "app/machine", may: []string{"app/api", "app/files/undo", "app/machine/profile", "app/osutil", "keystore", "policy", "policy/stores", "sandbox"},
		why: "the machine's facts are shared by the daemon, the command line and the desktop app"},
	{pkg: "app/machine/profile", may: []string{"app/api", "policy/stores", "sandbox"},
		why: "the sandbox profile everyone confines to; the runner of confined calls links it, so not the policy engine"},
	{pkg: "app/osutil", why: "the OS helpers import nothing of agate's: the lean hook links them"},
	{pkg: "app/version"},
	{pkg: "app/internal/strictjson"},
	{pkg: "app/internal/jsonc", may: []string{"app/internal/strictjson"},
		why: "JSON with comments as agate's editors write it: every package that edits JSON as bytes shares it"},
	{pkg: "app/internal/tomledit", why: "TOML as agate's editors read and write it: every package that edits TOML as bytes shares it"},
	{pkg: "app/internal/apptest", may: []string{"app/api"}, why: "every package's tests may use it, the daemon's own included"},
	{pkg: "app/internal/agenttest", may: []string{"app/hooks/settings/codexconfig", "app/internal/tomledit"}},
}

// pkgFiles is one package's Go files and what each imports.
type pkgFiles struct {
	files map[string][]string // file name -> imports
}

// imports returns the imports of the package's test files or its other
// files, as sorted paths.
func (p *pkgFiles) imports(tests bool) []string {
	seen := map[string]bool{}
	for name, imps := range p.files {
		if strings.HasSuffix(name, "_test.go") != tests {
			continue
		}
		for _, i := range imps {
			seen[i] = true
		}
	}
	out := make([]string, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	sort.Strings(out)
	return out
}

// parseModule reads the imports of every Go file of the module, whatever
// its build constraints, by package (relative to the module: "." for the
// root). testdata folders and hidden ones are not packages.
func parseModule(t *testing.T) map[string]*pkgFiles {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module's root: %v", err)
	}
	pkgs := map[string]*pkgFiles{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		p := pkgs[rel]
		if p == nil {
			p = &pkgFiles{files: map[string][]string{}}
			pkgs[rel] = p
		}
		var imps []string
		for _, is := range f.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			imps = append(imps, ip)
		}
		p.files[filepath.Base(path)] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// covers reports whether pattern ("app/api", "policy/...") names pkg.
func covers(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pattern == pkg
}

func ruleFor(pkg string) *rule {
	for i := range rules {
		if covers(rules[i].pkg, pkg) {
			return &rules[i]
		}
	}
	return nil
}

// ours returns the import as a package of the module, or false.
func ours(imp string) (string, bool) {
	if imp == module {
		return ".", true
	}
	return strings.CutPrefix(imp, module+"/")
}

func allowed(list []string, pkg string) bool {
	return slices.ContainsFunc(list, func(p string) bool { return covers(p, pkg) })
}

// TestImportRule: each package imports only what its rule allows; its
// tests may import what the package may, the package itself, the test
// helpers, and what the rule adds for tests.
func TestImportRule(t *testing.T) {
	pkgs := parseModule(t)
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages: is this the module's root?", len(pkgs))
	}
	for name, p := range pkgs {
		r := ruleFor(name)
		if r == nil {
			t.Errorf("package %s has no rule in layout_test.go: add one saying what it may import", name)
			continue
		}
		for _, tests := range []bool{false, true} {
			may := r.may
			if tests {
				may = slices.Concat(r.may, r.tests, testHelpers, []string{name})
			}
			for _, imp := range p.imports(tests) {
				dep, ok := ours(imp)
				if !ok || allowed(may, dep) {
					continue
				}
				what := "imports"
				if tests {
					what = "has tests that import"
				}
				t.Errorf("%s %s %s: not allowed (%s)", name, what, dep, r.why)
			}
		}
	}
}

// TestOnlyServeConstructsADaemon: of the command line's files, only
// serve.go imports the daemon; every other command talks to a running
// daemon through the API's client.
func TestOnlyServeConstructsADaemon(t *testing.T) {
	p := parseModule(t)["app/cli"]
	if p == nil {
		t.Fatal("no package app/cli")
	}
	for name, imps := range p.files {
		if strings.HasSuffix(name, "_test.go") || name == "serve.go" {
			continue
		}
		if slices.Contains(imps, module+"/app/daemon") {
			t.Errorf("app/cli/%s imports the daemon: only serve.go constructs one; use the API's client", name)
		}
	}
}

// TestOnlyUIImportsFyne: the GUI toolkit is linked by the desktop app
// alone, and only the main package imports the desktop app, so the
// daemon, the command line and the hook never load it.
func TestOnlyUIImportsFyne(t *testing.T) {
	for name, p := range parseModule(t) {
		for _, tests := range []bool{false, true} {
			for _, imp := range p.imports(tests) {
				if (imp == "fyne.io/fyne/v2" || strings.HasPrefix(imp, "fyne.io/")) && name != "ui" {
					t.Errorf("%s imports %s: only ui imports Fyne", name, imp)
				}
				if dep, ok := ours(imp); ok && dep == "ui" && name != "." {
					t.Errorf("%s imports ui: only the main package does", name)
				}
			}
		}
	}
}

// TestHookBinaryStaysLean: what agate-hook links of agate, through every
// import, is in lean.
func TestHookBinaryStaysLean(t *testing.T) {
	pkgs := parseModule(t)
	seen := map[string]bool{}
	var walk func(string)
	walk = func(pkg string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		p := pkgs[pkg]
		if p == nil {
			t.Fatalf("no package %s", pkg)
		}
		for _, imp := range p.imports(false) {
			if dep, ok := ours(imp); ok {
				if !slices.Contains(lean, dep) {
					t.Errorf("agate-hook links %s (through %s)", dep, pkg)
				}
				walk(dep)
			}
		}
	}
	walk("app/hooks/agate-hook")
}

// TestRoomsAreMapped: at most ten folders stand directly under app/, and
// the map in app/doc.go names each of them and nothing else; so does
// app/hooks/doc.go's for the hooks' folders.
func TestRoomsAreMapped(t *testing.T) {
	for _, dir := range []string{".", "hooks"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var rooms []string
		for _, e := range entries {
			if e.IsDir() && e.Name() != "testdata" {
				rooms = append(rooms, e.Name())
			}
		}
		if dir == "." && len(rooms) > 10 {
			t.Errorf("%d folders under app/ (%v): at most ten, each named by what it is", len(rooms), rooms)
		}
		doc, err := os.ReadFile(filepath.Join(dir, "doc.go"))
		if err != nil {
			t.Fatal(err)
		}
		var mapped []string
		for _, line := range strings.Split(string(doc), "\n") {
			if f := strings.Fields(strings.TrimPrefix(line, "//\t")); strings.HasPrefix(line, "//\t") && len(f) > 1 {
				mapped = append(mapped, f[0])
			}
		}
		sort.Strings(mapped)
		if !slices.Equal(rooms, mapped) {
			t.Errorf("%s/doc.go maps %v; the folders are %v", dir, mapped, rooms)
		}
	}
}
