package policy

import (
	"path"
	"regexp"
	"strings"

	"github.com/agatehq/agate/policy/shellquote"
)

// handler adds what a program's catalog entry cannot say as data. Entries
// name it with handler = "NAME". A raw handler (rawHandlers) reads the
// words itself; any other runs after the words were read by the entry.
type handler func(c *cmdRun)

// handlers are the named handlers. They are set in init, since some of
// them read commands in turn.
var handlers map[string]handler

// rawHandlers read a command's words themselves: find's expressions,
// dd's operands, env's assignments.
var rawHandlers = map[string]bool{"find": true, "dd": true, "env": true, "xargs": true, "shell": true,
	"command": true, "tar": true, "interpreter": false, "eval": true, "source": true, "trap": true,
	"builtin-def": true, "sevenzip": true, "gitbisect": true, "openssl": true}

func init() {
	handlers = map[string]handler{
		"find": findHandler, "sed": sedHandler, "patch": patchHandler, "awk": awkHandler, "dd": ddHandler, "tar": tarHandler,
		"git": gitHandler, "kill": killHandler, "env": envHandler, "xargs": xargsHandler, "ln": lnHandler,
		"command": commandHandler, "printenv": printenvHandler, "shell": shellHandler,
		"interpreter": interpreterHandler, "eval": evalHandler, "source": sourceHandler, "trap": trapHandler,
		"builtin-def": builtinDefHandler, "set": setHandler, "crontab": crontabHandler, "systemctl": systemctlHandler,
		"npm": npmHandler, "printf": printfHandler, "read": readHandler, "jq": jqHandler, "split": splitHandler,
		"unzip": unzipHandler, "sevenzip": sevenzipHandler, "gitstash": gitStashHandler, "gitbisect": gitBisectHandler,
		"npminit": npmInitHandler, "yarn": yarnHandler, "piplist": pipListHandler, "pipconfig": pipConfigHandler,
		"poetry": subWordsHandler(poetryWords), "bundle": subWordsHandler(bundleWords), "gem": subWordsHandler(gemWords),
		"composer": subWordsHandler(composerWords), "ssh": sshHandler, "gh": ghHandler, "cloud": cloudHandler,
		"kubectl": kubectlHandler, "openssl": opensslHandler, "service": serviceHandler, "at": atHandler, "ip": ipHandler,
		"mount": mountHandler, "pkgmgr": pkgmgrHandler, "docker": dockerHandler, "sqlite": sqliteHandler, "gpg": gpgHandler,
	}
}

// --- find ---

// findPrimaries are find's tests and actions that only read, with how
// many words each takes.
var findPrimaries = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1,
	"-type": 1, "-xtype": 1, "-size": 1, "-mtime": 1, "-atime": 1, "-ctime": 1, "-mmin": 1, "-amin": 1, "-cmin": 1,
	"-newer": 1, "-anewer": 1, "-cnewer": 1, "-newermt": 1, "-newerct": 1, "-newerat": 1, "-perm": 1, "-user": 1,
	"-group": 1, "-uid": 1, "-gid": 1, "-links": 1, "-inum": 1, "-samefile": 1, "-lname": 1, "-ilname": 1,
	"-maxdepth": 1, "-mindepth": 1, "-regextype": 1, "-fstype": 1, "-used": 1, "-printf": 1, "-context": 1,
	"-empty": 0, "-executable": 0, "-readable": 0, "-writable": 0, "-nouser": 0, "-nogroup": 0, "-true": 0,
	"-false": 0, "-print": 0, "-print0": 0, "-ls": 0, "-prune": 0, "-quit": 0, "-depth": 0, "-d": 0,
	"-mount": 0, "-xdev": 0, "-noleaf": 0, "-follow": 0, "-daystart": 0, "-ignore_readdir_race": 0,
	"-not": 0, "!": 0, "-a": 0, "-and": 0, "-o": 0, "-or": 0, "(": 0, ")": 0, ",": 0, "-help": 0,
	"--help": 0, "-version": 0, "--version": 0, "-nowarn": 0, "-warn": 0,
}

func findHandler(c *cmdRun) {
	sh := c.sh
	args, lits := c.words, c.lits
	i := 0
	for i < len(args) && (args[i] == "-L" || args[i] == "-H" || args[i] == "-P" || strings.HasPrefix(args[i], "-O") || args[i] == "-D") {
		if args[i] == "-D" {
			i++
		}
		i++
	}
	var roots []string
	var rootLits []bool
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		roots, rootLits = append(roots, args[i]), append(rootLits, lits[i])
		i++
	}
	if len(roots) == 0 {
		roots, rootLits = []string{"."}, []bool{true}
	}
	for j, r := range roots {
		c.pathEffect(EffRead, r, rootLits[j], Effect{Names: true})
	}
	// What -exec's {} stands for: the files found, named as the one -name
	// test says when there is one.
	name := ""
	for k := i; k < len(args)-1; k++ {
		switch args[k] {
		case "-name", "-iname":
			if name == "" && lits[k+1] {
				name = args[k+1]
				if args[k] == "-iname" {
					name = strings.ToLower(name)
				}
				continue
			}
			name = "*"
		case "-o", "-or", "!", "-not", "-exec", "-execdir", "-ok", "-okdir":
		}
		if a := args[k]; a == "-o" || a == "-or" || a == "!" || a == "-not" {
			name = "*"
		}
		if a := args[k]; a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir" {
			break
		}
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch a {
		case "-delete":
			for j, r := range roots {
				if sh.catastrophic(r, rootLits[j]) {
					sh.guard("find " + r + " -delete deletes " + r + " recursively")
					return
				}
				c.pathEffect(EffDelete, r, rootLits[j], Effect{What: "find -delete under " + r})
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			if j > i+1 {
				cmd, cmdLits := args[i+1:j], lits[i+1:j]
				// {} stands for each file found under the roots.
				sub := make([]string, len(cmd))
				subLits := make([]bool, len(cmd))
				for k, w := range cmd {
					sub[k], subLits[k] = w, cmdLits[k]
					if strings.Contains(w, "{}") {
						sub[k], subLits[k] = strings.ReplaceAll(w, "{}", foundUnder(roots[0], name)), rootLits[0]
					}
				}
				sh.call(sub, subLits, make([]bool, len(sub)), nil, false, c.depth)
			} else {
				c.unknown("find " + a + " without a command")
			}
			i = j
		case "-fprint", "-fprintf", "-fprint0", "-fls":
			if i+1 < len(args) {
				c.writePath(args[i+1], lits[i+1], Effect{})
				i++
				if a == "-fprintf" {
					i++
				}
			}
		default:
			n, ok := findPrimaries[a]
			if !ok {
				c.unknown("find " + a + " is not a test or action agate knows")
				return
			}
			if a == "-newer" || a == "-anewer" || a == "-cnewer" || a == "-samefile" {
				if i+1 < len(args) {
					c.pathEffect(EffRead, args[i+1], lits[i+1], Effect{})
				}
			}
			i += n
		}
	}
}

// --- sed ---

// sedCommand matches e, w, W or r used as a command, after an optional
// address.
var sedCommand = regexp.MustCompile(`(?:^|[;\n{}])\s*(?:[0-9$,~+]+|/[^/]*/[IM]*)?\s*!?\s*[ewWrR](?:\s|$|;)`)

func sedHandler(c *cmdRun) {
	var scripts []string
	scripted := false
	for _, o := range c.opts {
		switch o.name {
		case "-e", "--expression":
			scripts = append(scripts, o.val)
			scripted = true
		case "-f", "--file":
			scripted = true
			c.add(Effect{Kind: EffExec, What: "a sed script from " + o.val})
		}
	}
	files := c.ops
	if !scripted && len(files) > 0 {
		scripts = append(scripts, files[0].word)
		files = files[1:]
	} else if scripted {
		// The first operand was read as the script; it is a file.
		if len(c.ops) > 0 && c.ops[0].role == roleText {
			c.pathEffect(EffRead, c.ops[0].word, c.ops[0].lit, Effect{})
		}
	}
	if !c.has("--sandbox") {
		for _, s := range scripts {
			if sedSubstRunsOrWrites(s) || sedCommand.MatchString(s) || sedReaches(s) {
				c.add(Effect{Kind: EffExec, What: "a sed script that runs commands or reads and writes files"})
			}
		}
	}
	if c.has("-i", "--in-place") {
		for _, f := range files {
			c.writePath(f.word, f.lit, Effect{Edit: true})
		}
	}
}

// --- awk ---

