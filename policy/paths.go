package policy

import (
	"errors"
	"path"
	"strings"
)

// pathPattern is a compiled protected_paths / secret_paths entry. The
// forms, matched against a call's absolute, cleaned path:
//
//	.env  *.pem  id_rsa*     no slash: the file's base name
//	.claude/  .git/hooks/    trailing slash: that folder, anywhere, and all below it
//	.git/config              a relative path: the path ends with it
//	~/.config/agate  /etc/*  absolute (or ~): the path, or anything below it
type pathPattern struct {
	text string
	kind patternKind
	g    glob
}

type patternKind uint8

const (
	patBase     patternKind = iota // match the base name
	patDir                         // a folder anywhere: match the path or any ancestor against "*/dir"
	patSuffix                      // match the path against "*/rel"
	patAbsolute                    // match the path or any ancestor
)

func compilePathPattern(p string, o Options) (pathPattern, error) {
	pp := pathPattern{text: p}
	s := strings.TrimSpace(p)
	if s == "" {
		return pp, errors.New("empty pattern")
	}
	if s == "~" || strings.HasPrefix(s, "~/") {
		if o.Home == "" {
			s = "/~" + s[1:] // checked for syntax only; compiled for real with a home
		} else {
			s = o.Home + s[1:]
		}
	}
	var g string
	switch {
	case strings.HasPrefix(s, "/"):
		pp.kind, g = patAbsolute, path.Clean(s)
	case strings.HasSuffix(s, "/"):
		pp.kind, g = patDir, "*/"+strings.TrimRight(s, "/")
	case strings.Contains(s, "/"):
		pp.kind, g = patSuffix, "*/"+strings.TrimPrefix(s, "./")
	default:
		pp.kind, g = patBase, s
	}
	var err error
	pp.g, err = compileGlob(g)
	return pp, err
}

// match reports whether the absolute, cleaned path p is covered.
func (pp *pathPattern) match(p string) bool {
	switch pp.kind {
	case patBase:
		return pp.g.match(path.Base(p))
	case patSuffix:
		return pp.g.match(p)
	}
	for d := p; ; d = path.Dir(d) {
		if pp.g.match(d) {
			return true
		}
		if d == "/" || d == "." || d == "" {
			return false
		}
	}
}

// defaultProtected are the writes that ask by default: eVi's list, and what
// makes an agent or an editor run code or change its own rules.
var defaultProtected = []string{
	// eVi's: secrets and shell start-up files
	".env", ".env.*", ".envrc", ".npmrc", ".pypirc", ".gitconfig", ".netrc", ".git-credentials",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".inputrc", ".config/fish/",
	"*.pem", "*.key", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".ssh/", ".gnupg/",
	".aws/", ".kube/", ".docker/config.json",
	// agents' and editors' own settings, hooks, commands and tasks
	".claude/", ".gemini/", ".cursor/", ".codex/", ".vscode/", ".idea/", ".mcp.json",
	// git runs hooks and obeys its config
	".git/hooks/", ".git/config",
}

// defaultSecretReads are the reads that ask by default.
var defaultSecretReads = []string{
	".env", ".env.*", ".npmrc", ".pypirc", ".netrc", ".git-credentials", "*.pem", "*.key",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
	".aws/credentials", ".docker/config.json", ".kube/config", ".gnupg/",
}

// pathSet is a compiled list of path patterns.
type pathSet struct {
	pats []pathPattern
	src  []RuleRef // where each pattern came from
}

func (s *pathSet) add(p string, ref RuleRef, o Options) error {
	pp, err := compilePathPattern(p, o)
	if err != nil {
		return err
	}
	s.pats = append(s.pats, pp)
	s.src = append(s.src, ref)
	return nil
}

// match returns the first pattern covering the absolute path p.
func (s *pathSet) match(p string) (*RuleRef, bool) {
	for i := range s.pats {
		if s.pats[i].match(p) {
			return &s.src[i], true
		}
	}
	return nil, false
}

// absPath makes p absolute: "~" expands to home, a relative path joins cwd,
// and the result is cleaned. Symlinks are the resolver's business.
func absPath(p, cwd, home string) string {
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = home + p[1:]
	}
	if !strings.HasPrefix(p, "/") {
		if cwd == "" {
			cwd = "/"
		}
		p = cwd + "/" + p
	}
	return path.Clean(p)
}

// within reports whether the absolute path p is dir or below it.
func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}
