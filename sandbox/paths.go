package sandbox

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// protectedInWork are the paths under the work dir (and the home dir) that
// run code or steer an agent when written: git hooks and config, the
// agents' and editors' settings, dotenv files, direnv.
var protectedInWork = []string{
	".git/hooks", ".git/config", ".gitmodules", ".husky",
	".claude", ".gemini", ".cursor", ".codex", ".vscode", ".idea", ".mcp.json",
	".env", ".env.*", ".envrc",
	".npmrc", ".pypirc", ".netrc", ".git-credentials",
}

// protectedInHome are the paths under the home dir that run code at login,
// in every shell or on every git command, hold credentials, or configure
// the agents.
var protectedInHome = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".inputrc",
	".config/fish", ".config/git", ".gitconfig", ".ssh", ".gnupg",
	".aws", ".docker", ".kube", ".config/gcloud",
	".claude.json", ".local/bin", "bin", ".config/autostart", ".config/systemd",
}

// DefaultProtected lists the paths that exist and should stay read-only
// inside the sandbox even when they sit under a writable dir: in workDir and
// in home, git hooks and config, the agents' settings (.claude, .gemini,
// .cursor, .codex), editors' (.vscode, .idea), dotenv files, package
// manager credentials; in home also the shell rc files, ~/.ssh, ~/.local/bin
// and the like. extra adds more: absolute paths (agate's config dir belongs
// here), "~/" paths, and relative names or glob patterns (".env.local",
// "*.pem", ".claude/", as [auto] protected_paths writes them), looked for at
// the top of workDir and of home. The result is absolute, sorted and
// without duplicates. Either dir may be empty.
func DefaultProtected(workDir, home string, extra []string) []string {
	var out []string
	for _, p := range protectedInWork {
		out = append(out, existingIn(workDir, p)...)
		out = append(out, existingIn(home, p)...)
	}
	for _, p := range protectedInHome {
		out = append(out, existingIn(home, p)...)
	}
	out = append(out, existingAll(workDir, home, extra)...)
	slices.Sort(out)
	return slices.Compact(out)
}

// SecretPaths lists what exists of the secret stores' patterns (see
// policy.SecretStores: "~/" paths under home, absolute paths and globs as
// they are, names and globs at the top of workDir and of home), for
// Options.Hidden. A folder is written with a trailing "/". Left out: a
// path that holds workDir or home (hiding it would hide the project), and
// /proc and /dev, which are the sandbox's own.
func SecretPaths(workDir, home string, patterns []string) []string {
	var keep []string
	for _, p := range patterns {
		// The sandbox's own /proc and /dev: nothing of the host's to hide.
		if !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/dev/") {
			keep = append(keep, p)
		}
	}
	var out []string
	for _, p := range existingAll(workDir, home, keep) {
		if p == "/proc" || strings.HasPrefix(p, "/proc/") || p == "/dev" || strings.HasPrefix(p, "/dev/") ||
			workDir != "" && within(workDir, p) || home != "" && within(home, p) {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// existingAll finds each of patterns: "~/" under home, absolute as it is,
// a name or glob at the top of workDir and of home.
func existingAll(workDir, home string, patterns []string) []string {
	var out []string
	ls := dirLister{}
	for _, p := range patterns {
		p = strings.TrimSuffix(p, "/")
		switch {
		case p == "":
		case p == "~" || strings.HasPrefix(p, "~/"):
			out = append(out, ls.existingIn(home, strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/"))...)
		case filepath.IsAbs(p):
			out = append(out, ls.existingIn("/", p)...)
		default:
			out = append(out, ls.existingIn(workDir, p)...)
			out = append(out, ls.existingIn(home, p)...)
		}
	}
	return out
}

// dirLister lists each folder once for the globs matched in it.
type dirLister map[string][]string

// existingIn is existingIn, a glob whose meta characters are all in its
// last element matched against one listing of its folder.
func (ls dirLister) existingIn(dir, pattern string) []string {
	if dir == "" {
		return nil
	}
	p := pattern
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, pattern)
	}
	if !strings.ContainsAny(p, "*?[\\") {
		// A plain path: where its first element below dir is not in
		// dir's listing, it is not there, and no stat is spent on it
		// (most of the stores on the list are not on a given machine).
		if rel, err := filepath.Rel(dir, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			first, _, _ := strings.Cut(rel, string(filepath.Separator))
			if !slices.Contains(ls.list(dir), first) {
				return nil
			}
		}
		if _, err := os.Lstat(p); err == nil {
			return []string{filepath.Clean(p)}
		}
		return nil
	}
	parent, last := filepath.Split(p)
	if strings.ContainsAny(parent, "*?[\\") {
		return existingIn(dir, pattern)
	}
	parent = filepath.Clean(parent)
	names := ls.list(parent)
	var out []string
	for _, n := range names {
		if m, err := filepath.Match(last, n); err == nil && m {
			out = append(out, filepath.Join(parent, n))
		}
	}
	return out
}

// list is the names in dir, read once.
func (ls dirLister) list(dir string) []string {
	names, ok := ls[dir]
	if !ok {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		ls[dir] = names
	}
	return names
}

// existingIn returns the paths that exist matching pattern in dir, a glob
// (a bad pattern is taken as a plain path); nothing when dir is "".
func existingIn(dir, pattern string) []string {
	if dir == "" {
		return nil
	}
	p := pattern
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, pattern)
	}
	matches, err := filepath.Glob(p)
	if err != nil {
		matches = []string{p}
	}
	var out []string
	for _, m := range matches {
		if _, err := os.Lstat(m); err == nil {
			out = append(out, filepath.Clean(m))
		}
	}
	return out
}