// awkEscapes are what lets an awk program reach beyond the text it
// reads: running commands, writing or reading other files (getline < f,
// getline var < f), the environment, gawk's indirect calls (@f("id") with
// f = "system").
var awkEscapes = regexp.MustCompile(`\bsystem\s*\(|\|\s*getline|\bgetline\b[^;{}\n|]*<|\|&|\bprintf?\b[^;{}\n]*[>|]|\bENVIRON\b|\bfflush\b|\bclose\s*\(|@load|@include|@[A-Za-z_][A-Za-z_0-9]*\s*\(`)

// awkHarmlessW are the -W options (mawk's, and gawk's long options
// spelled -W NAME) that change nothing but the output: any other, such
// as -W exec FILE or -W source=PROGRAM, is unknown.
var awkHarmlessW = map[string]bool{"version": true, "v": true, "help": true, "usage": true, "dump": true,
	"interactive": true, "posix_space": true, "posix": true, "traditional": true, "sprintf": true, "random": true}

func awkHandler(c *cmdRun) {
	prog := ""
	files := c.ops
	fromFile := false
	for _, o := range c.opts {
		switch o.name {
		case "-f", "--file", "-E", "--exec":
			// The program is in a file.
			fromFile = true
			c.script(o.val, o.lit)
		case "-i", "--include":
			// A file of awk source included before the program.
			c.script(o.val, o.lit)
		case "-e", "--source":
			if !o.lit {
				c.add(Effect{Kind: EffExec, What: "an awk program not known until it runs"})
			}
			prog += "\n" + o.val
		case "-W":
			name, _, _ := strings.Cut(o.val, "=")
			if !o.lit || !awkHarmlessW[name] {
				c.unknown("awk -W " + o.val + ": agate cannot tell what it does")
			}
		}
	}
	if fromFile {
		if len(c.ops) > 0 && c.ops[0].role == roleText {
			c.pathEffect(EffRead, c.ops[0].word, c.ops[0].lit, Effect{})
		}
	} else if len(files) > 0 && !c.has("-e", "--source") {
		if !files[0].lit {
			c.add(Effect{Kind: EffExec, What: "an awk program not known until it runs"})
		}
		prog += "\n" + files[0].word
	} else if len(files) > 0 && files[0].role == roleText {
		// With -e the operands are files.
		c.pathEffect(EffRead, files[0].word, files[0].lit, Effect{})
	}
	if awkEscapes.MatchString(prog) {
		c.add(Effect{Kind: EffExec, What: "an awk program that runs commands or writes files"})
	}
}

// --- dd ---

func ddHandler(c *cmdRun) {
	for i, x := range c.words {
		k, v, ok := strings.Cut(x, "=")
		if !ok {
			if x == "--help" || x == "--version" {
				continue
			}
			c.unknown("dd " + x + " is not an operand agate knows")
			continue
		}
		lit := c.lits[i]
		switch k {
		case "if":
			c.pathEffect(EffRead, v, lit, Effect{})
		case "of":
			if lit && isDiskDevice(v) {
				c.sh.guard("dd writes onto the disk device " + v)
				return
			}
			c.writePath(v, lit, Effect{})
		case "bs", "ibs", "obs", "cbs", "count", "skip", "seek", "iseek", "oseek", "status", "conv", "iflag", "oflag":
		default:
			c.unknown("dd " + k + "= is not an operand agate knows")
		}
	}
}

// --- tar ---

func tarHandler(c *cmdRun) {
	words, lits := c.words, c.lits
	mode := ""
	var archive string
	archiveLit := true
	dir := c.base
	var files []operand
	i := 0
	// The old style: a first word of letters without a dash (tar xzf a.tgz).
	if len(words) > 0 && !strings.HasPrefix(words[0], "-") && lits[0] {
		letters := words[0]
		i = 1
		for _, ch := range letters {
			switch ch {
			case 'c', 'x', 't', 'r', 'u', 'A':
				mode += string(ch)
			case 'f':
				if i < len(words) {
					archive, archiveLit = words[i], lits[i]
					i++
				}
			case 'C':
				if i < len(words) {
					dir = c.abs(words[i])
					i++
				}
			case 'z', 'j', 'J', 'v', 'p', 'k', 'm', 'o', 'h', 'S', 'W', 'O', 'a', 'Z', 'P':
				if ch == 'P' {
					c.add(Effect{Kind: EffWrite, What: "tar -P keeps absolute paths: it may write anywhere"})
				}
			default:
				c.unknown("tar letter " + string(ch) + " is not one agate knows")
			}
		}
	}
	takes := map[string]bool{"-f": true, "--file": true, "-C": true, "--directory": true, "-T": true, "--files-from": true,
		"-X": true, "--exclude-from": true, "--exclude": false, "-I": true, "--use-compress-program": true,
		"--to-command": true, "--transform": false, "--strip-components": false, "-b": true, "--blocking-factor": true,
		"--owner": false, "--group": false, "--mode": false, "--mtime": false, "-H": true, "--format": false,
		"-N": true, "--newer": false, "--checkpoint": false, "--checkpoint-action": false, "-L": true, "-V": true,
		"--label": false, "--suffix": false, "--sort": false, "--wildcards": false, "--anchored": false}
	flags := "cxtruAzjJvpkmohSWOaZP"
	for ; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || w == "-" {
			files = append(files, operand{word: w, lit: lits[i]})
			continue
		}
		name, val, hasVal := strings.Cut(w, "=")
		if strings.HasPrefix(w, "--") {
			if need, ok := takes[name]; ok {
				if need && !hasVal && i+1 < len(words) {
					i++
					val, hasVal = words[i], true
				}
			} else {
				switch name {
				case "--create":
					mode += "c"
				case "--extract", "--get":
					mode += "x"
				case "--list":
					mode += "t"
				case "--append", "--update", "--concatenate", "--delete":
					mode += "r"
				case "--gzip", "--bzip2", "--xz", "--zstd", "--verbose", "--preserve-permissions", "--keep-old-files",
					"--skip-old-files", "--no-same-owner", "--same-owner", "--touch", "--numeric-owner", "--auto-compress",
					"--overwrite", "--recursion", "--no-recursion", "--null", "--totals", "--help", "--version",
					"--exclude-vcs", "--exclude-vcs-ignores", "--ignore-failed-read", "--one-file-system", "--dereference",
					"--absolute-names", "--no-overwrite-dir", "--keep-newer-files", "--unlink-first", "--show-transformed-names":
					if name == "--absolute-names" {
						c.add(Effect{Kind: EffWrite, What: "tar --absolute-names may write anywhere"})
					}
				default:
					c.unknown("tar " + name + " is not an option agate knows")
					return
				}
				continue
			}
		} else {
			// -xzf a.tgz, -C dir
			short := w[1:]
			for j := 0; j < len(short); j++ {
				f := "-" + short[j:j+1]
				if need := takes[f]; need {
					val = short[j+1:]
					if val == "" && i+1 < len(words) {
						i++
						val = words[i]
					}
					name, hasVal = f, true
					break
				}
				if !strings.ContainsRune(flags, rune(short[j])) {
					c.unknown("tar -" + short[j:j+1] + " is not an option agate knows")
					return
				}
				switch short[j] {
				case 'c', 'x', 't', 'r', 'u', 'A':
					mode += short[j : j+1]
				}
			}
			if !hasVal {
				continue
			}
		}
		switch name {
		case "-f", "--file":
			archive, archiveLit = val, lits[i]
		case "-C", "--directory":
			dir = c.abs(val)
		case "-T", "--files-from", "-X", "--exclude-from":
			c.pathEffect(EffRead, val, lits[i], Effect{})
		case "-I", "--use-compress-program", "--to-command":
			c.add(Effect{Kind: EffExec, What: "tar runs " + val})
		case "--checkpoint-action":
			if strings.HasPrefix(val, "exec") {
				c.add(Effect{Kind: EffExec, What: "tar --checkpoint-action runs " + val})
			}
		}
	}
	c.prefix = append(c.prefix, mode)
	switch {
	case strings.Contains(mode, "x"):
		if archive != "" && archive != "-" {
			c.pathEffect(EffRead, archive, archiveLit, Effect{})
		}
		if dir == "" {
			c.add(Effect{Kind: EffWrite, What: "extracts into a folder not known until it runs"})
		} else {
			c.add(Effect{Kind: EffWrite, Path: dir, What: "extracts the archive into " + dir})
		}
	case strings.Contains(mode, "c") || strings.Contains(mode, "r") || strings.Contains(mode, "u") || strings.Contains(mode, "A"):
		for _, f := range files {
			c.pathEffect(EffRead, f.word, f.lit, Effect{})
		}
		if archive != "" && archive != "-" {
			c.writePath(archive, archiveLit, Effect{})
		}
	case strings.Contains(mode, "t"):
		if archive != "" && archive != "-" {
			c.pathEffect(EffRead, archive, archiveLit, Effect{})
		}
	default:
		c.unknown("tar without -c, -x or -t")
	}
}

