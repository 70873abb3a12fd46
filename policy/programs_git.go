package policy

import (
	"maps"
	"path"
	"slices"
	"strings"
)

// The handlers of git: its subcommands, its config keys that run code, its hooks, stash, bisect, diff and grep (policy/programs/git.toml).

// --- git ---

// gitCodeKeys are git configuration keys whose values make git run a
// program: set for one command (git -c) they are code; written into a
// config file they are persistence.
var gitCodeKeys = lazyRegexp(`(?i)^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|worktree)|diff\.external|diff\..*\.(textconv|command)|filter\..*|merge\..*\.driver|credential\..*|gpg\.(.*\.)?program|sequence\.editor|pager\..*|uploadpack\..*|remote\..*\.(receivepack|uploadpack|vcs)|protocol\..*|url\..*|include\..*|includeif\..*|alias\..*|interactive\.difffilter|core\.alternaterefscommand|receive\..*hook.*|transfer\.fsckobjects|fetch\..*|submodule\..*\.update)$`)

// gitReadOnly are the subcommands that only read, unless the repository's
// own config makes them run programs (a pager, textconv, an fsmonitor).
var gitReadOnly = map[string]bool{"status": true, "diff": true, "log": true, "show": true, "blame": true,
	"grep": true, "shortlog": true, "whatchanged": true, "describe": true, "diff-index": true, "diff-files": true,
	"diff-tree": true, "ls-files": true, "annotate": true, "range-diff": true}

// gitDirNames are what makes a folder a git repository of its own (a bare
// one, or one whose config git obeys): its HEAD, config, objects, refs,
// or a .git file naming a git directory elsewhere.
var gitDirNames = map[string]bool{"HEAD": true, "config": true, "objects": true, "refs": true, "commondir": true, "gitdir": true, ".git": true}

// gitDirWritten returns a path the command wrote before git runs that can
// make the folder git runs in, or one above it below the project's root,
// a repository of its own (fg/config, fg/HEAD: git -C fg log obeys
// fg/config); "" when there is none.
func gitDirWritten(c *cmdRun) string {
	base := c.base
	for _, w := range slices.Sorted(maps.Keys(c.sh.written)) { // (the first in order: one reason, every time)
		d := path.Dir(w)
		if !gitDirNames[path.Base(w)] {
			continue
		}
		if d == c.sh.workspace || c.sh.workspace != "" && !strings.HasPrefix(d, c.sh.workspace+"/") {
			continue // the project's own root has its .git, found first
		}
		if base == d || strings.HasPrefix(base, d+"/") {
			return w
		}
	}
	return ""
}

// gitTakesStrategy are the subcommands whose -s names a merge strategy
// (git status -s, git commit -s are other options).
var gitTakesStrategy = map[string]bool{"merge": true, "pull": true, "rebase": true, "cherry-pick": true, "revert": true}

// gitStrategies are the merge strategies git has built in.
var gitStrategies = map[string]bool{"ort": true, "recursive": true, "resolve": true, "octopus": true, "ours": true, "subtree": true}

