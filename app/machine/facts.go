package machine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/policy/stores"
)

// The facts the daemon (and `agate replay`) give the policy about the
// machine, which the policy (pure) cannot look at itself: what is at a
// path a call would overwrite or delete, what a git repository runs on
// its own, and what a patch file a command applies says.

// gitTimeout bounds one git command the daemon runs to learn a fact; a
// fact not learnt in time is unknown, and the call asks.
const gitTimeout = 2 * time.Second

// repoCodeKeys are the local config keys that make read-only git
// commands (status, diff, log) run a program: a repository's own config
// is the agent's to write, the person's global config is not counted.
const repoCodeKeys = `^(core\.(fsmonitor|pager)|pager\..*|diff\.external|diff\..*\.(textconv|command)|filter\..*\.(clean|smudge|process)|include\.path|includeif\..*\.path|interactive\.difffilter)$`

// repoCredentialKeys are the config keys, in any scope, whose value may
// hold a credential that git config --list or git remote -v prints.
const repoCredentialKeys = `^(remote\..*\.(url|pushurl)|http\..*extraheader|url\..*\.(insteadof|pushinsteadof))$`

// Facts learns and caches what the policy needs to know. Its methods are
// policy.Request's Files, Repo and ReadPatch; it is safe for concurrent
// use.
type Facts struct {
	mu    sync.Mutex // guards repos
	repos map[string]repoEntry
	git   string // the git binary, "" when there is none
}

type repoEntry struct {
	facts   policy.RepoFacts
	stamp   string // what the entry was learnt from (config and hooks mtimes)
	learned time.Time
	// hooks is the hooks folder core.hooksPath names ("" for none) and
	// hooksStamp its mtime when learnt: a hook added there is seen at once.
	hooks, hooksStamp string
}

// NewFacts returns an empty cache of facts.
func NewFacts() *Facts {
	f := &Facts{repos: map[string]repoEntry{}}
	if p, err := exec.LookPath("git"); err == nil {
		f.git = p
	}
	return f
}

// repoRoot returns the folder holding the .git of the repository dir is
// in, or "".
func repoRoot(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if st, err := os.Lstat(filepath.Join(d, ".git")); err == nil && (st.IsDir() || st.Mode().IsRegular()) {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// nestedGitDir returns the folder from dir up to root (not root itself)
// that git would take for a repository of its own, a bare one (a HEAD
// file, objects and refs folders), before it reaches root's .git; "" for
// none.
func nestedGitDir(dir, root string) string {
	for d := filepath.Clean(dir); d != root && strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		if isGitDir(d) {
			return d
		}
	}
	return ""
}

// gitFileTarget returns the git directory root's .git file names when it
// is not one git makes such a file for (a worktree's,
// REPO/.git/worktrees/NAME; a submodule's, REPO/.git/modules/NAME): a
// .git file an agent wrote can make git in root read any repository on
// the disk. "" when .git is a folder, or a file of those shapes.
func gitFileTarget(root string) string {
	p := filepath.Join(root, ".git")
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	data, err := os.ReadFile(p)
	if err != nil || len(data) > 4096 {
		return p
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return p
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(root, target)
	}
	target = filepath.Clean(target)
	if parent := filepath.Base(filepath.Dir(target)); parent == "worktrees" || parent == "modules" {
		if filepath.Base(filepath.Dir(filepath.Dir(target))) == ".git" {
			return ""
		}
	}
	// A submodule's nested modules: REPO/.git/modules/A/modules/B.
	if strings.Contains(filepath.ToSlash(target), "/.git/modules/") {
		return ""
	}
	return target
}

// isGitDir reports whether d looks to git like a git directory.
func isGitDir(d string) bool {
	head, err := os.Lstat(filepath.Join(d, "HEAD"))
	if err != nil || !(head.Mode().IsRegular() || head.Mode()&os.ModeSymlink != 0) {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if st, err := os.Stat(filepath.Join(d, sub)); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// gitCmd runs git in root with what makes it safe to run in a
// repository an agent may have changed: no fsmonitor, no hooks, no
// pager, no prompt, no optional locks.
func (f *Facts) gitCmd(ctx context.Context, root string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	full := []string{"-C", root, "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "--no-pager"}
	if len(args) == 0 || args[0] != "config" {
		// git config runs no hook, and must read the repository's own
		// core.hooksPath, which this would hide.
		full = append(full, "-c", "core.hooksPath=/dev/null")
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, f.git, full...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat")
	cmd.Stdin = nil
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	return out.Bytes(), err
}

// Repo answers policy.Request.Repo.
func (f *Facts) Repo(dir string) policy.RepoFacts {
	root := repoRoot(dir)
	if f.git == "" {
		return policy.RepoFacts{}
	}
	if root == "" {
		return f.outside(dir)
	}
	if f := nestedGitDir(dir, root); f != "" {
		return policy.RepoFacts{Foreign: f}
	}
	if elsewhere := gitFileTarget(root); elsewhere != "" {
		return policy.RepoFacts{Foreign: root + " (its .git names " + elsewhere + ")"}
	}
	gitDir := filepath.Join(root, ".git")
	stamp := mtimeOf(filepath.Join(gitDir, "config")) + "|" + mtimeOf(filepath.Join(gitDir, "config.worktree")) +
		"|" + mtimeOf(filepath.Join(gitDir, "hooks")) + "|" + globalConfigStamp()
	f.mu.Lock()
	if e, ok := f.repos[root]; ok && e.stamp == stamp && time.Since(e.learned) < time.Minute && (e.hooks == "" || mtimeOf(e.hooks) == e.hooksStamp) {
		f.mu.Unlock()
		return e.facts
	}
	f.mu.Unlock()
	var rf policy.RepoFacts
	out, err := f.gitCmd(context.Background(), root, "config", "--local", "--null", "--name-only", "--get-regexp", repoCodeKeys)
	if len(out) > 0 {
		name, _, _ := bytes.Cut(out, []byte{0})
		rf.RunsCode = string(bytes.TrimSpace(name))
	} else if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			// Not "nothing found": say the repository may run code.
			rf.RunsCode = "config agate could not read"
		}
	}
	rf.Credentials = f.credentials(root)
	hooksDir := filepath.Join(gitDir, "hooks")
	if out, err := f.gitCmd(context.Background(), root, "config", "--get", "core.hooksPath"); err == nil && len(bytes.TrimSpace(out)) > 0 {
		hp := string(bytes.TrimSpace(out))
		if strings.HasPrefix(hp, "~/") {
			if h, err := api.HomeDir(); err == nil {
				hp = filepath.Join(h, hp[2:])
			}
		} else if !filepath.IsAbs(hp) {
			hp = filepath.Join(root, hp)
		}
		hooksDir = hp
		rf.HooksDir = filepath.Clean(hp)
	}
	if ents, err := os.ReadDir(hooksDir); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".sample") || e.IsDir() {
				continue
			}
			if info, err := e.Info(); err == nil && info.Mode()&0o111 != 0 {
				rf.Hooks = append(rf.Hooks, e.Name())
			}
		}
	}
	e := repoEntry{facts: rf, stamp: stamp, learned: time.Now()}
	if rf.HooksDir != "" {
		e.hooks, e.hooksStamp = rf.HooksDir, mtimeOf(rf.HooksDir)
	}
	f.mu.Lock()
	f.repos[root] = e
	f.mu.Unlock()
	return rf
}