// --- git ---

// gitCodeKeys are git configuration keys whose values make git run a
// program: set for one command (git -c) they are code; written into a
// config file they are persistence.
var gitCodeKeys = regexp.MustCompile(`(?i)^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|worktree)|diff\.external|diff\..*\.(textconv|command)|filter\..*|merge\..*\.driver|credential\..*|gpg\.(.*\.)?program|sequence\.editor|pager\..*|uploadpack\..*|remote\..*\.(receivepack|uploadpack|vcs)|protocol\..*|url\..*|include\..*|includeif\..*|alias\..*|interactive\.difffilter|core\.alternaterefscommand|receive\..*hook.*|transfer\.fsckobjects|fetch\..*|submodule\..*\.update)$`)

// gitReadOnly are the subcommands that only read, unless the repository's
// own config makes them run programs (a pager, textconv, an fsmonitor).
var gitReadOnly = map[string]bool{"status": true, "diff": true, "log": true, "show": true, "blame": true,
	"grep": true, "shortlog": true, "whatchanged": true, "describe": true, "diff-index": true, "diff-files": true,
	"diff-tree": true, "ls-files": true, "annotate": true, "range-diff": true}

// gitHooks are the hooks each subcommand runs.
var gitHooks = map[string][]string{
	"commit": {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"}, "merge": {"pre-merge-commit", "post-merge"},
	"pull": {"post-merge", "post-checkout", "post-rewrite"}, "push": {"pre-push"}, "rebase": {"pre-rebase", "post-rewrite", "post-checkout"},
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
			if !o.lit || gitCodeKeys.MatchString(key) {
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
	if gitReadOnly[sub] && repo.RunsCode != "" {
		c.add(Effect{Kind: EffExec, What: "this repository's config runs " + repo.RunsCode})
	}
	for _, h := range gitHooks[sub] {
		if repo.hasHook(h) {
			c.add(Effect{Kind: EffProject, What: "git " + sub + " runs the repository's " + h + " hook"})
			break
		}
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
		for _, op := range c.ops {
			if op.word == "." || c.has("-f", "--force") {
				c.add(Effect{Kind: EffDelete, Path: c.base, What: "git checkout throws away uncommitted changes"})
				break
			}
		}
		if c.argsAfterDashDash() {
			c.add(Effect{Kind: EffDelete, Path: c.base, What: "git checkout -- throws away uncommitted changes"})
		}
	case "restore":
		if !c.has("-S", "--staged") || c.has("-W", "--worktree") {
			c.add(Effect{Kind: EffDelete, Path: c.base, What: "git restore throws away uncommitted changes"})
		}
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
	if gitCodeKeys.MatchString(key) || strings.HasPrefix(strings.ToLower(key), "alias.") {
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

// --- kill, pkill, killall ---

func killHandler(c *cmdRun) {
	for _, op := range c.ops {
		x := op.word
		if x == "1" || x == "-1" {
			c.sh.guard(c.prog + " " + x + " signals init or every process")
			return
		}
		if !op.lit {
			c.add(Effect{Kind: EffSystem, What: c.prog + " signals a process not known until it runs"})
			continue
		}
		if c.sh.selfProcess(c.prog, x) {
			c.add(Effect{Kind: EffPersist, What: c.prog + " " + x + " stops agate"})
			continue
		}
		c.add(Effect{Kind: EffSystem, What: c.prog + " signals " + x})
	}
	if len(c.ops) == 0 && (c.prog == "kill") && !c.has("-l", "-L", "--list", "--table") {
		c.unknown("kill without a process")
	}
}

// --- env ---

func envHandler(c *cmdRun) {
	words, lits := c.words, c.lits
	i := 0
	assigned := false
	for i < len(words) {
		a := words[i]
		switch {
		case a == "--":
			i++
			goto command
		case a == "-i" || a == "--ignore-environment" || a == "-0" || a == "--null" || a == "-v" || a == "--debug":
			i++
		case a == "-u" || a == "--unset" || a == "-C" || a == "--chdir":
			if a == "-C" || a == "--chdir" {
				if i+1 < len(words) {
					c.value(roleDir, words[i+1], lits[i+1], a)
				}
			}
			i += 2
		case strings.HasPrefix(a, "--unset=") || strings.HasPrefix(a, "--chdir="):
			i++
		case a == "-S" || a == "--split-string" || strings.HasPrefix(a, "-S") || strings.HasPrefix(a, "--split-string="):
			// env -S 'string', -S'string', --split-string=string: a command
			// line in a string, with the rest of the words after it.
			s := ""
			switch {
			case a == "-S" || a == "--split-string":
				if i+1 >= len(words) {
					c.unknown("env -S without its string")
					return
				}
				s = words[i+1]
				if !lits[i+1] {
					c.add(Effect{Kind: EffExec, What: "env -S with a string not known until it runs"})
					return
				}
				i += 2
			case strings.HasPrefix(a, "--split-string="):
				s = strings.TrimPrefix(a, "--split-string=")
				i++
			default:
				s = strings.TrimPrefix(a, "-S")
				i++
			}
			if !lits[i-1] {
				c.add(Effect{Kind: EffExec, What: "env -S with a string not known until it runs"})
				return
			}
			rest, err := shellquote.Join(words[i:])
			if err != nil {
				c.unknown("env -S with a word agate cannot write back: " + err.Error())
				return
			}
			c.sh.parse(strings.TrimSpace(s+" "+rest), c.depth+1)
			return
		case strings.HasPrefix(a, "-"):
			c.unknown("env " + a + " is not an option agate knows")
			return
		case isAssignment(a):
			c.value(roleEnv, a, lits[i], "")
			assigned = true
			i++
		default:
			goto command
		}
	}
command:
	if i >= len(words) {
		if !assigned {
			c.add(Effect{Kind: EffSecret, What: "env prints the environment, which holds credentials"})
		}
		return
	}
	c.sh.call(words[i:], lits[i:], c.globs[i:], nil, c.stdinCode, c.depth)
}

// --- xargs ---

// xargsTakes are xargs's options that take a value.
var xargsTakes = map[string]bool{"-a": true, "--arg-file": true, "-E": true, "--eof": false, "-e": false, "-I": true,
	"--replace": false, "-i": false, "-L": true, "--max-lines": false, "-l": false, "-n": true, "--max-args": true,
	"-P": true, "--max-procs": true, "-s": true, "--max-chars": true, "-d": true, "--delimiter": true,
	"--process-slot-var": true}

func xargsHandler(c *cmdRun) {
	words, lits := c.words, c.lits
	i := 0
	replace := ""
	for i < len(words) && strings.HasPrefix(words[i], "-") && words[i] != "-" {
		a := words[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--":
			i++
			goto command
		case a == "-0" || a == "--null" || a == "-r" || a == "--no-run-if-empty" || a == "-t" || a == "--verbose" ||
			a == "-p" || a == "--interactive" || a == "-x" || a == "--exit" || a == "-o" || a == "--open-tty":
			i++
			continue
		}
		need, ok := xargsTakes[name]
		if !ok {
			// -n5, -I{}
			if len(a) > 2 && a[1] != '-' {
				if need, ok = xargsTakes[a[:2]]; ok {
					name, val, hasVal = a[:2], a[2:], true
				}
			}
			if !ok {
				c.unknown("xargs " + a + " is not an option agate knows")
				return
			}
		}
		if need && !hasVal {
			if i+1 < len(words) {
				val = words[i+1]
				i++
			}
		}
		switch name {
		case "-I", "--replace", "-i":
			replace = val
			if replace == "" {
				replace = "{}"
			}
		case "-a", "--arg-file":
			c.pathEffect(EffRead, val, true, Effect{})
		}
		i++
	}
command:
	if i >= len(words) {
		return // echo
	}
	// The words read from standard input are not known: they take the
	// place of the replace string, or follow the command's own words.
	sub := append([]string(nil), words[i:]...)
	subLits := append([]bool(nil), lits[i:]...)
	subGlobs := append([]bool(nil), c.globs[i:]...)
	switch {
	case replace != "":
		for k, w := range sub {
			if strings.Contains(w, replace) {
				subLits[k] = false
			}
		}
	case c.sh.stdinPaths != nil:
		// What feeds xargs prints only paths matching these patterns.
		for _, p := range c.sh.stdinPaths {
			sub = append(sub, p)
			subLits = append(subLits, true)
			subGlobs = append(subGlobs, true)
		}
	default:
		sub = append(sub, "$XARGS_INPUT")
		subLits = append(subLits, false)
		subGlobs = append(subGlobs, false)
	}
	c.sh.call(sub, subLits, subGlobs, nil, false, c.depth)
}

// --- ln ---

// lnHandler: a link redirects later writes through it: what they reach
// is not known from the text.
func lnHandler(c *cmdRun) { c.sh.linked = true }

// --- command ---

func commandHandler(c *cmdRun) {
	words, lits := c.words, c.lits
	i := 0
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		switch words[i] {
		case "-v", "-V":
			return // a lookup: nothing runs
		case "-p", "--":
		default:
			c.unknown("command " + words[i] + " is not an option agate knows")
			return
		}
		i++
	}
	if i < len(words) {
		c.sh.call(words[i:], lits[i:], c.globs[i:], nil, c.stdinCode, c.depth)
	}
}

// --- printenv ---

func printenvHandler(c *cmdRun) {
	if len(c.ops) == 0 {
		c.add(Effect{Kind: EffSecret, What: c.prog + " prints the environment, which holds credentials"})
		return
	}
	for _, op := range c.ops {
		if !op.lit || credentialName(op.word) || strings.Contains(strings.ToUpper(op.word), "AUTH") {
			c.add(Effect{Kind: EffSecret, What: c.prog + " " + op.word + " prints a credential"})
		}
	}
}

// --- shells ---

// parsedShells speak a syntax agate reads (mvdan.cc/sh parses it); the
// other shells' code (csh, fish, pwsh) is code agate cannot read.
var parsedShells = map[string]bool{"sh": true, "bash": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"lksh": true, "posh": true, "yash": true, "zsh": true, "rbash": true, "ksh93": true, "pdksh": true, "oksh": true,
	"loksh": true, "bash5": true, "hush": true}

// shellTakes are the shells' options that take a value.
var shellTakes = map[string]bool{"-o": true, "+o": true, "-O": true, "+O": true, "--rcfile": true, "--init-file": true}

func shellHandler(c *cmdRun) {
	sh := c.sh
	words, lits := c.words, c.lits
	readable := parsedShells[c.prog]
	if !readable {
		// csh, fish, pwsh: code agate does not read, unless all it is given
		// is a script file (the project's own, or not) or a question.
		switch {
		case len(words) == 0:
			c.add(Effect{Kind: EffExec, What: c.prog + " reads its program from standard input"})
		case len(words) == 1 && (words[0] == "--version" || words[0] == "--help" || words[0] == "-v"):
		case !strings.HasPrefix(words[0], "-"):
			c.script(words[0], lits[0])
		default:
			c.add(Effect{Kind: EffExec, What: c.prog + " code, which agate does not read"})
		}
		return
	}
	code := false
	// noexec is -n: the shell reads its program and runs none of it.
	noexec := false
	script := func(w string, lit bool) {
		if noexec {
			c.pathEffect(EffRead, w, lit, Effect{})
			return
		}
		c.script(w, lit)
	}
	for i := 0; i < len(words); i++ {
		x := words[i]
		switch {
		case x == "--" || x == "-":
			if noexec {
				if x == "--" && i+1 < len(words) {
					script(words[i+1], lits[i+1])
				}
				return
			}
			if x == "-" || i+1 >= len(words) {
				c.add(Effect{Kind: EffExec, What: c.prog + " reads its program from standard input"})
				return
			}
			script(words[i+1], lits[i+1])
			return
		case shellTakes[x]:
			if x == "--rcfile" || x == "--init-file" {
				if i+1 < len(words) {
					c.script(words[i+1], lits[i+1])
				}
			}
			i++
		case strings.HasPrefix(x, "--"):
			switch x {
			case "--norc", "--noprofile", "--login", "--posix", "--noediting", "--restricted", "--verbose",
				"--version", "--help", "--debugger", "--dump-strings", "--dump-po-strings", "--pretty-print":
			case "--command":
				code = true
			default:
				if readable {
					c.unknown(c.prog + " " + x + " is not an option agate knows")
					return
				}
			}
		case (strings.HasPrefix(x, "-") || strings.HasPrefix(x, "+")) && len(x) > 1:
			if strings.ContainsRune(x[1:], 'c') && x[0] == '-' {
				code = true
			}
			if strings.ContainsRune(x[1:], 'n') && x[0] == '-' {
				noexec = true
			}
			if strings.ContainsRune(x[1:], 's') && x[0] == '-' && !code && !noexec {
				c.add(Effect{Kind: EffExec, What: c.prog + " -s reads its program from standard input"})
				return
			}
		default:
			if code && noexec {
				return
			}
			if code {
				if !lits[i] {
					c.add(Effect{Kind: EffExec, What: c.prog + " -c with code not known until it runs"})
					return
				}
				if !readable {
					c.add(Effect{Kind: EffExec, What: c.prog + " code, which agate does not read"})
					return
				}
				sh.parse(x, c.depth+1)
				return
			}
			script(x, lits[i])
			return
		}
	}
	if code {
		sh.fail(errNoCommand)
		return
	}
	if noexec {
		c.add(Effect{Kind: EffNone})
		return
	}
	// No script and no -c: the shell reads its program from standard
	// input, a pipe or a here-document (curl x | sh), or runs for a
	// person.
	c.add(Effect{Kind: EffExec, What: c.prog + " reads its program from standard input"})
}

// --- interpreters ---

// interpreterHandler: with no script, no inline code and no module, an
// interpreter reads its program from standard input (curl x | python3),
// or starts one for a person: code agate cannot read.
func interpreterHandler(c *cmdRun) {
	for _, e := range c.effects {
		switch e.Kind {
		case EffExec, EffProject:
			return
		}
	}
	for _, o := range c.opts {
		if o.spec.role == roleInline || o.spec.role == roleModule || o.spec.role == roleScript {
			return
		}
		if o.spec.argsRole != nil && *o.spec.argsRole != roleScript && len(c.ops) > 0 {
			return // ruby -c FILE: the file is checked, not run
		}
	}
	for _, op := range c.ops {
		if op.role == roleScript {
			return
		}
	}
	if c.has("--version", "-V", "--help", "-h", "-v", "-version", "--check") {
		return
	}
	c.add(Effect{Kind: EffExec, What: c.prog + " reads its program from standard input"})
}

// --- shell builtins that run strings ---

func evalHandler(c *cmdRun) {
	for _, l := range c.lits {
		if !l {
			c.add(Effect{Kind: EffExec, What: "eval of a string not known until it runs"})
			return
		}
	}
	if len(c.words) > 0 {
		c.sh.parse(strings.Join(c.words, " "), c.depth+1)
	}
}

func sourceHandler(c *cmdRun) {
	if len(c.words) == 0 {
		c.unknown(c.prog + " without a file")
		return
	}
	c.script(c.words[0], c.lits[0])
}

func trapHandler(c *cmdRun) {
	if len(c.words) == 0 || strings.HasPrefix(c.words[0], "-") {
		return // trap, trap -l, trap -p
	}
	if !c.lits[0] {
		c.add(Effect{Kind: EffExec, What: "trap with code not known until it runs"})
		return
	}
	c.sh.parse(c.words[0], c.depth+1)
}

// builtinDefHandler: alias, hash -p, complete -C, enable -f and their
// kind change what a later command runs.
func builtinDefHandler(c *cmdRun) {
	switch c.prog {
	case "alias":
		for _, w := range c.words {
			if strings.Contains(w, "=") {
				c.add(Effect{Kind: EffExec, What: "alias changes what a command runs"})
				return
			}
		}
	case "hash":
		for _, w := range c.words {
			if w == "-p" {
				c.add(Effect{Kind: EffExec, What: "hash -p changes what a command runs"})
				return
			}
		}
	case "complete", "compgen":
		for _, w := range c.words {
			if w == "-C" || w == "-F" {
				c.add(Effect{Kind: EffExec, What: c.prog + " " + w + " runs a command"})
				return
			}
		}
	case "enable":
		for _, w := range c.words {
			if strings.HasPrefix(w, "-f") {
				c.add(Effect{Kind: EffExec, What: "enable -f loads code into the shell"})
				return
			}
		}
	}
}

// setHandler: set with no arguments prints every variable.
func setHandler(c *cmdRun) {
	if len(c.words) == 0 {
		c.add(Effect{Kind: EffSecret, What: "set prints every variable, credentials included"})
	}
}

// crontabHandler: crontab -l reads; anything else installs jobs.
func crontabHandler(c *cmdRun) {
	if c.has("-l") && !c.has("-e", "-r") && len(c.ops) == 0 {
		return
	}
	c.add(Effect{Kind: EffPersist, What: "crontab changes the jobs cron runs"})
}

// systemctlHandler: the units that matter are agate's own.
func systemctlHandler(c *cmdRun) {
	for _, op := range c.ops {
		if strings.HasPrefix(op.word, "agate") {
			c.add(Effect{Kind: EffPersist, What: "systemctl " + strings.Join(c.prefix[1:], " ") + " " + op.word + " touches agate itself"})
		}
	}
}

// npmHandler: `npm config set` and `npm set` change where packages come
// from.
func npmHandler(c *cmdRun) {
	if len(c.prefix) > 1 && (c.prefix[1] == "config" || c.prefix[1] == "c") && len(c.ops) > 0 &&
		(c.ops[0].word == "set" || c.ops[0].word == "delete" || c.ops[0].word == "edit" || c.ops[0].word == "fix") ||
		len(c.prefix) > 1 && c.prefix[1] == "set" {
		c.add(Effect{Kind: EffPersist, Path: c.abs("~/.npmrc"), What: "npm config changes where packages come from"})
	}
}

// printfHandler: printf -v VAR sets a variable.
func printfHandler(c *cmdRun) {
	if v, ok := c.optVal("-v"); ok && dangerousVar(v) {
		c.add(Effect{Kind: EffExec, What: "printf -v " + v + " sets a variable that makes programs run other code"})
	}
}

// readHandler: read sets the variables it names.
func readHandler(c *cmdRun) {
	names := c.ops
	if v, ok := c.optVal("-a"); ok {
		names = append(names, operand{word: v, lit: true})
	}
	for _, op := range names {
		if !op.lit || dangerousVar(op.word) {
			c.add(Effect{Kind: EffExec, What: "read sets " + op.word + ", which makes programs run other code"})
		}
	}
}

// jqHandler: a filter that reads the environment reads secrets; the
// options that read files by name are read as unknown.
func jqHandler(c *cmdRun) {
	filter := ""
	if f, ok := c.optVal("-f", "--from-file"); ok {
		c.pathEffect(EffRead, f, true, Effect{})
		if len(c.ops) > 0 && c.ops[0].role == roleText {
			c.pathEffect(EffRead, c.ops[0].word, c.ops[0].lit, Effect{})
		}
	} else if len(c.ops) > 0 {
		filter = c.ops[0].word
		if !c.ops[0].lit {
			c.add(Effect{Kind: EffExec, What: c.prog + " with a filter not known until it runs"})
		}
	}
	if strings.Contains(filter, "env") || strings.Contains(filter, "$ENV") || strings.Contains(filter, "input_filename") {
		c.add(Effect{Kind: EffSecret, What: c.prog + " reads the environment, which holds credentials"})
	}
	for _, o := range c.opts {
		switch o.name {
		case "--rawfile", "--slurpfile", "--args", "--jsonargs", "-L":
			c.unknown(c.prog + " " + o.name + " reads what agate does not follow")
		}
	}
}

// splitHandler: split writes its pieces beside the prefix it is given.
func splitHandler(c *cmdRun) {
	prefix := "x"
	lit := true
	if len(c.ops) > 1 {
		prefix, lit = c.ops[1].word, c.ops[1].lit
	}
	c.writePath(prefix+"*", lit, Effect{What: "split writes " + prefix + "aa, " + prefix + "ab, ..."})
}

// unzipHandler: unzip writes into the folder it runs in, unless it only
// lists, tests or prints, or -d says where.
func unzipHandler(c *cmdRun) {
	if c.has("-l", "-t", "-p", "-c", "-Z", "-v") {
		return
	}
	if _, ok := c.optVal("-d"); ok {
		return
	}
	c.add(Effect{Kind: EffWrite, Path: c.base, What: "unzip extracts into " + c.base})
}

// sevenzipHandler reads 7z's command letter, its switches and its
// operands.
func sevenzipHandler(c *cmdRun) {
	if len(c.words) == 0 {
		return
	}
	cmd := c.words[0]
	c.prefix = append(c.prefix, cmd)
	out := ""
	var ops []operand
	for i, w := range c.words[1:] {
		switch {
		case strings.HasPrefix(w, "-o"):
			out = w[2:]
		case strings.HasPrefix(w, "-p") || strings.HasPrefix(w, "-t") || strings.HasPrefix(w, "-m") || w == "-y" || w == "-r" ||
			strings.HasPrefix(w, "-x") || strings.HasPrefix(w, "-i") || w == "-bd" || strings.HasPrefix(w, "-bs") || w == "-so" || w == "-si":
		case strings.HasPrefix(w, "-"):
			c.unknown("7z " + w + " is not a switch agate knows")
			return
		default:
			ops = append(ops, operand{word: w, lit: c.lits[i+1]})
		}
	}
	switch cmd {
	case "l", "t", "h", "i", "b":
		for _, op := range ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
	case "x", "e":
		for _, op := range ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
		if out != "" {
			c.writePath(out, true, Effect{})
		} else {
			c.add(Effect{Kind: EffWrite, Path: c.base, What: "7z extracts into " + c.base})
		}
	case "a", "u", "d", "rn":
		for i, op := range ops {
			if i == 0 {
				c.writePath(op.word, op.lit, Effect{})
			} else {
				c.pathEffect(EffRead, op.word, op.lit, Effect{})
			}
		}
	default:
		c.unknown("7z " + cmd + " is not a command agate knows")
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

// npmInitHandler: npm init writes package.json; npm init PKG (npm create
// PKG) downloads and runs an initializer.
func npmInitHandler(c *cmdRun) {
	c.add(Effect{Kind: EffWrite, Path: c.abs("package.json")})
	if len(c.ops) > 0 || c.prefix[1] == "create" {
		c.add(Effect{Kind: EffNetwork, What: "npm init downloads an initializer"})
		c.add(Effect{Kind: EffExec, What: "npm init runs an initializer package"})
	}
}

// yarnHandler: yarn with no subcommand installs.
func yarnHandler(c *cmdRun) {
	if c.prog == "yarn" && len(c.prefix) == 1 && len(c.ops) == 0 && !c.has("-v", "--version", "-h", "--help") {
		c.add(Effect{Kind: EffNetwork, What: "yarn installs the packages"})
		c.add(Effect{Kind: EffExec, What: "yarn install runs the packages' install scripts"})
		c.add(Effect{Kind: EffWrite, Path: c.abs("node_modules"), Edit: true})
	}
}

// pipListHandler: pip cache purge and remove delete; the rest only look.
func pipListHandler(c *cmdRun) {
	if c.prefix[1] == "cache" && len(c.ops) > 0 && (c.ops[0].word == "purge" || c.ops[0].word == "remove") {
		c.add(Effect{Kind: EffDelete, What: "pip cache " + c.ops[0].word})
	}
}

// pipConfigHandler: pip config set, unset and edit change where packages
// come from.
func pipConfigHandler(c *cmdRun) {
	if len(c.ops) > 0 {
		switch c.ops[0].word {
		case "set", "unset", "edit":
			c.add(Effect{Kind: EffPersist, What: "pip config " + c.ops[0].word + " changes where packages come from"})
		}
	}
}

// subWords says what a package manager's first word does: "run" runs
// the rest as a command of the project, "project" runs the project's
// code, "network" installs (fetching and running packages' scripts),
// "write" writes the project, "none" only looks.
type subWords map[string]string

var poetryWords = subWords{"run": "run", "install": "network", "add": "network", "update": "network", "lock": "network",
	"remove": "network", "sync": "network", "show": "none", "check": "none", "env": "none", "version": "none", "about": "none",
	"list": "none", "search": "network", "build": "write", "publish": "upload", "shell": "exec", "new": "write", "init": "write",
	"export": "write", "debug": "none", "source": "none", "self": "network", "cache": "none"}

var bundleWords = subWords{"exec": "run", "install": "network", "update": "network", "add": "network", "lock": "network",
	"outdated": "network", "check": "none", "list": "none", "show": "none", "info": "none", "config": "none", "platform": "none",
	"binstubs": "write", "init": "write", "gem": "write", "clean": "write", "package": "network", "cache": "network", "remove": "write"}

var gemWords = subWords{"install": "network", "update": "network", "uninstall": "write", "push": "upload", "fetch": "network",
	"list": "none", "search": "network", "info": "none", "env": "none", "which": "none", "contents": "none", "specification": "none",
	"help": "none", "outdated": "network", "query": "none", "dependency": "none", "build": "write", "cleanup": "write"}

var composerWords = subWords{"install": "network", "update": "network", "require": "network", "remove": "network",
	"create-project": "network", "show": "none", "validate": "none", "diagnose": "none", "dump-autoload": "write",
	"run-script": "project", "run": "project", "test": "project", "outdated": "network", "why": "none", "depends": "none",
	"licenses": "none", "check-platform-reqs": "none", "audit": "network", "init": "write", "exec": "run", "global": "network"}

// subWordsHandler reads a package manager's first operand with words.
func subWordsHandler(words subWords) handler {
	return func(c *cmdRun) {
		if len(c.ops) == 0 {
			if c.prog == "bundle" || c.prog == "bundler" || c.prog == "composer" {
				// bundle and composer alone install.
				c.add(Effect{Kind: EffNetwork, What: c.prog + " installs the packages"})
				c.add(Effect{Kind: EffExec, What: c.prog + " install runs the packages' scripts"})
			}
			return
		}
		first := c.ops[0]
		c.prefix = append(c.prefix, first.word)
		switch words[first.word] {
		case "run":
			if i := first.at + 1; i < len(c.words) {
				c.sh.call(c.words[i:], c.lits[i:], c.globs[i:], nil, c.stdinCode, c.depth)
			}
		case "project":
			c.add(Effect{Kind: EffProject, What: c.prog + " " + first.word})
		case "network":
			c.add(Effect{Kind: EffNetwork, What: c.prog + " " + first.word})
			c.add(Effect{Kind: EffExec, What: c.prog + " " + first.word + " runs the packages' scripts"})
		case "upload":
			c.add(Effect{Kind: EffNetwork, What: c.prog + " " + first.word})
			c.add(Effect{Kind: EffUpload, What: c.prog + " " + first.word})
		case "write":
			c.add(Effect{Kind: EffWrite, Path: c.base, What: c.prog + " " + first.word + " writes the project"})
		case "exec":
			c.add(Effect{Kind: EffExec, What: c.prog + " " + first.word})
		case "none":
			if (c.prog == "bundle" || c.prog == "bundler") && first.word == "config" && bundleConfigSets(c.ops[1:]) {
				c.add(Effect{Kind: EffPersist, What: "bundle config changes bundler's settings (where gems come from, " +
					"what runs at install) for every later bundle command"})
			}
		default:
			c.unknown(c.prog + " " + first.word + " is not a command agate knows")
		}
	}
}

// bundleConfigSets reports whether `bundle config ARGS` changes a
// setting: set and unset, and the old form NAME VALUE; get, list and a
// bare NAME only read.
func bundleConfigSets(ops []operand) bool {
	if len(ops) == 0 {
		return false
	}
	switch ops[0].word {
	case "set", "unset":
		return true
	case "get", "list":
		return false
	}
	return len(ops) > 1 || !ops[0].lit
}

// sshCodeOptions are ssh's -o options that run a command.
var sshCodeOptions = map[string]bool{"proxycommand": true, "localcommand": true, "permitlocalcommand": true,
	"knownhostscommand": true, "remotecommand": true, "match": true, "include": true, "pkcs11provider": true,
	"securitykeyprovider": true, "sessiontype": false, "setenv": true, "sendenv": false, "controlpath": false,
	"identityagent": false, "proxyjump": false}

// sshHandler: -o options that run a command are code.
func sshHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name != "-o" {
			continue
		}
		key, _, _ := strings.Cut(o.val, "=")
		key, _, _ = strings.Cut(strings.TrimSpace(key), " ")
		if !o.lit || sshCodeOptions[strings.ToLower(key)] {
			c.add(Effect{Kind: EffExec, What: c.prog + " -o " + key + " runs a command"})
		}
	}
}

// ghReads are the gh commands that only read; the rest change something
// on GitHub.
var ghReads = map[string]bool{"view": true, "list": true, "ls": true, "status": true, "diff": true, "checks": true,
	"search": true, "watch": true, "download": true, "logs": true, "log": true, "get": true, "clone": true}

// ghHandler: gh reaches api.github.com; writes send data; gh auth token
// prints a credential.
func ghHandler(c *cmdRun) {
	c.add(Effect{Kind: EffNetwork, Host: "api.github.com"})
	sub := ""
	if len(c.prefix) > 1 {
		sub = c.prefix[1]
	}
	verb := ""
	if len(c.ops) > 0 {
		verb = c.ops[0].word
		c.prefix = append(c.prefix, verb)
	}
	switch sub {
	case "auth":
		switch verb {
		case "token", "status":
			if verb == "token" || c.has("-t", "--show-token") || len(c.ops) > 1 && (c.ops[1].word == "-t" || c.ops[1].word == "--show-token") {
				c.add(Effect{Kind: EffSecret, What: "gh auth " + verb + " prints a GitHub token"})
			}
			for _, op := range c.ops[1:] {
				if op.word == "-t" || op.word == "--show-token" {
					c.add(Effect{Kind: EffSecret, What: "gh auth status --show-token prints a GitHub token"})
				}
			}
			return
		default:
			c.add(Effect{Kind: EffPersist, What: "gh auth " + verb + " changes the GitHub credentials"})
			return
		}
	case "api":
		for _, op := range c.ops {
			w := strings.ToUpper(op.word)
			if w == "POST" || w == "PUT" || w == "PATCH" || w == "DELETE" || strings.HasPrefix(op.word, "-f") || strings.HasPrefix(op.word, "-F") ||
				strings.HasPrefix(op.word, "--field") || strings.HasPrefix(op.word, "--raw-field") || strings.HasPrefix(op.word, "--input") {
				c.add(Effect{Kind: EffUpload, Host: "api.github.com", What: "gh api sends data"})
				return
			}
		}
		return
	case "browse", "codespace":
		c.add(Effect{Kind: EffExec, What: "gh " + sub + " opens what gh likes"})
		return
	case "status", "search":
		return
	case "extension":
		if verb != "list" {
			c.add(Effect{Kind: EffExec, What: "gh extension installs or runs extensions"})
		}
		return
	case "config", "alias":
		if verb == "set" || verb == "delete" || verb == "import" || verb == "clear-cache" {
			c.add(Effect{Kind: EffPersist, What: "gh " + sub + " " + verb + " changes gh's settings"})
		}
		return
	case "repo":
		if verb == "clone" {
			c.add(Effect{Kind: EffWrite, Path: c.base, What: "gh repo clone"})
			return
		}
	case "run", "release":
		if verb == "download" {
			c.add(Effect{Kind: EffWrite, Path: c.base, What: "gh " + sub + " download"})
			return
		}
	case "pr":
		if verb == "checkout" {
			c.add(Effect{Kind: EffWrite, Path: c.base, What: "gh pr checkout changes the working tree"})
			return
		}
	}
	if verb == "" || ghReads[verb] {
		return
	}
	c.add(Effect{Kind: EffUpload, Host: "api.github.com", What: "gh " + sub + " " + verb + " changes something on GitHub"})
}

// cloudSecrets are what cloud tools print that are credentials.
var cloudSecrets = regexp.MustCompile(`(?i)^(get|export-credentials|get-session-token|get-access-token|print-access-token|print-identity-token|get-login-password|get-authorization-token|get-secret-value|access-secret|show-connection-string|list-keys|get-credentials|token)$`)

// cloudHandler: what cloud tools print can be credentials.
func cloudHandler(c *cmdRun) {
	for _, op := range c.ops {
		if cloudSecrets.MatchString(op.word) {
			c.add(Effect{Kind: EffSecret, What: c.prog + " " + op.word + " prints a credential"})
			return
		}
	}
}

// kubectlReads only read the cluster.
var kubectlReads = map[string]bool{"get": true, "describe": true, "logs": true, "top": true, "explain": true, "version": true,
	"api-resources": true, "api-versions": true, "cluster-info": true, "events": true, "wait": true, "diff": true, "auth": true,
	"completion": true, "help": true, "plugin": false}

func kubectlHandler(c *cmdRun) {
	if len(c.ops) == 0 {
		return
	}
	verb := c.ops[0].word
	switch {
	case kubectlReads[verb]:
	case verb == "exec" || verb == "run" || verb == "attach" || verb == "debug" || verb == "cp" || verb == "port-forward" || verb == "proxy":
		c.add(Effect{Kind: EffExec, What: c.prog + " " + verb + " runs or reaches code in the cluster"})
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + verb})
	case verb == "config":
		if len(c.ops) > 1 && c.ops[1].word != "view" && c.ops[1].word != "get-contexts" && c.ops[1].word != "current-context" && c.ops[1].word != "get-clusters" {
			c.add(Effect{Kind: EffPersist, Path: c.abs("~/.kube/config"), What: c.prog + " config changes which cluster it talks to"})
		} else if len(c.ops) > 1 && c.ops[1].word == "view" {
			for _, op := range c.ops {
				if op.word == "--raw" {
					c.add(Effect{Kind: EffSecret, What: "kubectl config view --raw prints credentials"})
				}
			}
		}
	default:
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + verb + " changes the cluster"})
	}
}