// gitHooks are the hooks each subcommand runs.
var gitHooks = map[string][]string{
	"commit": {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"}, "merge": {"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge"},
	"pull":  {"post-merge", "post-checkout", "post-rewrite", "pre-merge-commit", "prepare-commit-msg", "commit-msg", "pre-rebase", "reference-transaction"},
	"fetch": {"reference-transaction"}, "push": {"pre-push"}, "rebase": {"pre-rebase", "post-rewrite", "post-checkout"},
	"checkout": {"post-checkout"}, "switch": {"post-checkout"}, "am": {"applypatch-msg", "pre-applypatch", "post-applypatch"},
	"cherry-pick": {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"}, "revert": {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"},
	"worktree": {"post-checkout"}, "gc": {"pre-auto-gc"}, "clone": {"post-checkout"},
}

func gitHandler(c *cmdRun) {
	sub := ""
	if len(c.prefix) > 1 {
		sub = c.prefix[1]
	}
	for _, o := range c.opts {
		switch o.name {
		case "-c":
			key, _, _ := strings.Cut(o.val, "=")
			if !o.lit || gitCodeKeys().MatchString(key) {
				c.add(Effect{Kind: EffExec, What: "git -c " + key + " makes git run a program"})
			}
		case "--config-env", "--exec-path":
			c.add(Effect{Kind: EffExec, What: "git " + o.name + " makes git run other programs"})
		}
	}
	repo := c.sh.repo(c.base)
	if gd, ok := c.optVal("--git-dir"); ok {
		// The repository is that folder: its config and hooks are the
		// ones git obeys. agate knows them only for a .git folder.
		p := ""
		if o := c.optLit("--git-dir"); o {
			p = c.abs(gd)
		}
		if p == "" || path.Base(p) != ".git" {
			c.add(Effect{Kind: EffExec, What: "git --git-dir " + gd + " obeys that folder's config and hooks, which agate did not read"})
		} else {
			repo = c.sh.repo(path.Dir(p))
		}
	}
	if c.has("--bare") {
		// The folder it runs in is the repository: its config and hooks
		// are files of the project, which agate did not read.
		c.add(Effect{Kind: EffExec, What: "git --bare obeys the config and hooks of the folder it runs in, which agate did not read"})
	}
	if repo.Foreign != "" {
		c.add(Effect{Kind: EffExec, What: "git runs in " + repo.Foreign + ", a repository of its own whose config and hooks agate did not read"})
	} else if w := gitDirWritten(c); w != "" {
		c.add(Effect{Kind: EffExec, What: "git runs where this command writes " + w + ": git may take the folder for a repository whose config agate did not read"})
	}
	if gitReadOnly[sub] && repo.RunsCode != "" {
		c.add(Effect{Kind: EffExec, What: "this repository's config runs " + repo.RunsCode})
	}
	for _, h := range gitHooks[sub] {
		if repo.hasHook(h) {
			c.add(Effect{Kind: EffProject, What: "git " + sub + " runs the repository's " + h + " hook"})
			break
		}
	}
	if v, ok := c.optVal("-s", "--strategy"); ok && gitTakesStrategy[sub] && !gitStrategies[v] {
		// git runs a strategy it does not have as the program
		// git-merge-NAME, found on PATH.
		c.add(Effect{Kind: EffExec, What: "git " + sub + " -s " + v + " runs the program git-merge-" + v})
	}
	switch sub {
	case "apply", "am":
		gitApplyPatches(c)
	case "config":
		gitConfig(c, repo)
	case "remote":
		gitRemote(c, repo)
	case "clean":
		if !c.has("-n", "--dry-run") {
			c.add(Effect{Kind: EffDelete, Path: c.base, What: "git clean removes untracked files"})
		}
	case "checkout":
		switch {
		case c.has("-f", "--force"):
			c.add(Effect{Kind: EffDelete, Path: c.base, What: "git checkout -f throws away uncommitted changes"})
			return
		case c.has("--pathspec-from-file"):
			c.add(Effect{Kind: EffDelete, Path: c.base, What: "git checkout overwrites the paths a file lists, throwing away their uncommitted changes"})
			return
		}
		for _, op := range c.ops {
			if op.word == "." {
				c.add(Effect{Kind: EffDelete, Path: c.base, What: "git checkout throws away uncommitted changes"})
				return
			}
		}
		paths := c.ops
		if !c.argsAfterDashDash() && len(paths) > 0 && !looksLikePath(paths[0]) {
			paths = paths[1:] // a branch or a commit, then the paths taken from it
		}
		gitOverwrites(c, "checkout", paths)
	case "restore":
		if !c.has("-S", "--staged") || c.has("-W", "--worktree") {
			gitOverwrites(c, "restore", c.ops)
		}
	}
}

// looksLikePath reports whether a checkout operand before any "--" names
// files rather than a branch or a commit: a literal word with a slash or a
// dot in it that is not a revision (HEAD~1, main^, v1.2 with a ref's
// characters only), or one not known until the command runs.
func looksLikePath(op operand) bool {
	if !op.lit {
		return true
	}
	w := op.word
	if strings.ContainsAny(w, "~^@:") {
		return false
	}
	if strings.Contains(w, "/") || strings.HasPrefix(w, ".") {
		return true
	}
	ext := path.Ext(w)
	return ext != "" && strings.IndexFunc(ext[1:], func(r rune) bool { return r < '0' || r > '9' }) >= 0
}

// gitOverwrites records what git checkout and git restore do to the paths
// they are given: each is overwritten with the committed copy, its
// uncommitted changes lost, and written (so a path whose writes ask, a
// folder's tasks or hooks among them, asks here too). None given: the
// whole work tree.
func gitOverwrites(c *cmdRun, sub string, paths []operand) {
	if len(paths) == 0 {
		if sub == "restore" {
			c.add(Effect{Kind: EffDelete, Path: c.base, What: "git restore throws away uncommitted changes"})
		}
		return
	}
	for _, op := range paths {
		p := ""
		if op.lit {
			p = c.abs(op.word)
		}
		what := "git " + sub + " overwrites " + op.word + " with the committed copy, throwing away its uncommitted changes"
		c.add(Effect{Kind: EffDelete, Path: p, What: what})
		c.add(Effect{Kind: EffWrite, Path: p, What: what})
	}
}

// optLit reports whether the value of the last of the named options
// given is literal.
func (c *cmdRun) optLit(names ...string) bool {
	lit := false
	for _, o := range c.opts {
		for _, n := range names {
			if o.name == n && o.hasVal {
				lit = o.lit
			}
		}
	}
	return lit
}

// argsAfterDashDash reports whether the command had a "--" before
// operands.
func (c *cmdRun) argsAfterDashDash() bool {
	for i, w := range c.words {
		if w == "--" && c.lits[i] && i+1 < len(c.words) {
			return true
		}
	}
	return false
}

// gitConfig: reading is harmless; any write changes what git does later.
func gitConfig(c *cmdRun, repo RepoFacts) {
	if c.has("-l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--show-origin", "--show-scope", "-e", "--edit") {
		if c.has("-e", "--edit") {
			c.add(Effect{Kind: EffExec, What: "git config --edit opens an editor"})
		}
		gitPrintsCredential(c, repo, "")
		return
	}
	if len(c.ops) < 2 && !c.has("--unset", "--unset-all", "--remove-section", "--rename-section", "--add", "--replace-all") {
		if len(c.ops) == 1 && c.ops[0].lit {
			gitPrintsCredential(c, repo, c.ops[0].word)
		} else {
			gitPrintsCredential(c, repo, "")
		}
		return // git config KEY: a read
	}
	target := ".git/config"
	switch {
	case c.has("--global"):
		target = "~/.gitconfig"
	case c.has("--system"):
		target = "/etc/gitconfig"
	}
	if f, ok := c.optVal("-f", "--file"); ok {
		target = f
	}
	key := ""
	if len(c.ops) > 0 {
		key = c.ops[0].word
	}
	what := "git config " + key + " changes what git does from now on"
	if gitCodeKeys().MatchString(key) || strings.HasPrefix(strings.ToLower(key), "alias.") {
		what = "git config " + key + " makes git run a program from now on"
	}
	p := c.abs(target)
	c.add(Effect{Kind: EffPersist, Path: p, What: what})
	c.add(Effect{Kind: EffWrite, Path: p})
}

// gitRemote: git remote -v, get-url and show print the remotes' URLs,
// which may hold a token.
func gitRemote(c *cmdRun, repo RepoFacts) {
	if len(c.prefix) > 2 && c.prefix[2] != "get-url" && c.prefix[2] != "show" {
		return
	}
	if len(c.prefix) == 2 && !c.has("-v", "--verbose") {
		return // git remote: the names only
	}
	for _, k := range repo.Credentials {
		if strings.HasPrefix(strings.ToLower(k), "remote.") {
			c.add(Effect{Kind: EffSecret, What: "git remote prints " + k + ", which holds a credential"})
			return
		}
	}
}

// gitPrintsCredential records a git config read that prints a key whose
// value holds a credential: key, or any of them when key is "" (a list,
// a pattern, a key not known until the command runs).
func gitPrintsCredential(c *cmdRun, repo RepoFacts, key string) {
	for _, k := range repo.Credentials {
		if key == "" || strings.EqualFold(k, key) {
			c.add(Effect{Kind: EffSecret, What: "git config prints " + k + ", which holds a credential"})
			return
		}
	}
}

// gitStashHandler: drop and clear lose stashed work; the rest keep it.
func gitStashHandler(c *cmdRun) {
	gitHandler(c)
	if sub := c.prefix[len(c.prefix)-1]; sub == "drop" || sub == "clear" {
		c.add(Effect{Kind: EffDelete, What: "git stash " + sub + " throws stashed changes away"})
	}
}

// gitBisectHandler: bisect run runs the command it is given, once per
// step.
func gitBisectHandler(c *cmdRun) {
	if len(c.words) == 0 {
		return
	}
	c.prefix = append(c.prefix, c.words[0])
	if c.words[0] == "run" && len(c.words) > 1 {
		c.sh.call(c.words[1:], c.lits[1:], c.globs[1:], nil, false, c.depth)
	}
}

// --- git diff and git grep ---

// gitDiffHandler: git diff, git log and git grep read the paths they
// name (git log -p -- .env prints every version of .env), and files
// outside the repository given --no-index.
func gitDiffHandler(c *cmdRun) {
	gitHandler(c)
	noIndex := c.has("--no-index")
	dash := len(c.words)
	for i, w := range c.words {
		if w == "--" && c.lits[i] {
			dash = i
			break
		}
	}
	ops := c.ops
	if c.prefix[len(c.prefix)-1] == "grep" {
		if !c.has("-e", "-f") && len(ops) > 0 {
			ops = ops[1:] // the pattern
		}
		if !noIndex {
			// Revisions and the paths searched: git grep KEY .env prints
			// the lines of .env, git grep KEY HEAD:.env those of its last
			// commit.
			for _, op := range ops {
				c.pathEffect(EffRead, op.word, op.lit, Effect{})
			}
			return
		}
		if len(ops) == 0 {
			c.add(Effect{Kind: EffRead, Path: c.base})
		}
	}
	for _, op := range ops {
		w := op.word
		if noIndex || op.at > dash || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~") || strings.HasPrefix(w, ".") ||
			strings.Contains(w, "/") && !strings.Contains(w, "..") {
			c.pathEffect(EffRead, w, op.lit, Effect{})
		}
	}
}