// DefaultHidden lists the paths that exist and should be hidden inside the
// sandbox: the per-user runtime dirs ($XDG_RUNTIME_DIR and /run/user, which
// hold the agate daemon's socket, the session bus, the keyring and the gpg
// agent), the ssh agent's socket, the container engines' and the system
// bus's sockets, and agate's state dir under home (the sealed key store).
// extra adds more, such as the daemon's socket dir and state dir when they
// are moved. getenv reads the environment ([os.Getenv] when nil).
func DefaultHidden(home string, getenv func(string) string, extra []string) []string {
	if getenv == nil {
		getenv = os.Getenv
	}
	candidates := []string{
		getenv("XDG_RUNTIME_DIR"), "/run/user",
		getenv("SSH_AUTH_SOCK"),
		"/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/run/podman",
		"/run/dbus", "/var/run/dbus",
	}
	if home != "" {
		candidates = append(candidates, filepath.Join(home, ".local", "state", "agate"))
	}
	if s := getenv("XDG_STATE_HOME"); s != "" {
		candidates = append(candidates, filepath.Join(s, "agate"))
	}
	candidates = append(candidates, extra...)
	var out []string
	for _, p := range candidates {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			out = append(out, filepath.Clean(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// within reports whether path is dir or below it. Both are clean and
// absolute.
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// homeKeep is what a command confined to agate's judgment may read of the
// home folder: git's config and the toolchains (their installs and their
// caches), which builds and tests need. Everything else the home folder
// holds (the person's files, the logins and keys of tools no list names,
// shell rc files that export tokens) is hidden (HomeDenied). The entries
// of the folders in homeInto are looked at one by one.
var homeKeep = map[string]bool{
	".gitconfig": true, ".gitignore": true, ".gitignore_global": true,
	"go": true, "sdk": true, ".cargo": true, ".rustup": true, ".npm": true, ".nvm": true, ".pnpm-store": true,
	".yarn": true, ".pyenv": true, ".rbenv": true, ".rvm": true, ".gem": true, ".m2": true, ".gradle": true,
	".ivy2": true, ".sbt": true, ".deno": true, ".bun": true, ".volta": true, ".sdkman": true, ".dotnet": true,
	".asdf": true, ".ghcup": true, ".cabal": true, ".stack": true, ".opam": true, ".elan": true, ".julia": true,
	".conda": true, "miniconda3": true, "anaconda3": true, ".mix": true, ".hex": true, ".nix-profile": true,
	".config/git/config": true, ".config/git/ignore": true, ".config/git/attributes": true, ".config/go": true, ".config/pip": true, ".config/pypoetry": true, ".config/uv": true,
	".config/mise": true, ".config/yarn": true, ".config/pnpm": true, ".config/matplotlib": true,
	".local/bin": true, ".local/lib": true, ".local/share/pnpm": true, ".local/share/virtualenvs": true,
	".local/share/uv": true, ".local/share/mise": true, ".local/share/pipx": true, ".local/share/go": true,
	".cache/go-build": true, ".cache/pip": true, ".cache/pypoetry": true, ".cache/uv": true, ".cache/pre-commit": true,
	".cache/yarn": true, ".cache/node-gyp": true, ".cache/ms-playwright": true, ".cache/bazel": true,
	".cache/golangci-lint": true, ".cache/ccache": true, ".cache/sccache": true, ".cache/deno": true,
	".cache/typescript": true, ".cache/pnpm": true, ".cache/node": true, ".cache/fontconfig": true,
	".cache/mesa_shader_cache": true, ".cache/go": true, ".cache/cargo": true, ".cache/agate": true,
}

// homeInto are the folders of home whose entries are kept or hidden one
// by one, not whole.
var homeInto = []string{"", ".config", ".local", ".local/share", ".cache", ".config/git"}

// HomeShown reports whether a command confined to agate's judgment can
// see the path rel (slash-separated, relative to home) when it exists:
// it lies in a toolchain's folder or git's config (homeKeep), or it is
// one of the folders whose entries are judged one by one (homeInto).
// Anything else of home is hidden (HomeDenied) or is not there. A rel
// with a glob may be shown when a shown path matches it.
func HomeShown(rel string) bool {
	if rel = strings.Trim(rel, "/"); strings.Contains(rel, "//") || strings.Contains(rel, ".") && strings.Contains("/"+rel+"/", "/./") ||
		strings.Contains("/"+rel+"/", "/../") {
		rel = strings.Trim(path.Clean("/"+rel), "/")
	}
	if slices.Contains(homeInto, rel) {
		return true
	}
	first, _, _ := strings.Cut(rel, "/")
	if strings.ContainsAny(first, "*?[\\") {
		// A glob at the top: shown if it can match a shown name there
		// (a folder judged entry by entry counts: what it holds may be).
		for _, name := range homeTop() {
			if ok, err := path.Match(first, name); ok || err != nil {
				return true
			}
		}
		return false
	}
	if strings.ContainsAny(rel, "*?[\\") {
		// A glob below: shown if its literal part is (a conservative
		// answer: the rest is looked for).
		lit := rel[:strings.IndexAny(rel, "*?[\\")]
		if i := strings.LastIndexByte(lit, '/'); i >= 0 {
			lit = lit[:i]
		}
		rel = lit
		for _, d := range homeInto {
			if d == rel || strings.HasPrefix(d, rel+"/") {
				return true
			}
		}
	}
	for d := rel; d != "" && d != "."; d = path.Dir(d) {
		if homeKeep[d] {
			return true
		}
		if !strings.Contains(d, "/") {
			break
		}
	}
	return false
}

// homeTop is the names at the top of home that HomeShown may answer
// yes for: homeKeep's and homeInto's first components.
var homeTop = sync.OnceValue(func() []string {
	seen := map[string]bool{}
	for k := range homeKeep {
		first, _, _ := strings.Cut(k, "/")
		seen[first] = true
	}
	for _, d := range homeInto {
		if first, _, _ := strings.Cut(d, "/"); first != "" {
			seen[first] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
})

// HomeDenied lists what a command confined to agate's judgment does not
// see of home (for Options.Hidden): every entry of home, and of its
// .config, .local, .local/share and .cache, but the toolchains and git's
// config (homeKeep). A hidden entry that holds the work dir shows it
// through (the sandbox's layout binds it on top). The result is absolute
// and sorted.
func HomeDenied(home string) []string {
	if home == "" || home == "/" || !filepath.IsAbs(home) {
		return nil
	}
	into := map[string]bool{}
	for _, d := range homeInto {
		into[d] = true
	}
	var out []string
	for _, d := range homeInto {
		entries, err := os.ReadDir(filepath.Join(home, d))
		if err != nil {
			continue
		}
		for _, e := range entries {
			rel := e.Name()
			if d != "" {
				rel = d + "/" + e.Name()
			}
			if homeKeep[rel] || into[rel] {
				continue
			}
			out = append(out, filepath.Join(home, rel))
		}
	}
	slices.Sort(out)
	return out
}