// opensslHandler reads openssl's command and the options that name files
// and hosts.
func opensslHandler(c *cmdRun) {
	if len(c.words) == 0 {
		c.add(Effect{Kind: EffExec, What: "openssl reads commands from its input"})
		return
	}
	cmd := c.words[0]
	c.prefix = append(c.prefix, cmd)
	words, lits := c.words[1:], c.lits[1:]
	switch cmd {
	case "version", "help", "list", "rand", "errstr", "ciphers", "speed", "prime", "passwd":
		for i, w := range words {
			if w == "-out" && i+1 < len(words) {
				c.writePath(words[i+1], lits[i+1], Effect{})
			}
		}
		return
	case "s_client", "s_time":
		for i, w := range words {
			if w == "-connect" && i+1 < len(words) {
				h := hostOf(words[i+1])
				c.add(Effect{Kind: EffNetwork, Host: h})
				c.add(Effect{Kind: EffUpload, Host: h})
				return
			}
		}
		c.add(Effect{Kind: EffNetwork, Host: "localhost"})
		c.add(Effect{Kind: EffUpload, Host: "localhost"})
		return
	case "s_server":
		c.add(Effect{Kind: EffNetwork, What: "openssl s_server listens for connections"})
		c.add(Effect{Kind: EffExec, What: "openssl s_server can run commands for its clients"})
		return
	case "x509", "req", "genrsa", "genpkey", "rsa", "ec", "pkey", "pkcs12", "pkcs7", "pkcs8", "dgst", "sha256", "sha1", "md5",
		"enc", "base64", "verify", "crl", "asn1parse", "cms", "smime", "ocsp", "dhparam", "ecparam", "kdf", "mac", "pkeyutl", "rsautl", "sha512":
	default:
		c.unknown("openssl " + cmd + " is not a command agate knows")
		return
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch w {
		case "-in", "-key", "-CA", "-CAkey", "-signkey", "-inkey", "-config", "-extfile", "-CAfile", "-untrusted", "-certfile", "-verify", "-prverify", "-sigfile", "-kfile", "-pass":
			if i+1 < len(words) {
				v := words[i+1]
				if w == "-pass" || w == "-passin" {
					if f, ok := strings.CutPrefix(v, "file:"); ok {
						c.pathEffect(EffRead, f, lits[i+1], Effect{})
					}
				} else {
					c.pathEffect(EffRead, v, lits[i+1], Effect{})
				}
				i++
			}
		case "-out", "-keyout", "-signature":
			if i+1 < len(words) {
				c.writePath(words[i+1], lits[i+1], Effect{})
				i++
			}
		case "-engine", "-provider", "-provider-path":
			c.add(Effect{Kind: EffExec, What: "openssl " + w + " loads code"})
			i++
		default:
			if !strings.HasPrefix(w, "-") {
				c.pathEffect(EffRead, w, lits[i], Effect{})
			}
		}
	}
}