// globalConfigStamp is the mtimes of the person's git config files, which
// may set core.hooksPath (and what runs code) for every repository.
func globalConfigStamp() string {
	home, _ := api.HomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	return mtimeOf(filepath.Join(home, ".gitconfig")) + "|" + mtimeOf(filepath.Join(xdg, "git", "config"))
}

// outside answers Repo for a folder in no repository: git there reads
// only the person's and the system's config, whose credentials count.
func (f *Facts) outside(dir string) policy.RepoFacts {
	const key = "" // no repository's root is ""
	f.mu.Lock()
	if e, ok := f.repos[key]; ok && time.Since(e.learned) < time.Minute {
		f.mu.Unlock()
		return e.facts
	}
	f.mu.Unlock()
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = "/"
	}
	rf := policy.RepoFacts{Credentials: f.credentials(dir)}
	f.mu.Lock()
	f.repos[key] = repoEntry{facts: rf, learned: time.Now()}
	f.mu.Unlock()
	return rf
}

// credentials returns the config keys git reads in root whose value (or,
// for url.BASE.insteadOf, whose BASE) holds a credential. Config agate
// could not read is reported as such a key.
func (f *Facts) credentials(root string) []string {
	out, err := f.gitCmd(context.Background(), root, "config", "--null", "--get-regexp", repoCredentialKeys)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			return nil // nothing found
		}
		return []string{"config agate could not read"}
	}
	var keys []string
	for _, ent := range bytes.Split(out, []byte{0}) {
		key, val, _ := strings.Cut(string(ent), "\n")
		if key == "" {
			continue
		}
		sub := ""
		if i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.'); i >= 0 && j > i {
			sub = key[i+1 : j]
		}
		if holdsCredential(key, val) || strings.HasPrefix(key, "url.") && holdsCredential("", sub) {
			keys = append(keys, key)
		}
	}
	return keys
}

// holdsCredential reports whether a config value holds a credential: a
// URL with a password or a token for its user, an Authorization header,
// or a string shaped like a known kind of key.
func holdsCredential(key, v string) bool {
	if strings.HasSuffix(strings.ToLower(key), "extraheader") {
		return true // a header git sends is there to authenticate
	}
	if _, ok := policy.FindCredential(v); ok {
		return true
	}
	if i := strings.Index(v, "://"); i >= 0 {
		rest := v[i+3:]
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			rest = rest[:j]
		}
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			user := rest[:at]
			if strings.Contains(user, ":") {
				return true // user:password
			}
			if _, ok := policy.FindCredential(user); ok {
				return true // a token as the user name
			}
		}
	}
	return false
}

