package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	add := func(dir, pattern string) {
		if dir == "" {
			return
		}
		p := pattern
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, pattern)
		}
		matches, err := filepath.Glob(p)
		if err != nil { // a bad pattern: try it as a plain path
			matches = []string{p}
		}
		for _, m := range matches {
			if _, err := os.Lstat(m); err == nil {
				out = append(out, filepath.Clean(m))
			}
		}
	}
	for _, p := range protectedInWork {
		add(workDir, p)
		add(home, p)
	}
	for _, p := range protectedInHome {
		add(home, p)
	}
	for _, p := range extra {
		switch {
		case p == "":
		case p == "~" || strings.HasPrefix(p, "~/"):
			add(home, strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/"))
		case filepath.IsAbs(p):
			add("/", p)
		default:
			add(workDir, p)
			add(home, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
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