func hasWord(words []string, set ...string) (string, bool) {
	for _, w := range words {
		for _, s := range set {
			if w == s {
				return w, true
			}
		}
	}
	return "", false
}

func serviceHandler(c *cmdRun) {
	if c.has("--status-all") {
		return
	}
	if len(c.ops) >= 2 && c.ops[1].word == "status" {
		return
	}
	c.add(Effect{Kind: EffSystem, What: "service starts, stops or changes a service"})
}

func atHandler(c *cmdRun) {
	if c.prog == "atq" || c.has("-l") || c.has("-c") && c.prog == "at" {
		return
	}
	if c.prog == "atrm" || c.has("-r", "-d") {
		c.add(Effect{Kind: EffSystem, What: "atrm removes a job"})
		return
	}
	c.add(Effect{Kind: EffPersist, What: c.prog + " runs commands later"})
}

// ipChanges are the words that make network and kernel tools change
// something.
var ipChanges = []string{"set", "add", "del", "delete", "flush", "change", "replace", "append", "insert", "up", "down",
	"-w", "--write", "-A", "-D", "-I", "-F", "-X", "-N", "-P", "-Z", "-R", "--append", "--delete", "--insert", "--flush",
	"enable", "disable", "allow", "deny", "reject", "limit", "reset", "reload", "--add-service", "--remove-service",
	"--add-port", "--remove-port", "--permanent", "-s", "--change", "-p", "--load"}