func mtimeOf(p string) string {
	st, err := os.Stat(p)
	if err != nil {
		return "-"
	}
	return st.ModTime().Format(time.RFC3339Nano)
}

// Files answers policy.Request.Files: nothing there, something git can
// give back as it is (tracked and unchanged, or a folder of only such
// files), or something it cannot.
func (f *Facts) Files(p string) policy.FileState {
	if p == "" || strings.ContainsAny(p, "*?[") {
		return policy.FileUnknown
	}
	st, err := os.Lstat(p)
	switch {
	case err != nil && isNotExist(err):
		return policy.FileAbsent
	case err != nil:
		return policy.FileUnknown
	}
	if parent := filepath.Dir(p); parent != p {
		// A path beyond a link is not where it says: git reports nothing
		// of it, which would read as tracked and unchanged.
		if real, err := filepath.EvalSymlinks(parent); err != nil || real != parent {
			return policy.FileUnknown
		}
	}
	dir := p
	if !st.IsDir() {
		dir = filepath.Dir(p)
	}
	root := repoRoot(dir)
	if root == "" {
		return policy.FileUnrecoverable
	}
	if f.git == "" {
		return policy.FileUnknown
	}
	if f.Repo(dir).RunsCode != "" {
		// Its config would make git status run a program: do not run it.
		return policy.FileUnknown
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return policy.FileUnknown
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git"+string(filepath.Separator)) {
		return policy.FileUnrecoverable // git's own history
	}
	out, err := f.gitCmd(context.Background(), root, "status", "--porcelain=v1", "-z", "--untracked-files=all",
		"--ignored=matching", "--", ":(literal)"+rel)
	if err != nil {
		return policy.FileUnknown
	}
	if len(bytes.TrimSpace(out)) > 0 {
		if buildOutput(root, rel, st, out) {
			return policy.FileBuildOutput
		}
		return policy.FileUnrecoverable
	}
	if !st.IsDir() {
		// Nothing to report: tracked and unchanged, or a path git does not
		// see (inside a submodule, excluded from the index): make sure.
		out, err := f.gitCmd(context.Background(), root, "ls-files", "-z", "--error-unmatch", "--", ":(literal)"+rel)
		if err != nil || len(out) == 0 {
			return policy.FileUnrecoverable
		}
	}
	return policy.FileRecoverable
}

// maxBuildOutputWalk bounds the entries buildOutput looks at for a link
// out of the project: a bigger folder is not taken as build output.
const maxBuildOutputWalk = 200000

// buildOutput reports whether rel, in the repository at root, is a
// build's output or lies in one (a folder stores.BuildOutput names), git
// ignores all of it (status, in out, lists it ignored and nothing else),
// it is not itself a link, and nothing in it links out of the project
// (rm -rf through such a link would empty what it points to).
func buildOutput(root, rel string, st fs.FileInfo, status []byte) bool {
	if st.Mode()&fs.ModeSymlink != 0 {
		return false
	}
	in := false
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		in = in || stores.BuildOutput(part)
	}
	if !in {
		return false
	}
	for _, entry := range bytes.Split(bytes.TrimRight(status, "\x00"), []byte{0}) {
		if len(entry) > 0 && !bytes.HasPrefix(entry, []byte("!! ")) {
			return false // tracked, changed or untracked but not ignored
		}
	}
	if !st.IsDir() {
		return true
	}
	p := filepath.Join(root, rel)
	n := 0
	out := false
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if n++; err != nil || n > maxBuildOutputWalk {
			out = true
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		t, err := os.Readlink(q)
		if err != nil {
			out = true
			return fs.SkipAll
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(q), t)
		}
		if t = filepath.Clean(t); t != root && !strings.HasPrefix(t, root+string(filepath.Separator)) {
			out = true
			return fs.SkipAll
		}
		return nil
	})
	return !out
}

// isNotExist reports a path that is not there, a component that is a
// file included.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// maxPatch bounds the patch file ReadPatch reads: a bigger one is not
// read, and the command that applies it asks.
const maxPatch = 4 << 20

// ReadPatch answers policy.Request.ReadPatch: the text of the patch file
// at p, a regular file of at most maxPatch bytes, read without following
// a link at its end (a link could name a device or a fifo that blocks).
func (f *Facts) ReadPatch(p string) (string, bool) {
	fd, err := os.OpenFile(p, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return "", false
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxPatch {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(fd, maxPatch+1))
	if err != nil || len(b) > maxPatch {
		return "", false
	}
	return string(b), true
}