func ipHandler(c *cmdRun) {
	switch c.prog {
	case "modprobe", "rmmod", "insmod", "swapon", "swapoff", "setcap":
		if _, ok := hasWord(c.words, "-l", "--list", "--show", "-s", "--help", "-h", "--version", "-V", "--show-depends", "-n", "--dry-run"); ok && c.prog != "setcap" {
			return
		}
		c.add(Effect{Kind: EffSystem, What: c.prog + " changes the kernel or devices"})
		return
	case "hwclock":
		if _, ok := hasWord(c.words, "-w", "--systohc", "-s", "--hctosys", "--set"); ok {
			c.add(Effect{Kind: EffSystem, What: "hwclock sets the clock"})
		}
		return
	case "sysctl":
		for _, w := range c.words {
			if strings.Contains(w, "=") || w == "-w" || w == "-p" || w == "--load" || w == "--system" {
				c.add(Effect{Kind: EffSystem, What: "sysctl changes kernel settings"})
				return
			}
		}
		return
	case "ifconfig", "route":
		if len(c.ops) > 1 {
			c.add(Effect{Kind: EffSystem, What: c.prog + " changes the network"})
		}
		return
	}
	if w, ok := hasWord(c.words, ipChanges...); ok {
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + w + " changes the network or the firewall"})
	}
}

func mountHandler(c *cmdRun) {
	if len(c.ops) == 0 && c.prog == "mount" {
		return // mount with no operands lists what is mounted
	}
	if _, ok := hasWord(c.words, "-l", "--list", "status", "list", "show", "info", "-n", "--dry-run", "--help", "-h", "--version", "-V", "df", "usage"); ok {
		return
	}
	c.add(Effect{Kind: EffSystem, What: c.prog + " changes disks and file systems"})
	c.add(Effect{Kind: EffElevated, What: c.prog})
}

// pkgReads are the package managers' commands that only look.
var pkgReads = map[string]bool{"list": true, "search": true, "show": true, "policy": true, "depends": true, "rdepends": true,
	"info": true, "repolist": true, "provides": true, "whatprovides": true, "query": true, "deps": true, "outdated": true,
	"config": true, "doctor": true, "leaves": true, "uses": true, "desc": true, "home": true, "find": true, "changelog": true,
	"-l": true, "-L": true, "-s": true, "-S": true, "--list": true, "--status": true, "--search": true, "--listfiles": true,
	"-q": true, "-qa": true, "-qi": true, "-ql": true, "-qf": true, "-Q": true, "-Qi": true, "-Ql": true, "-Qs": true,
	"-Ss": true, "-Si": true, "--version": true, "-v": true, "-V": true, "--help": true, "-h": true, "help": true,
	"check-update": true, "list-installed": true, "madison": true, "download": false, "print-architecture": true,
	"--print-architecture": true, "--get-selections": true, "-W": true, "--show": true, "-p": true, "--print-avail": true}

func pkgmgrHandler(c *cmdRun) {
	if len(c.words) == 0 {
		return
	}
	first := c.words[0]
	if pkgReads[first] && !(c.prog == "pacman" && strings.HasPrefix(first, "-S") && first != "-Ss" && first != "-Si") {
		c.prefix = append(c.prefix, first)
		return
	}
	c.prefix = append(c.prefix, first)
	if c.prog == "dpkg" && (first == "-i" || first == "--install") {
		for _, op := range c.ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
	} else if c.prog != "dpkg" && c.prog != "rpm" {
		c.add(Effect{Kind: EffNetwork, What: c.prog + " " + first})
	}
	c.add(Effect{Kind: EffExec, What: c.prog + " " + first + " runs the packages' install scripts"})
	c.add(Effect{Kind: EffSystem, What: c.prog + " " + first + " changes the installed software"})
	if c.prog != "brew" && c.prog != "nix-env" && c.prog != "flatpak" {
		c.add(Effect{Kind: EffElevated, What: c.prog + " installs for the whole system"})
	}
}

// dockerReads only look at containers and images.
var dockerReads = map[string]bool{"ps": true, "images": true, "logs": true, "inspect": true, "version": true, "info": true,
	"stats": true, "top": true, "port": true, "diff": true, "history": true, "events": true, "ls": true, "config": true,
	"context": true, "search": true, "--version": true, "-v": true, "--help": true, "help": true, "list": true, "show": true,
	"df": true, "ps-all": true}

// dockerRemoves throw containers, images or volumes away.
var dockerRemoves = map[string]bool{"rm": true, "rmi": true, "prune": true, "down": true, "remove": true, "delete": true}

// dockerStops change running containers.
var dockerStops = map[string]bool{"stop": true, "kill": true, "pause": true, "unpause": true, "restart": true, "update": true,
	"rename": true, "wait": true, "tag": true}

// dockerFormatNoEnv reports whether docker inspect is given a --format
// that prints no environment: one that names neither Env nor the whole
// Config, nor the whole object.
func dockerFormatNoEnv(words []string) bool {
	format := ""
	for i, w := range words {
		switch {
		case (w == "--format" || w == "-f") && i+1 < len(words):
			format = words[i+1]
		case strings.HasPrefix(w, "--format="):
			format = strings.TrimPrefix(w, "--format=")
		}
	}
	f := strings.ToLower(strings.Join(strings.Fields(format), ""))
	return f != "" && !strings.Contains(f, "env") && !strings.Contains(f, ".config}}") &&
		!strings.Contains(f, "{{.}}") && !strings.Contains(f, "{{json.}}") && !strings.Contains(f, "{{printf") && strings.Contains(f, "{{")
}

// dockerElsewhere are the global options of docker, podman and their
// kin that send the command to another daemon (-H ssh://host, --context,
// --url) or read another client config, whose credential helpers run.
var dockerElsewhere = []string{"-H", "--host", "--context", "-c", "--config", "--url", "--connection", "--remote",
	"-r", "--identity", "--tls", "--tlsverify", "--tlscacert", "--tlscert", "--tlskey", "--address", "-a"}

func dockerHandler(c *cmdRun) {
	for i, w := range c.words {
		if !c.lits[i] || !strings.HasPrefix(w, "-") {
			break // the first operand ends the global options
		}
		name, _, _ := strings.Cut(w, "=")
		for _, e := range dockerElsewhere {
			if name == e || len(e) == 2 && strings.HasPrefix(w, e) {
				c.add(Effect{Kind: EffNetwork, What: c.prog + " " + name + " sends the command to a daemon it names"})
			}
		}
		if w == "--" {
			break
		}
	}
	var verbs []string
	for _, op := range c.ops {
		verbs = append(verbs, op.word)
		if len(verbs) == 2 {
			break
		}
	}
	if len(verbs) == 0 {
		return
	}
	verb := verbs[0]
	// docker image ls, docker container rm, docker compose up: the second word says.
	switch verb {
	case "image", "container", "volume", "network", "system", "compose", "builder", "buildx", "context", "plugin", "manifest", "trust", "machine", "pod":
		if len(verbs) > 1 {
			verb = verbs[1]
		}
	}
	c.prefix = append(c.prefix, verbs...)
	switch {
	case verb == "inspect" && !dockerFormatNoEnv(c.words):
		c.add(Effect{Kind: EffSecret, What: c.prog + " inspect prints the container's environment, where its secrets are"})
	case verb == "config" && (verbs[0] == "compose" || strings.HasSuffix(c.prog, "compose")):
		c.add(Effect{Kind: EffSecret, What: c.prog + " config prints the compose file with the values it takes from .env filled in"})
	case dockerReads[verb]:
	case dockerRemoves[verb]:
		c.add(Effect{Kind: EffDelete, What: c.prog + " " + strings.Join(verbs, " ") + " throws containers, images or volumes away"})
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + strings.Join(verbs, " ")})
	case dockerStops[verb]:
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + strings.Join(verbs, " ") + " changes running containers"})
	case verb == "pull" || verb == "login" || verb == "logout":
		c.add(Effect{Kind: EffNetwork, What: c.prog + " " + verb})
	case verb == "push":
		c.add(Effect{Kind: EffNetwork, What: c.prog + " push"})
		c.add(Effect{Kind: EffUpload, What: c.prog + " push sends an image"})
	default:
		// run, exec, build, compose up, create, start, cp, commit, load,
		// save, import, swarm, service, stack: a container runs code with
		// the daemon's privileges.
		c.add(Effect{Kind: EffElevated, What: c.prog + " runs containers through a daemon with root's privileges"})
		c.add(Effect{Kind: EffExec, What: c.prog + " " + strings.Join(verbs, " ") + " runs code in a container"})
		c.add(Effect{Kind: EffNetwork, What: c.prog + " " + strings.Join(verbs, " ")})
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + strings.Join(verbs, " ")})
	}
}

// sqlWrites are SQL words that change a database.
var sqlWrites = regexp.MustCompile(`(?i)\b(insert|update|delete|create|drop|alter|replace|vacuum|reindex|attach|detach|begin|commit|rollback|savepoint|release|analyze)\b|\bpragma\s+\w+\s*=`)

// sqliteHarmlessDots are the sqlite3 dot commands that only print or
// change how results are printed. sqlite3 takes any unambiguous
// abbreviation (.sh is .shell, .ou is .output), so any other word is not
// known.
var sqliteHarmlessDots = map[string]bool{"tables": true, "schema": true, "mode": true, "headers": true, "header": true,
	"indexes": true, "indices": true, "dump": true, "databases": true, "show": true, "width": true, "separator": true,
	"nullvalue": true, "timer": true, "stats": true, "help": true, "quit": true, "exit": true, "print": true, "eqp": true,
	"explain": true, "changes": true, "dbinfo": true, "fullschema": true, "lint": true, "bail": true, "echo": true,
	"version": true, "limit": true, "timeout": true, "prompt": true, "expert": true, "dbconfig": true, "vfsinfo": true,
	"vfslist": true, "vfsname": true, "scanstats": true, "binary": true}

// sqliteReaches are the SQL of the sqlite3 shell that reaches beyond the
// database: functions that read, write or list any file (readfile,
// writefile, fsdir, zipfile), open an editor (edit) or load code
// (load_extension), and statements that open or make another file
// (ATTACH, VACUUM INTO).
var sqliteReaches = regexp.MustCompile(`(?i)\b(readfile|writefile|edit|load_extension|fts3_tokenizer|fsdir|zipfile|sqlar_uncompress|sqlar_compress)\s*\(|\battach\b|\bvacuum\s+into\b`)

// sqliteHandler: dot commands that run or write are code; SQL that
// changes the database writes it.
func sqliteHandler(c *cmdRun) {
	db, ops := "", c.ops
	if len(ops) > 0 {
		db, ops = ops[0].word, ops[1:]
	}
	var sql []string
	for _, op := range ops {
		if !op.lit {
			c.add(Effect{Kind: EffExec, What: "SQL not known until it runs"})
			return
		}
		sql = append(sql, op.word)
	}
	for _, o := range c.opts {
		if o.name == "-cmd" || o.name == "--cmd" {
			if !o.lit {
				c.add(Effect{Kind: EffExec, What: "SQL not known until it runs"})
			}
			sql = append(sql, o.val)
		}
	}
	if len(ops) == 0 && !c.has("-version", "--version", "-help", "--help") {
		c.unknown(c.prog + " reads its SQL from standard input")
		if len(sql) == 0 {
			return
		}
	}
	text := strings.Join(sql, "\n")
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if !strings.HasPrefix(l, ".") {
			continue
		}
		cmd, _, _ := strings.Cut(strings.TrimSpace(l[1:]), " ")
		cmd, _, _ = strings.Cut(cmd, "\t")
		switch {
		case sqliteHarmlessDots[cmd]:
		case len(cmd) >= 2 && (strings.HasPrefix("shell", cmd) || strings.HasPrefix("system", cmd) || strings.HasPrefix("load", cmd)):
			c.add(Effect{Kind: EffExec, What: "sqlite3 ." + cmd + " runs code"})
		default:
			c.unknown("sqlite3 ." + cmd + " may read or write other files")
		}
	}
	if sqliteReaches.MatchString(text) {
		c.unknown("sqlite3 SQL that reads, writes or runs beyond the database")
	}
	if db != "" && !c.has("-readonly", "--readonly") && sqlWrites.MatchString(text) {
		c.writePath(db, c.ops[0].lit, Effect{})
	}
}

// gpgHandler: decrypting, signing and exporting secret keys use the
// person's secrets; importing and making keys change the keyring.
func gpgHandler(c *cmdRun) {
	for _, w := range c.words {
		switch w {
		case "-d", "--decrypt", "-s", "--sign", "--clearsign", "--clear-sign", "-b", "--detach-sign", "--export-secret-keys",
			"--export-secret-subkeys", "--export-ssh-key", "-sa", "-bsa", "--decrypt-files":
			c.add(Effect{Kind: EffSecret, What: "gpg " + w + " uses or prints a secret key"})
			return
		case "--recv-keys", "--search-keys", "--send-keys", "--refresh-keys", "--fetch-keys", "--locate-keys":
			c.add(Effect{Kind: EffNetwork, What: "gpg " + w})
			return
		case "--import", "--gen-key", "--full-generate-key", "--quick-generate-key", "--full-gen-key", "--delete-keys",
			"--delete-secret-keys", "--edit-key", "--lsign-key", "--sign-key", "--quick-add-key", "--import-ownertrust", "--change-passphrase", "--passwd":
			c.add(Effect{Kind: EffPersist, What: "gpg " + w + " changes the keyring"})
			return
		}
	}
}
