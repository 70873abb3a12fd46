package policy

import (
	"path"
	"regexp"
	"strings"
)

// More handlers for what the catalog's data cannot say, and more of the
// environment variables that make programs run other code. They are
// registered here, after handlers.go made its maps: Go runs a package's
// init functions in the order of its files' names, and handlers.go comes
// before handlers_more.go.
func init() {
	if handlers == nil {
		panic("policy: handlers_more.go's init ran before handlers.go's")
	}
	for name, h := range map[string]handler{
		"watch": watchHandler, "tarx": tarRemoteHandler, "go": goHandler, "getent": getentHandler,
		"sysctl": sysctlHandler, "interactive": interactiveHandler, "pathops": pathOpsHandler,
		"capture": captureHandler, "cmake": cmakeHandler, "tex": texHandler, "restcmd": restCmdHandler,
		"atfile": atFileHandler, "capsh": capshHandler, "exiftool": exiftoolHandler, "builddir": buildDirHandler,
		"identarg": identArgHandler, "ffmpeg": ffmpegHandler, "gitdiff": gitDiffHandler, "cpio": cpioHandler,
		"parallel": parallelHandler, "ps": psHandler, "leadcmd": leadCmdHandler, "ipx": ipHandler2, "strace": straceHandler, "nosub-exec": noSubExecHandler, "shellcmd": shellCmdHandler, "cc": ccHandler, "unless": unlessHandler,
		"csplit": csplitHandler, "cowfile": cowfileHandler, "pipeout": straceHandler,
		"arcmd": arcCommandHandler, "pax": paxHandler,
		"noops-exec": noOpsExecHandler, "sshfs": sshfsHandler,
		"nagios": nagiosHandler, "fzf": fzfHandler, "magick": magickHandler, "hgwrite": hgWriteHandler, "svn": svnHandler, "fd": fdHandler, "php": phpHandler,
		"deno": denoHandler, "execsub": execSubHandler, "kubectl+": kubectlSecretsHandler,
		"npm+dir":    func(c *cmdRun) { npmHandler(c); buildDirHandler(c) },
		"yarn+dir":   func(c *cmdRun) { yarnHandler(c); buildDirHandler(c) },
		"poetry+dir": func(c *cmdRun) { subWordsHandler(poetryWords)(c); buildDirHandler(c) },
	} {
		handlers[name] = h
	}
	for _, name := range []string{"tarx", "capsh", "cpio", "parallel", "arcmd"} {
		rawHandlers[name] = true
	}
	for _, name := range moreDangerousVars {
		dangerousVars[name] = true
	}
	// What more of the package managers' commands do (handlers.go reads
	// their first word with these).
	for w, k := range map[string]string{"why-not": "none", "prohibits": "none", "self-update": "network", "selfupdate": "network",
		"status": "none", "search": "network", "fund": "none", "suggests": "none", "browse": "exec", "home": "exec", "archive": "write",
		"clear-cache": "write", "clearcache": "write", "list": "none", "help": "none", "about": "none", "bump": "write", "reinstall": "network",
		"info": "none", "check": "none"} {
		if _, ok := composerWords[w]; !ok {
			composerWords[w] = k
		}
	}
	for w, k := range map[string]string{"open": "exec", "build": "project", "sources": "none", "owner": "upload", "yank": "upload",
		"signin": "network", "signout": "none", "lock": "none", "mirror": "network", "rdoc": "write", "server": "network", "stale": "none",
		"check": "none", "pristine": "network", "rebuild": "project", "exec": "network", "environment": "none", "search": "network"} {
		gemWords[w] = k
	}
	for w, k := range map[string]string{"doctor": "none", "licenses": "none", "viz": "write", "pristine": "network", "plugin": "network",
		"console": "exec", "open": "exec", "outdated": "network"} {
		if _, ok := bundleWords[w]; !ok {
			bundleWords[w] = k
		}
	}
}

// moreDangerousVars are variables that make a program run code, load a
// library, or read its options from a file the variable names.
var moreDangerousVars = []string{
	"AUTOM4TE", "AUTOCONF", "AUTOHEADER", "M4", "GROFF_BIN_PATH", "CRASHPAGER", "PERL5DB", "PERLDB_OPTS",
	"BUNDLE_GEMFILE", "FACTERLIB", "LUA_INIT", "LUA_INIT_5_1", "LUA_INIT_5_2", "LUA_INIT_5_3", "LUA_INIT_5_4",
	"LUA_PATH", "LUA_CPATH", "TCLLIBPATH", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON", "R_ENVIRON_USER",
	"PHPRC", "PHP_INI_SCAN_DIR", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTS",
	"MAVEN_OPTS", "GRADLE_OPTS", "CLASSPATH", "ERL_AFLAGS", "ERL_FLAGS", "ERL_ZFLAGS", "ELIXIR_ERL_OPTIONS",
	"GIT_TEMPLATE_DIR", "MANOPT", "SYSTEMD_PAGER", "LESSKEYIN", "LESSKEY_CONTENT", "LESSEDIT", "VIMINIT",
	"EXINIT", "MYVIMRC", "GVIMINIT", "shell_escape", "KUBECONFIG", "AWS_CONFIG_FILE", "PYTHONWARNINGS",
	"PYTHONBREAKPOINT", "RUSTC", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC", "CARGO_BUILD_RUSTC_WRAPPER",
	"GOTOOLCHAIN", "CPP", "LD", "NPM_CONFIG_SCRIPT_SHELL", "npm_config_script_shell", "npm_config_userconfig",
	"npm_config_registry", "YARN_RC_FILENAME", "SUDO_ASKPASS", "SHELLOPTS", "BASHOPTS", "OPENSSL_CONF",
	"OPENSSL_ENGINES", "OPENSSL_MODULES", "CURL_HOME", "WGETRC", "PIP_CONFIG_FILE", "MAKEFILES",
	"GNUMAKEFLAGS", "TERMINFO_DIRS", "SCREENRC", "TMUX_CONF", "RESTIC_PASSWORD_COMMAND", "NODE_REPL_EXTERNAL_MODULE", "BAT_PAGER", "BAT_CONFIG_PATH",
	"COWPATH", "BORG_RSH", "BORG_REMOTE_PATH", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "RCLONE_CONFIG", "FZF_DEFAULT_COMMAND", "FZF_DEFAULT_OPTS", "FZF_DEFAULT_OPTS_FILE", "RIPGREP_CONFIG_PATH", "DELTA_PAGER", "GIT_EXTERNAL_DIFF",
	"TAR_OPTIONS", "UNZIP", "UNZIPOPT", "ZIPOPT", "GNUPGHOME", "LESS", "MORE", "DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG",
	"CONTAINER_HOST", "CONTAINER_CONNECTION",
	"PARALLEL", "PARALLEL_SHELL", "TEXMFCNF", "TEXINPUTS", "LUAINPUTS", "MAILRC", "NAILRC", "MUTTRC", "EMAIL_CONFIG", "XDG_CONFIG_DIRS",
}

// opWords returns the operands' words, literal flags and glob flags.
func opWords(ops []operand) (words []string, lits, globs []bool) {
	for _, op := range ops {
		words, lits, globs = append(words, op.word), append(lits, op.lit), append(globs, op.glob)
	}
	return
}

// --- watch ---

// watchHandler: watch runs its operands through sh -c, joined by spaces,
// unless -x runs them as a command.
func watchHandler(c *cmdRun) {
	if len(c.ops) == 0 {
		return
	}
	words, lits, globs := opWords(c.ops)
	if c.has("-x", "--exec") {
		c.sh.call(words, lits, globs, nil, false, c.depth)
		return
	}
	for _, l := range lits {
		if !l {
			c.add(Effect{Kind: EffExec, What: "watch with a command not known until it runs"})
			return
		}
	}
	c.sh.parse(strings.Join(words, " "), c.depth+1)
}

// shellCmdHandler: the operands, joined by spaces, are a shell command
// (tmux new-session 'make test').
func shellCmdHandler(c *cmdRun) {
	if len(c.ops) == 0 {
		return
	}
	words, lits, _ := opWords(c.ops)
	for _, l := range lits {
		if !l {
			c.add(Effect{Kind: EffExec, What: c.prog + " with a command not known until it runs"})
			return
		}
	}
	c.sh.parse(strings.Join(words, " "), c.depth+1)
}

// --- tar's remote archives ---

// tarRemoteHandler is tar's handler, and what it does not see: an archive
// named host:path (-f me@host:x.tar) is on another host, reached through
// rsh or ssh.
func tarRemoteHandler(c *cmdRun) {
	tarHandler(c)
	archive, lit, force := tarArchive(c.words, c.lits)
	if force || archive == "" {
		return
	}
	if !lit {
		return // a path not known until it runs: tar's reading already says so
	}
	i := strings.IndexByte(archive, ':')
	if i <= 0 || strings.Contains(archive[:i], "/") {
		return
	}
	host := hostOf(archive[:i])
	c.add(Effect{Kind: EffNetwork, Host: host, What: "tar reaches " + host + " through rsh or ssh for the archive " + archive})
	if mode := c.prefix[len(c.prefix)-1]; len(c.prefix) > 1 && strings.ContainsAny(mode, "cruA") {
		c.add(Effect{Kind: EffUpload, Host: host, What: "tar sends the archive to " + host})
	}
}

// tarArchive finds the archive a tar command names, and whether
// --force-local says a colon in it is not a host.
func tarArchive(words []string, lits []bool) (archive string, lit, force bool) {
	i := 0
	if len(words) > 0 && !strings.HasPrefix(words[0], "-") {
		i = 1
		for _, ch := range words[0] {
			switch ch {
			case 'f':
				if i < len(words) {
					archive, lit = words[i], lits[i]
					i++
				}
			case 'C':
				i++
			}
		}
	}
	takes := "fCTXbHNLVIK"
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--force-local":
			force = true
		case w == "--file" || w == "--directory" || w == "--files-from" || w == "--exclude-from" || w == "--use-compress-program" ||
			w == "--to-command" || w == "--blocking-factor" || w == "--newer" || w == "--label" || w == "--tape-length" ||
			w == "--rsh-command" || w == "--info-script" || w == "--new-volume-script":
			if w == "--file" && i+1 < len(words) {
				archive, lit = words[i+1], lits[i+1]
			}
			i++
		case strings.HasPrefix(w, "--file="):
			archive, lit = strings.TrimPrefix(w, "--file="), lits[i]
		case strings.HasPrefix(w, "--"):
		case strings.HasPrefix(w, "-") && len(w) > 1:
			for j := 1; j < len(w); j++ {
				if !strings.ContainsRune(takes, rune(w[j])) {
					continue
				}
				val, vlit := w[j+1:], lits[i]
				if val == "" && i+1 < len(words) {
					i++
					val, vlit = words[i], lits[i]
				}
				if w[j] == 'f' {
					archive, lit = val, vlit
				}
				break
			}
		}
	}
	return archive, lit, force
}

// --- go ---

// goHandler reads the packages go build, run, test, vet, list and
// generate are given: a module at a version (pkg@v1) is downloaded and
// built, a folder or file outside the project is not the project's code.
func goHandler(c *cmdRun) {
	if len(c.prefix) < 2 {
		return
	}
	sub := c.prefix[1]
	switch sub {
	case "build", "run", "test", "vet", "list", "generate":
	default:
		buildDirHandler(c)
		return
	}
	buildDirHandler(c)
	ops := c.ops
	if sub == "run" {
		// go run FILES... ARGS or go run PACKAGE ARGS: the rest are the
		// program's arguments.
		n := 1
		for n < len(ops) && strings.HasSuffix(ops[n-1].word, ".go") && strings.HasSuffix(ops[n].word, ".go") {
			n++
		}
		if len(ops) > n {
			ops = ops[:n]
		}
	}
	for _, op := range ops {
		w := op.word
		switch {
		case !op.lit:
			c.add(Effect{Kind: EffExec, What: "go " + sub + " of a package not known until it runs"})
		case strings.Contains(w, "@") && !strings.HasPrefix(w, "-"):
			c.add(Effect{Kind: EffNetwork, What: "go " + sub + " " + w + " downloads the module"})
			c.add(Effect{Kind: EffExec, What: "go " + sub + " " + w + " builds and runs a module that is not the project's"})
		case strings.HasPrefix(w, ".") || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~") || strings.HasSuffix(w, ".go"):
			p := c.abs(strings.TrimSuffix(strings.TrimSuffix(w, "/..."), "..."))
			if p == "" || !c.sh.inProject(p) {
				c.add(Effect{Kind: EffExec, What: "go " + sub + " " + w + ": code that is not the project's"})
			}
		}
	}
}

// --- the folder a build runs in ---

// buildDirHandler: a build tool or test runner runs the build files of
// the folder it works in (a Makefile, package.json, Cargo.toml,
// conftest.py): the project's own code only when that folder is in the
// project. It matters only where the command runs the project's code.
func buildDirHandler(c *cmdRun) {
	if c.base != "" && c.sh.inProject(c.base) || !effectSet(c.effects).has(EffProject) {
		return
	}
	where := c.base
	if where == "" {
		where = "a folder not known until it runs"
	}
	c.elsewhere = true
	c.add(Effect{Kind: EffExec, What: c.prog + " runs the build files of " + where + ", which is not the project"})
}

// --- getent ---

// getentHandler: the shadow databases hold password hashes.
func getentHandler(c *cmdRun) {
	if len(c.ops) > 0 {
		switch db := c.ops[0].word; {
		case !c.ops[0].lit:
			c.add(Effect{Kind: EffSecret, What: "getent of a database not known until it runs"})
		case db == "shadow" || db == "gshadow":
			c.add(Effect{Kind: EffSecret, What: "getent " + db + " prints password hashes"})
		case strings.HasPrefix(db, "ahosts") || db == "hosts" || db == "networks":
			if len(c.ops) > 1 {
				c.add(Effect{Kind: EffNetwork, What: "getent " + db + " looks names up in DNS"})
			}
		}
	}
}

// --- sysctl ---

// sysctlHandler: an assignment, -w, -p or --system changes the kernel; a
// name with a slash is a path under /proc/sys, and .. leaves it.
func sysctlHandler(c *cmdRun) {
	change := c.has("-w", "--write", "-p", "--load", "-f", "--system")
	for _, op := range c.ops {
		if !op.lit {
			c.add(Effect{Kind: EffSystem, What: "sysctl of a name not known until it runs"})
			continue
		}
		name, _, assign := strings.Cut(op.word, "=")
		if assign {
			change = true
		}
		if strings.Contains(name, "/") {
			p := path.Clean("/proc/sys/" + name)
			if !strings.HasPrefix(p, "/proc/sys/") {
				c.add(Effect{Kind: EffRead, Path: p, What: "sysctl reads " + p})
			}
		}
	}
	if change {
		c.add(Effect{Kind: EffSystem, What: "sysctl changes kernel settings"})
	}
}

// --- interactive programs ---

// batchOptions are, for programs that are interactive unless told
// otherwise, the options that make them print and exit.
var batchOptions = map[string][]string{
	"top": {"-b", "--batch", "-h", "--help", "-v", "-V", "--version"}, "iotop": {"-b", "--batch", "-h", "--help", "--version"},
	"iftop": {"-t", "-h"}, "nethogs": {"-t", "-h", "-V"},
	"w3m":   {"-dump", "-dump_source", "-dump_head", "-dump_both", "-dump_extra", "-version", "-help"},
	"lynx":  {"-dump", "-source", "-head", "-mime_header", "-help", "-version", "-crawl"},
	"links": {"-dump", "-source", "-version", "-help"}, "elinks": {"-dump", "-source", "-version", "-help"},
	"ncdu": {"-o", "-h", "--help", "-v", "-V", "--version"}, "bpytop": {"-h", "--help", "-v", "--version"},
	"iftop6": {"-t"}, "glances": {"--stdout", "--stdout-csv", "--stdout-json", "-V", "--version", "-h", "--help"},
	"atop": {"-w", "-V", "-h"}, "screen": {"-ls", "-list", "-v", "--version", "-h", "--help", "-d", "-D", "-dm", "-dmS", "-m"},
	"script": {"-c", "--command", "-V", "--version", "-h", "--help"}, "mc": {"-V", "--version", "-h", "--help"}, "tig": {"-v", "--version", "-h", "--help"},
}

// interactiveHandler: an interactive program reads keys from its
// terminal, and its keys run commands (top's pipe, w3m's !, iftop's !).
func interactiveHandler(c *cmdRun) {
	batch := batchOptions[c.prog]
	if c.has(batch...) {
		return
	}
	c.add(Effect{Kind: EffExec, What: c.prog + " is interactive: the keys typed at it can run commands"})
}

// --- operands that may be paths ---

// pathOpsHandler: an operand with a slash is a file the program reads
// (man ./x.1, info ./x.info); the others are names.
func pathOpsHandler(c *cmdRun) {
	for _, op := range c.ops {
		if op.role == roleText && (strings.Contains(op.word, "/") || !op.lit) {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
	}
}

// --- packet capture ---

// captureHandler: capturing reads the traffic of every program on the
// host, credentials included; -r reads a saved capture instead.
func captureHandler(c *cmdRun) {
	if c.has("-r", "--read-file", "-h", "--help", "--version", "-D", "--list-interfaces", "-L", "--list-data-link-types", "-v", "-V") &&
		!c.has("-i", "--interface") {
		return
	}
	c.add(Effect{Kind: EffSecret, What: c.prog + " captures the host's network traffic, which carries credentials"})
}

// --- cmake ---

// cmakeHandler: cmake runs the CMakeLists.txt of the source folder it is
// given: the project's own code only in the project; cmake -E is a tool
// of its own.
func cmakeHandler(c *cmdRun) {
	if mode, ok := c.optVal("-E"); ok {
		// cmake -E is a tool of its own: it runs no CMakeLists.txt.
		kept := c.effects[:0]
		for _, e := range c.effects {
			if e.Kind != EffProject {
				kept = append(kept, e)
			}
		}
		c.effects = kept
		cmakeTool(c, mode)
		return
	}
	if c.has("--build", "--install", "--open") {
		buildDirHandler(c)
		return
	}
	if c.has("-P", "--help", "--version", "--system-information", "-h") {
		return
	}
	src, lit := "", true
	if v, ok := c.optVal("-S"); ok {
		src = v
	} else if len(c.ops) > 0 {
		src, lit = c.ops[0].word, c.ops[0].lit
	} else {
		src = "."
	}
	if !lit {
		c.add(Effect{Kind: EffExec, What: "cmake of a source folder not known until it runs"})
		return
	}
	if p := c.abs(src); p == "" || !c.sh.inProject(p) {
		c.add(Effect{Kind: EffExec, What: "cmake runs the CMakeLists.txt of " + src + ", which is not the project"})
	}
}

// cmakeTool reads cmake -E MODE ARGS.
func cmakeTool(c *cmdRun, mode string) {
	at := -1
	for i, w := range c.words {
		if (w == "-E" && i+1 < len(c.words) && c.words[i+1] == mode) || w == "-E"+mode {
			at = i + 1
			if w != "-E" {
				at = i
			}
			break
		}
	}
	if at < 0 {
		c.unknown("cmake -E " + mode)
		return
	}
	words, lits, globs := c.words[at+1:], c.lits[at+1:], c.globs[at+1:]
	var files []operand
	for i, w := range words {
		if !strings.HasPrefix(w, "-") {
			files = append(files, operand{word: w, lit: lits[i]})
		}
	}
	switch mode {
	case "echo", "echo_append", "capabilities", "environment", "true", "false", "sleep":
	case "cat", "compare_files", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum":
		for _, f := range files {
			c.pathEffect(EffRead, f.word, f.lit, Effect{})
		}
	case "copy", "copy_if_different", "copy_directory", "copy_directory_if_different", "create_symlink", "create_hardlink":
		for i, f := range files {
			if i == len(files)-1 {
				c.writePath(f.word, f.lit, Effect{})
			} else {
				c.pathEffect(EffRead, f.word, f.lit, Effect{})
			}
		}
	case "make_directory":
		for _, f := range files {
			c.writePath(f.word, f.lit, Effect{Create: true})
		}
	case "touch", "touch_nocreate":
		for _, f := range files {
			c.writePath(f.word, f.lit, Effect{Append: true})
		}
	case "rename":
		for i, f := range files {
			if i == len(files)-1 {
				c.writePath(f.word, f.lit, Effect{})
			} else {
				c.pathEffect(EffDelete, f.word, f.lit, Effect{})
			}
		}
	case "remove", "rm", "remove_directory":
		for _, f := range files {
			c.pathEffect(EffDelete, f.word, f.lit, Effect{})
		}
	case "time":
		c.sh.call(words, lits, globs, nil, false, c.depth)
	case "chdir":
		if len(words) > 1 {
			c.pathEffect(EffRead, words[0], lits[0], Effect{})
			c.sh.call(words[1:], lits[1:], globs[1:], nil, false, c.depth)
		}
	case "env":
		c.sh.call(append([]string{"env"}, words...), append([]bool{true}, lits...), append([]bool{false}, globs...), nil, false, c.depth)
	default:
		c.unknown("cmake -E " + mode + " is not a tool agate knows")
	}
}

// --- TeX ---

// texHandler: TeX runs the file it is given, or the TeX code given in
// its place (an operand that starts with a backslash): code that reads
// any file, and with --shell-escape runs commands.
func texHandler(c *cmdRun) {
	if len(c.ops) == 0 {
		if !c.has("--version", "-version", "--help", "-help") {
			c.add(Effect{Kind: EffExec, What: c.prog + " reads TeX code from its input"})
		}
		return
	}
	op := c.ops[0]
	if strings.HasPrefix(op.word, "\\") || strings.HasPrefix(op.word, "&") {
		c.add(Effect{Kind: EffExec, What: c.prog + " runs TeX code given on the command line"})
		return
	}
	c.script(op.word, op.lit)
}

// --- an option after which the words are a command ---

// restCmdHandler: an option marked !rest that takes no value (pidstat
// -e PROGRAM ARGS) is followed by a command.
func restCmdHandler(c *cmdRun) {
	for _, o := range c.opts {
		if !o.spec.rest || o.spec.arg != argNone {
			continue
		}
		for i, w := range c.words {
			if w == o.name && c.lits[i] {
				if i+1 < len(c.words) {
					c.sh.call(c.words[i+1:], c.lits[i+1:], c.globs[i+1:], nil, false, c.depth)
				}
				return
			}
		}
	}
}

// --- @file ---

// atFileHandler: an operand @FILE is a file of more arguments, read
// (gcc, as, ld, nm, readelf).
func atFileHandler(c *cmdRun) {
	for _, op := range c.ops {
		if f, ok := strings.CutPrefix(op.word, "@"); ok && f != "" {
			c.pathEffect(EffRead, f, op.lit, Effect{What: c.prog + " reads more arguments from " + f})
		}
	}
}

// --- capsh ---

// capshQueries are capsh's options that only look.
var capshQueries = map[string]bool{"--print": true, "--current": true, "--decode": true, "--supports": true,
	"--explain": true, "--help": true, "--license": true, "--has-p": true, "--has-i": true, "--has-a": true,
	"--has-b": true, "--is-uid": true, "--is-gid": true, "--has-ambient": true, "--has-no-new-privs": true}

// capshHandler: capsh's options change capabilities, ids and the root;
// -- and == run bash with the words after them.
func capshHandler(c *cmdRun) {
	for i, w := range c.words {
		if w == "--" || w == "==" {
			rest := append([]string{"bash"}, c.words[i+1:]...)
			lits := append([]bool{true}, c.lits[i+1:]...)
			globs := append([]bool{false}, c.globs[i+1:]...)
			c.sh.call(rest, lits, globs, nil, c.stdinCode, c.depth)
			return
		}
		name, _, _ := strings.Cut(w, "=")
		if !capshQueries[name] {
			c.add(Effect{Kind: EffElevated, What: "capsh " + name + " changes capabilities, ids or the root folder"})
			c.add(Effect{Kind: EffSystem, What: "capsh " + name})
			return
		}
	}
}

// --- exiftool ---

// exiftoolCode matches an exiftool format with Perl in it: ${TAG;EXPR}.
var exiftoolCode = regexp.MustCompile(`\$\{[^}]*;`)

// exiftoolHandler: -TAG=VALUE, -TAG<=FILE and -TAG<SRC write the files
// given; -FileName= and -Directory= move them anywhere; -if, -api Filter
// and a format with ${TAG;EXPR} run Perl.
func exiftoolHandler(c *cmdRun) {
	writes := c.has("-tagsFromFile", "-TagsFromFile", "-all=", "-delete_original", "-restore_original")
	for _, o := range c.opts {
		name := o.name
		if i := strings.IndexAny(name, "=<>"); i > 0 {
			tag := strings.ToLower(strings.TrimPrefix(name[:i], "-"))
			if j := strings.LastIndexByte(tag, ':'); j >= 0 {
				tag = tag[j+1:]
			}
			tag = strings.TrimRight(tag, "+-^")
			writes = true
			switch tag {
			case "filename", "directory", "testname", "hardlink", "symlink":
				c.add(Effect{Kind: EffWrite, What: "exiftool -" + tag + "= moves or links files where it likes"})
			}
			if f, ok := strings.CutPrefix(name[i:], "<="); ok && f != "" {
				c.pathEffect(EffRead, f, o.lit, Effect{})
			}
		}
		switch o.name {
		case "-if", "-api", "-userParam", "-config":
			c.add(Effect{Kind: EffExec, What: "exiftool " + o.name + " runs Perl"})
		case "-p", "-printFormat":
			if exiftoolCode.MatchString(o.val) {
				c.add(Effect{Kind: EffExec, What: "exiftool -p with ${...;EXPR} runs Perl"})
			}
		}
	}
	if writes && !c.has("-o", "-out") {
		for _, op := range c.ops {
			c.writePath(op.word, op.lit, Effect{Edit: true})
		}
	}
}

// --- names that are spliced into code ---

var identWord = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// identArgHandler: xdg-user-dir splices its operand into shell code it
// evaluates: anything but a plain name is code.
func identArgHandler(c *cmdRun) {
	for _, op := range c.ops {
		if !op.lit || !identWord.MatchString(op.word) {
			c.add(Effect{Kind: EffExec, What: c.prog + " evaluates " + op.word + " as shell code"})
		}
	}
}

// --- ffmpeg ---

// ffmpegFilterCode are filters that load a library; ffmpegFilterFiles
// read files (or URLs) the filter string names.
var (
	ffmpegFilterCode  = regexp.MustCompile(`(?i)(^|[,;\[\]\s])(ladspa|lv2|frei0r|frei0r_src|ocv|zmq|azmq)\b`)
	ffmpegFilterFiles = regexp.MustCompile(`(?i)(^|[,;\[\]\s])(movie|amovie|subtitles|ass|sendcmd|asendcmd|lut3d|haldclut|lut1d|drawtext|coreimage|coreimagesrc)\b`)
)

// ffmpegHandler: the filter graphs are small programs of their own.
func ffmpegHandler(c *cmdRun) {
	for _, o := range c.opts {
		switch o.name {
		case "-vf", "-af", "-filter", "-filter:v", "-filter:a", "-filter_complex", "-lavfi", "-filter_script", "-filter_complex_script":
			if !o.lit || ffmpegFilterCode.MatchString(o.val) {
				c.add(Effect{Kind: EffExec, What: "an ffmpeg filter that loads a library"})
			} else if ffmpegFilterFiles.MatchString(o.val) {
				c.unknown("an ffmpeg filter that reads the files it names")
			}
		}
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

// --- cpio ---

// cpioTakes are cpio's options that take a value.
var cpioTakes = map[string]bool{"-F": true, "--file": true, "-O": true, "-I": true, "-H": true, "--format": true,
	"-R": true, "--owner": true, "-D": true, "--directory": true, "-E": true, "--pattern-file": true, "-M": true,
	"--message": true, "-C": true, "--io-size": true, "--block-size": true, "--rsh-command": true, "--rename-batch-file": true}

// cpioFlags are cpio's options that take none.
var cpioFlags = map[string]bool{"-o": true, "--create": true, "-i": true, "--extract": true, "-p": true, "--pass-through": true,
	"-t": true, "--list": true, "-d": true, "--make-directories": true, "-u": true, "--unconditional": true, "-v": true,
	"--verbose": true, "-V": true, "--dot": true, "-m": true, "--preserve-modification-time": true, "-a": true,
	"--reset-access-time": true, "-B": true, "-c": true, "-f": true, "--nonmatching": true, "-l": true, "--link": true,
	"-L": true, "--dereference": true, "-n": true, "--numeric-uid-gid": true, "-s": true, "--swap-bytes": true,
	"-S": true, "--swap-halfwords": true, "-b": true, "--swap": true, "-0": true, "--null": true, "--quiet": true,
	"--no-absolute-filenames": true, "--absolute-filenames": true, "--sparse": true, "--no-preserve-owner": true,
	"--only-verify-crc": true, "--to-stdout": true, "--help": true, "--version": true, "-r": true, "--rename": true,
	"--force-local": true, "--device-independent": true, "--reproducible": true, "--ignore-devno": true, "--renumber-inodes": true}

// cpioHandler reads cpio's mode and options: -o archives the files named
// on its input, -i unpacks into the folder it runs in, -p copies into a
// folder; an archive named host:path is on another host.
func cpioHandler(c *cmdRun) {
	mode, archive, archiveLit := "", "", true
	dir := c.base
	var ops []operand
	for i := 0; i < len(c.words); i++ {
		w := c.words[i]
		if !strings.HasPrefix(w, "-") || w == "-" {
			ops = append(ops, operand{word: w, lit: c.lits[i]})
			continue
		}
		name, val, hasVal := strings.Cut(w, "=")
		if !strings.HasPrefix(w, "--") && len(w) > 2 {
			// -idv, -ovF x
			for j := 1; j < len(w); j++ {
				f := "-" + w[j:j+1]
				if cpioTakes[f] {
					name, val, hasVal = f, w[j+1:], w[j+1:] != ""
					break
				}
				if !cpioFlags[f] {
					c.unknown("cpio " + f + " is not an option agate knows")
					return
				}
				switch w[j] {
				case 'o', 'i', 'p', 't':
					mode = w[j : j+1]
				}
				name = ""
			}
			if name == "" {
				continue
			}
		}
		switch {
		case cpioTakes[name]:
			lit := c.lits[i]
			if !hasVal {
				if i+1 >= len(c.words) {
					c.unknown("cpio " + name + " without its value")
					return
				}
				i++
				val, lit = c.words[i], c.lits[i]
			}
			switch name {
			case "-F", "--file", "-O", "-I":
				archive, archiveLit = val, lit
			case "-D", "--directory":
				dir = c.abs(val)
			case "-E", "--pattern-file":
				c.pathEffect(EffRead, val, lit, Effect{})
			case "--rsh-command":
				c.add(Effect{Kind: EffExec, What: "cpio runs " + val + " to reach a remote archive"})
			case "--rename-batch-file":
				c.writePath(val, lit, Effect{})
			}
		case cpioFlags[name]:
			switch name {
			case "-o", "--create":
				mode = "o"
			case "-i", "--extract":
				mode = "i"
			case "-p", "--pass-through":
				mode = "p"
			case "-t", "--list":
				mode = "t"
			case "--absolute-filenames":
				c.add(Effect{Kind: EffWrite, What: "cpio --absolute-filenames may write anywhere"})
			}
		default:
			c.unknown("cpio " + name + " is not an option agate knows")
			return
		}
	}
	c.prefix = append(c.prefix, "-"+mode)
	remote := ""
	if archive != "" && archiveLit && !c.has("--force-local") {
		if i := strings.IndexByte(archive, ':'); i > 0 && !strings.Contains(archive[:i], "/") {
			remote = hostOf(archive[:i])
		}
	}
	if remote != "" {
		c.add(Effect{Kind: EffNetwork, Host: remote, What: "cpio reaches " + remote + " for the archive " + archive})
	}
	readsNamed := func() {
		if c.sh.stdinPaths != nil {
			for _, p := range c.sh.stdinPaths {
				c.add(Effect{Kind: EffRead, Path: p})
			}
			return
		}
		c.add(Effect{Kind: EffRead, What: "cpio -" + mode + " reads the files named on its input"})
	}
	switch mode {
	case "o":
		readsNamed()
		if remote != "" {
			c.add(Effect{Kind: EffUpload, Host: remote})
		} else if archive != "" {
			c.writePath(archive, archiveLit, Effect{})
		}
	case "i", "t":
		if archive != "" && remote == "" {
			c.pathEffect(EffRead, archive, archiveLit, Effect{})
		}
		if mode == "i" && !c.has("--to-stdout", "--only-verify-crc") {
			if dir == "" {
				c.add(Effect{Kind: EffWrite, What: "cpio extracts into a folder not known until it runs"})
			} else {
				c.add(Effect{Kind: EffWrite, Path: dir, What: "cpio extracts into " + dir})
			}
		}
	case "p":
		readsNamed()
		if len(ops) == 0 {
			c.unknown("cpio -p without a folder")
			return
		}
		for _, op := range ops {
			c.writePath(op.word, op.lit, Effect{})
		}
	default:
		if !c.has("--help", "--version") {
			c.unknown("cpio without -o, -i, -p or -t")
		}
	}
}

// --- GNU parallel ---

// parallelTakes are parallel's options that take a value, and whether it
// names a file read (r), written (w), a host (h), a program (p) or
// something else (-).
var parallelTakes = map[string]byte{"-j": '-', "--jobs": '-', "-P": '-', "--max-procs": '-', "-n": '-', "--max-args": '-',
	"-N": '-', "-d": '-', "--delimiter": '-', "-I": '-', "--replace": '-', "--colsep": '-', "-C": '-', "--timeout": '-',
	"--retries": '-', "--delay": '-', "--load": '-', "--memfree": '-', "--nice": '-', "--halt": '-', "--block": '-',
	"--block-size": '-', "--recstart": '-', "--recend": '-', "--header": '-', "--tagstring": '-', "--rpl": '-',
	"-E": '-', "--eof": '-', "--id": '-', "--seqreplace": '-', "--termseq": '-', "-s": '-', "--max-chars": '-',
	"-L": '-', "--max-lines": '-', "--resume": '-', "--joblog": 'w', "--results": 'w', "--res": 'w', "--output-as-files": '-',
	"-a": 'r', "--arg-file": 'r', "--argfile": 'r', "-S": 'h', "--sshlogin": 'h', "--slf": 'r', "--sshloginfile": 'r',
	"--ssh": 'p', "--workdir": '-', "--wd": '-', "--env": '-', "--tmpdir": '-', "--basefile": 'r', "--bf": 'r',
	"--return": '-', "--transferfile": 'r', "--tf": 'r', "--trc": '-', "--trim": '-'}

// parallelFlags are parallel's options that take none.
var parallelFlags = map[string]bool{"-k": true, "--keep-order": true, "-X": true, "-m": true, "-q": true, "--quote": true,
	"--bar": true, "--progress": true, "--eta": true, "-v": true, "--verbose": true, "-t": true, "--dry-run": true, "--dryrun": true,
	"--tag": true, "--line-buffer": true, "--lb": true, "--group": true, "-u": true, "--ungroup": true, "-0": true, "--null": true,
	"-r": true, "--no-run-if-empty": true, "--shuf": true, "--no-notice": true, "--will-cite": true, "--files": true,
	"--pipe": true, "--pipepart": true, "--spreadstdin": true, "--xapply": true, "--link": true,
	"--plus": true, "--resume-failed": true, "--retry-failed": true, "--halt-on-error": true, "--fg": true, "-x": true,
	"--xargs": true, "--ctag": true, "--joblog-append": true, "--line-buffered": true, "--silent": true,
	"--version": true, "-V": true, "--help": true, "-h": true, "--number-of-cpus": true, "--number-of-cores": true,
	"--number-of-threads": true, "--cleanup": true, "--transfer": true, "--onall": true, "--nonall": true}

// parallelHandler reads GNU parallel: the words before ::: (or ::::) are a
// command line run by the shell, once per input; with none, the inputs
// are the commands.
func parallelHandler(c *cmdRun) {
	words, lits := c.words, c.lits
	i := 0
	for ; i < len(words) && strings.HasPrefix(words[i], "-") && words[i] != "-"; i++ {
		w := words[i]
		if w == "--" {
			i++
			break
		}
		name, val, hasVal := strings.Cut(w, "=")
		kind, takes := parallelTakes[name]
		if !takes && len(name) > 2 && name[1] != '-' {
			if kind, takes = parallelTakes[name[:2]]; takes {
				name, val, hasVal = name[:2], name[2:], true
			}
		}
		switch {
		case takes:
			lit := lits[i]
			if !hasVal {
				if i+1 >= len(words) {
					c.unknown("parallel " + name + " without its value")
					return
				}
				i++
				val, lit = words[i], lits[i]
			}
			switch kind {
			case 'r':
				c.pathEffect(EffRead, val, lit, Effect{})
			case 'w':
				c.writePath(val, lit, Effect{})
			case 'h':
				c.add(Effect{Kind: EffNetwork, Host: hostOf(val), What: "parallel runs the commands on " + val})
				c.add(Effect{Kind: EffUpload, Host: hostOf(val)})
			case 'p':
				c.value(roleProgram, val, lit, name)
			}
		case parallelFlags[name]:
		default:
			c.unknown("parallel " + name + " is not an option agate knows")
			return
		}
	}
	cmdEnd := len(words)
	for j := i; j < len(words); j++ {
		if lits[j] && strings.HasPrefix(words[j], ":::") {
			cmdEnd = j
			break
		}
	}
	for j := cmdEnd; j < len(words); j++ {
		if !lits[j] || !strings.HasPrefix(words[j], "::::") {
			continue
		}
		for k := j + 1; k < len(words) && !(lits[k] && strings.HasPrefix(words[k], ":::")); k++ {
			c.pathEffect(EffRead, words[k], lits[k], Effect{})
		}
	}
	if i == cmdEnd {
		c.add(Effect{Kind: EffExec, What: "parallel runs each of its inputs as a command"})
		return
	}
	cmd := words[i:cmdEnd]
	for _, l := range lits[i:cmdEnd] {
		if !l {
			c.add(Effect{Kind: EffExec, What: "parallel with a command not known until it runs"})
			return
		}
	}
	line := strings.Join(cmd, " ")
	const arg = `"$PARALLEL_INPUT"`
	if parallelRepl.MatchString(line) {
		line = parallelRepl.ReplaceAllLiteralString(line, arg)
	} else {
		line += " " + arg
	}
	c.sh.parse(line, c.depth+1)
}

// parallelRepl matches parallel's replacement strings: {}, {.}, {/},
// {//}, {/.}, {#}, {%}, {1}, {2.}.
var parallelRepl = regexp.MustCompile(`\{[0-9]*(\.|/|//|/\.|#|%)?\}`)

// --- a program's session ---

// noSubExecHandler: with no subcommand, the program starts an interactive
// session (tmux alone is tmux new-session).
func noSubExecHandler(c *cmdRun) {
	if len(c.prefix) == 1 && !c.has("-V", "--version", "-h", "--help") {
		c.add(Effect{Kind: EffExec, What: c.prog + " with no command starts an interactive session"})
	}
}

// --- ps ---

// psHandler: BSD-style ps letters with e (ps auxe, ps e) print the
// environment of every process, credentials included.
func psHandler(c *cmdRun) {
	for _, op := range c.ops {
		if !strings.HasPrefix(op.word, "-") && strings.ContainsRune(op.word, 'e') && identWord.MatchString(op.word) {
			c.add(Effect{Kind: EffSecret, What: "ps " + op.word + " prints the environment of processes"})
			return
		}
	}
}

// --- commands after a leading operand ---

// leadOps says, for programs that run a command after some operands of
// their own (chrt PRIO CMD, setarch ARCH CMD, flock FILE CMD), how many
// there are, the options that make them act on a running process
// instead, and the options that make the command one string of shell
// code (entr -s 'make && ./run').
var leadOps = map[string]struct {
	n         int
	pid, code []string
}{
	"chrt": {1, []string{"-p", "--pid"}, nil}, "taskset": {1, []string{"-p", "--pid"}, nil}, "setarch": {1, nil, nil},
	"flock": {1, nil, nil}, "entr": {0, nil, []string{"-s"}},
}

// setarchNames are the architectures setarch takes, and the names it
// also runs under (linux32 CMD: the architecture is in the name).
var setarchNames = map[string]bool{"i386": true, "i486": true, "i586": true, "i686": true, "x86_64": true, "linux32": true,
	"linux64": true, "aarch64": true, "arm": true, "armv7l": true, "armv8l": true, "arm64": true, "ppc": true, "ppc32": true,
	"ppc64": true, "ppc64le": true, "s390": true, "s390x": true, "mips": true, "mips64": true, "parisc": true, "parisc32": true,
	"parisc64": true, "sparc": true, "sparc32": true, "sparc32bash": true, "sparc64": true, "ia64": true, "alpha": true,
	"uname26": true, "x86": true, "riscv64": true, "loongarch64": true}

// leadCmdHandler runs the command after a program's own leading
// operands; with a --pid option it changes a running process instead.
func leadCmdHandler(c *cmdRun) {
	spec, ok := leadOps[c.spec.name]
	if !ok {
		return
	}
	if len(spec.pid) > 0 && c.has(spec.pid...) {
		if len(c.ops) > 1 {
			c.add(Effect{Kind: EffSystem, What: c.prog + " changes a running process"})
		}
		return
	}
	n := spec.n
	if c.spec.name == "setarch" {
		n = 0
		if c.prog == "setarch" && len(c.ops) > 0 && setarchNames[c.ops[0].word] {
			n = 1
		}
		// setarch ARCH -R CMD: its options may follow the architecture.
		for n < len(c.ops) && strings.HasPrefix(c.ops[n].word, "-") && c.spec.exactOpt(c.ops[n].word) != nil {
			n++
		}
	}
	if len(c.ops) <= n {
		if c.spec.name == "setarch" && !c.has("--list", "-h", "--help", "-V", "--version") {
			c.add(Effect{Kind: EffExec, What: "setarch with no command starts a shell"})
		}
		return
	}
	w, l, g := opWords(c.ops[n:])
	if len(w) == 2 && (w[0] == "-c" || w[0] == "--command") || len(spec.code) > 0 && c.has(spec.code...) {
		// flock FILE -c 'CMD', entr -s 'CMD': shell code.
		if w[0] == "-c" || w[0] == "--command" {
			w, l = w[1:], l[1:]
		}
		for _, x := range l {
			if !x {
				c.add(Effect{Kind: EffExec, What: c.prog + " runs code not known until it runs"})
				return
			}
		}
		c.sh.parse(strings.Join(w, " "), c.depth+1)
		return
	}
	c.sh.call(w, l, g, nil, c.stdinCode, c.depth)
}

// --- ip ---

// ipReads are ip's commands that only show.
var ipReads = map[string]bool{"show": true, "list": true, "lst": true, "ls": true, "get": true, "help": true, "sh": true}

// ipHandler2 reads ip OBJECT COMMAND: only show, list, get and help
// leave the network as it is (ip link s is set, ip addr s is show);
// ip netns exec NAME CMD and ip vrf exec NAME CMD run a command; a
// batch file can do anything.
func ipHandler2(c *cmdRun) {
	if c.spec.name == "nft" {
		// nft COMMAND OBJECT: only list, describe and monitor show.
		if len(c.ops) > 0 && !(c.ops[0].lit && (c.ops[0].word == "list" || c.ops[0].word == "describe" || c.ops[0].word == "monitor" || c.ops[0].word == "help")) {
			c.add(Effect{Kind: EffSystem, What: "nft " + c.ops[0].word + " changes the firewall"})
		}
		return
	}
	if c.has("-b", "-batch") {
		c.add(Effect{Kind: EffSystem, What: "ip -batch runs the commands of a file"})
	}
	if len(c.ops) < 2 {
		return
	}
	obj, cmd := c.ops[0].word, c.ops[1].word
	if (strings.HasPrefix("netns", obj) && len(obj) > 1 || obj == "vrf") && cmd == "exec" || strings.HasPrefix("exec", cmd) && cmd != "" && obj == "netns" {
		c.add(Effect{Kind: EffElevated, What: "ip " + obj + " exec runs a command in another namespace"})
		if len(c.ops) > 3 {
			w, l, g := opWords(c.ops[3:])
			c.sh.call(w, l, g, nil, c.stdinCode, c.depth)
		}
		return
	}
	if !c.ops[1].lit || !(ipReads[cmd] || cmd == "s" && !strings.HasPrefix(obj, "l")) {
		c.add(Effect{Kind: EffSystem, What: "ip " + obj + " " + cmd + " changes the network"})
	}
}

// --- strace -o |CMD ---

// straceHandler: strace -o '|CMD' (or '!CMD') pipes the trace into a
// shell command.
func straceHandler(c *cmdRun) {
	for _, o := range c.opts {
		if (o.name == "-o" || o.name == "--output") && (strings.HasPrefix(o.val, "|") || strings.HasPrefix(o.val, "!")) {
			if !o.lit {
				c.add(Effect{Kind: EffExec, What: "strace pipes its trace into a command not known until it runs"})
				continue
			}
			c.sh.parse(o.val[1:], c.depth+1)
		}
	}
}

// --- C compilers ---

// ccHandler: an operand @FILE holds more options; -Wl,-plugin and
// -Xlinker -plugin make the linker load a library.
func ccHandler(c *cmdRun) {
	atFileHandler(c)
	for _, o := range c.opts {
		v := o.name + "," + o.val
		if (strings.HasPrefix(o.name, "-Wl,") || o.name == "-Xlinker") && strings.Contains(v, "plugin") {
			c.unknown(c.prog + " " + o.name + " " + o.val + " makes the linker load a library")
		}
	}
}

// --- what a program does unless an option says otherwise ---

// defaultEffects are, for programs that act on their own unless told
// otherwise (enscript prints unless -o), the options that stop them and
// what they do.
var defaultEffects = map[string]struct {
	unless []string
	effect Effect
}{
	"enscript": {[]string{"-o", "--output", "-p", "-W", "--language", "-h", "--help", "-V", "--version", "--list-media", "--help-highlight"},
		Effect{Kind: EffUpload, What: "enscript sends the file to the printer"}},
	"a2ps": {[]string{"-o", "--output", "-P", "--printer", "-h", "--help", "-V", "--version", "--list"},
		Effect{Kind: EffUpload, What: "a2ps sends the file to the printer"}},
	"uudecode": {[]string{"-o", "--output-file", "-h", "--help", "-v", "--version"},
		Effect{Kind: EffWrite, What: "uudecode writes where the encoded data says"}},
	"tic": {[]string{"-o", "-C", "-I", "-L", "-c", "-V", "-D"},
		Effect{Kind: EffWrite, What: "tic compiles into the terminfo database (~/.terminfo)"}},
	"ldconfig": {[]string{"-p", "--print-cache", "-V", "--version", "-?", "--help", "--usage"},
		Effect{Kind: EffSystem, What: "ldconfig rebuilds the dynamic linker's cache"}},
	"zic":           {[]string{"-d", "--version", "--help"}, Effect{Kind: EffWrite, Path: "/usr/share/zoneinfo", What: "zic writes the system's time zones"}},
	"terraform fmt": {[]string{"-check", "-write"}, Effect{Kind: EffWrite, Path: ".", Edit: true, What: "terraform fmt rewrites the files of the folder"}},
	"unsquashfs": {[]string{"-d", "-dest", "-l", "-ls", "-ll", "-lls", "-lc", "-llc", "-s", "-stat", "-i", "-info", "-li", "-cat", "-h", "-help",
		"-v", "-version", "-pf"}, Effect{Kind: EffWrite, Path: "squashfs-root", What: "unsquashfs extracts into squashfs-root"}},
}

// unlessHandler adds a program's default effect unless one of its
// options says otherwise.
func unlessHandler(c *cmdRun) {
	d, ok := defaultEffects[c.spec.name]
	if !ok || c.has(d.unless...) {
		return
	}
	e := d.effect
	if e.Path != "" && !strings.HasPrefix(e.Path, "/") {
		// A path relative to the folder the program works in.
		e.Path = c.abs(e.Path)
	}
	c.add(e)
}

// --- csplit ---

// csplitHandler: csplit writes its pieces as PREFIX00, PREFIX01, ...
// (xx00 by default), where -f says.
func csplitHandler(c *cmdRun) {
	prefix, lit := "xx", true
	for _, o := range c.opts {
		if o.name == "-f" || o.name == "--prefix" {
			prefix, lit = o.val, o.lit
		}
	}
	c.writePath(prefix+"*", lit, Effect{What: "csplit writes " + prefix + "00, " + prefix + "01, ..."})
}

// --- a file or a name ---

// cowfileHandler: cowsay -f NAME picks a cow from the cow path; -f
// PATH runs the cow file at PATH, which is Perl.
func cowfileHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name == "-f" && (strings.Contains(o.val, "/") || strings.HasSuffix(o.val, ".cow") || strings.HasSuffix(o.val, ".pl") || !o.lit) {
			c.script(o.val, o.lit)
		}
	}
}

// --- archivers that take a command letter ---

// arcSwitches are the switches of rar, unrar, arj and lha that agate
// knows, by prefix: the ones that set where files are written say so.
var arcSwitches = []string{"-y", "-r", "-v", "-p", "-g", "-hp", "-o+", "-o-", "-ow", "-ep", "-ap", "-x", "-n", "-m", "-s", "-k", "-t", "-idq",
	"-idc", "-idd", "-idp", "-inul", "-jf", "-jm", "-e", "-f", "-u", "-c", "-ad", "-cl", "-cu", "-df", "-dh", "-ma", "-md", "-ms", "-ai",
	"-ht", "-op", "-a", "-i"}

// arcCommandHandler reads rar, unrar, arj and lha: COMMAND [-SWITCHES]
// ARCHIVE [FILES] [DEST/]. x and e extract into the folder they run in
// (or DEST/, -ht, -op), l, v, t and p only read, a, u, f and m add (m
// removes what it adds), d deletes from the archive.
func arcCommandHandler(c *cmdRun) {
	if len(c.words) == 0 {
		return
	}
	cmd := strings.TrimPrefix(c.words[0], "-")
	c.prefix = append(c.prefix, cmd)
	dest := ""
	var ops []operand
	for i, w := range c.words[1:] {
		if !strings.HasPrefix(w, "-") || w == "-" {
			ops = append(ops, operand{word: w, lit: c.lits[i+1]})
			continue
		}
		known := false
		for _, p := range arcSwitches {
			if strings.HasPrefix(w, p) {
				known = true
				break
			}
		}
		if !known || strings.HasPrefix(w, "-ilog") || strings.HasPrefix(w, "-ieml") || strings.HasPrefix(w, "-w") {
			c.unknown(c.prog + " " + w + " is not a switch agate knows")
			return
		}
		for _, p := range []string{"-ht", "-op"} {
			if d, ok := strings.CutPrefix(w, p); ok && d != "" {
				dest = d
			}
		}
	}
	switch {
	case strings.ContainsAny(cmd, "xe") && len(cmd) <= 3:
		if len(ops) > 1 && strings.HasSuffix(ops[len(ops)-1].word, "/") {
			dest = ops[len(ops)-1].word
			ops = ops[:len(ops)-1]
		}
		for _, op := range ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
		if dest != "" {
			c.writePath(dest, true, Effect{})
		} else {
			c.add(Effect{Kind: EffWrite, Path: c.base, What: c.prog + " extracts into " + c.base})
		}
	case cmd == "l" || cmd == "v" || cmd == "t" || cmd == "p" || cmd == "lb" || cmd == "lt" || cmd == "vt" || cmd == "vb" || cmd == "pr" || cmd == "vta":
		for _, op := range ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
	case cmd == "a" || cmd == "u" || cmd == "f" || cmd == "m" || cmd == "d" || cmd == "c":
		for i, op := range ops {
			switch {
			case i == 0:
				c.writePath(op.word, op.lit, Effect{})
			case cmd == "m":
				c.pathEffect(EffDelete, op.word, op.lit, Effect{What: c.prog + " m moves the files into the archive"})
			default:
				c.pathEffect(EffRead, op.word, op.lit, Effect{})
			}
		}
	default:
		c.unknown(c.prog + " " + cmd + " is not a command agate knows")
	}
}

// paxHandler reads pax's mode: -r alone extracts into the folder it runs
// in, -w alone archives the files named, -r -w copies them into the last
// operand, and neither lists.
func paxHandler(c *cmdRun) {
	r, w := c.has("-r"), c.has("-w")
	ops := c.ops
	archive, hasArchive := c.optVal("-f")
	switch {
	case r && w:
		if len(ops) == 0 {
			c.unknown("pax -rw without a folder")
			return
		}
		dest := ops[len(ops)-1]
		for _, op := range ops[:len(ops)-1] {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
		if len(ops) == 1 {
			c.add(Effect{Kind: EffRead, What: "pax -rw copies the files named on its input"})
		}
		c.writePath(dest.word, dest.lit, Effect{})
	case r:
		if hasArchive {
			c.pathEffect(EffRead, archive, true, Effect{})
		}
		c.add(Effect{Kind: EffWrite, Path: c.base, What: "pax -r extracts into " + c.base})
	case w:
		for _, op := range ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
		if len(ops) == 0 {
			c.add(Effect{Kind: EffRead, What: "pax -w archives the files named on its input"})
		}
		if hasArchive {
			c.writePath(archive, true, Effect{})
		}
	default:
		if hasArchive {
			c.pathEffect(EffRead, archive, true, Effect{})
		}
	}
}

// noOpsExecHandler: with no operand the program reads commands from its
// input (hping3's Tcl shell).
func noOpsExecHandler(c *cmdRun) {
	if len(c.ops) == 0 && !c.has("-v", "--version", "-V", "-h", "--help") {
		c.add(Effect{Kind: EffExec, What: c.prog + " with no operand reads commands from its input"})
	}
}

// sshfsCodeOptions are mount options of sshfs that run a program.
var sshfsCodeOptions = map[string]bool{"ssh_command": true, "sftp_server": true, "proxycommand": true, "localcommand": true,
	"permitlocalcommand": true, "knownhostscommand": true, "directport": false, "passive": true, "slave": true, "password_stdin": false}

// sshfsHandler: -o ssh_command=PROG (and the ssh options that run a
// command, given as -o ProxyCommand=...) run programs.
func sshfsHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name != "-o" {
			continue
		}
		if !o.lit {
			c.add(Effect{Kind: EffExec, What: c.prog + " -o with options not known until it runs"})
			continue
		}
		for _, kv := range strings.Split(o.val, ",") {
			k, _, _ := strings.Cut(kv, "=")
			if sshfsCodeOptions[strings.ToLower(strings.TrimSpace(k))] {
				c.add(Effect{Kind: EffExec, What: c.prog + " -o " + k + " runs a program"})
			}
		}
	}
}

// --- Nagios plugins ---

// nagiosHandler: --extra-opts=[SECTION][@FILE] reads the plugin's options
// from FILE.
func nagiosHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name != "--extra-opts" || !o.hasVal {
			continue
		}
		if _, f, ok := strings.Cut(o.val, "@"); ok && f != "" {
			c.pathEffect(EffRead, f, o.lit, Effect{What: c.prog + " reads its options from " + f})
		}
	}
}

// --- fzf ---

// fzfActions are fzf --bind actions that run a command.
var fzfActions = regexp.MustCompile(`(?i)(execute|execute-silent|become|reload|reload-sync|preview|change-preview|transform[a-z-]*|bg-transform[a-z-]*)\(|(execute|become|reload|preview|transform)[:~]`)

// fzfHandler: --bind KEY:execute(CMD) (and become, reload, preview,
// transform) runs a command.
func fzfHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name == "--bind" && (!o.lit || fzfActions.MatchString(o.val)) {
			c.add(Effect{Kind: EffExec, What: "fzf --bind runs a command when a key is pressed"})
		}
	}
}

// --- ImageMagick ---

// magickCoders are ImageMagick's input coders that run programs or read
// the files a script names.
var magickCoders = regexp.MustCompile(`(?i)^(msl|mvg|svg|msvg|text|ephemeral|label|caption|pango|ps|eps|pdf|epi|epsf|epsi|url|http|https|ftp|mpeg|show|win|x|vid|inline|@)[:]`)

// magickHandler: a file name |CMD makes ImageMagick run CMD; msl:,
// mvg:, text:@FILE and the PostScript delegates read other files or run
// programs.
func magickHandler(c *cmdRun) {
	for _, op := range c.ops {
		w := op.word
		switch {
		case !op.lit:
		case strings.HasPrefix(w, "|"):
			c.sh.parse(w[1:], c.depth+1)
		case magickCoders.MatchString(w) || strings.HasPrefix(w, "@"):
			if i := strings.IndexAny(w, ":@"); i >= 0 && i+1 < len(w) {
				c.pathEffect(EffRead, strings.TrimPrefix(w[i+1:], "@"), true, Effect{})
			}
			c.unknown(c.prog + " " + w + ": a coder that reads other files or runs programs")
		}
	}
}

// --- Mercurial and Subversion ---

// hgWriteHandler: hg's commands that change the working copy: revert,
// update -C, purge, strip and the like throw changes away.
func hgWriteHandler(c *cmdRun) {
	switch c.prefix[len(c.prefix)-1] {
	case "purge", "clean", "revert", "strip", "prune":
		if !c.has("-n", "--dry-run", "--print") {
			c.add(Effect{Kind: EffDelete, Path: c.base, What: "hg " + c.prefix[len(c.prefix)-1] + " throws changes away"})
		}
	case "update", "up", "checkout", "co":
		if c.has("-C", "--clean") {
			c.add(Effect{Kind: EffDelete, Path: c.base, What: "hg update --clean throws changes away"})
		}
	case "archive", "bundle", "init":
		if len(c.ops) > 0 {
			c.writePath(c.ops[len(c.ops)-1].word, c.ops[len(c.ops)-1].lit, Effect{})
		}
	}
}

// svnLocal are svn's commands that work on the working copy alone.
var svnLocal = map[string]bool{"status": true, "st": true, "stat": true, "diff": true, "di": true, "info": true, "cat": true,
	"proplist": true, "plist": true, "pl": true, "propget": true, "pget": true, "pg": true, "help": true, "?": true, "h": true,
	"add": true, "delete": true, "del": true, "remove": true, "rm": true, "copy": true, "cp": true, "move": true, "mv": true,
	"rename": true, "ren": true, "mkdir": true, "propset": true, "pset": true, "ps": true, "propdel": true, "pdel": true, "pd": true,
	"resolve": true, "resolved": true, "cleanup": true, "changelist": true, "cl": true, "patch": true, "upgrade": true, "revert": true,
	"blame": true, "praise": true, "annotate": true, "ann": true}

// svnHandler: svn reaches its server for everything but the working
// copy's own commands (status -u, and any operand that is a URL, reach
// it too); commit and import send; revert throws changes away.
func svnHandler(c *cmdRun) {
	sub := c.prefix[len(c.prefix)-1]
	remote := !svnLocal[sub] || c.has("-u", "--show-updates")
	for _, op := range c.ops {
		if strings.Contains(op.word, "://") || strings.HasPrefix(op.word, "^/") {
			remote = true
		}
	}
	if sub == "status" || sub == "st" || sub == "stat" || sub == "info" || sub == "diff" || sub == "di" || sub == "cat" || sub == "blame" {
		// With a revision, these ask the server.
		if c.has("-r", "--revision", "-c", "--change") {
			remote = true
		}
	}
	if remote {
		c.add(Effect{Kind: EffNetwork, What: "svn " + sub + " talks to the repository's server"})
	}
	switch sub {
	case "commit", "ci", "import", "lock", "unlock":
		c.add(Effect{Kind: EffUpload, What: "svn " + sub + " sends changes to the server"})
	case "revert":
		c.add(Effect{Kind: EffDelete, Path: c.base, What: "svn revert throws changes away"})
	case "cleanup":
		if c.has("--remove-unversioned", "--remove-ignored") {
			c.add(Effect{Kind: EffDelete, Path: c.base, What: "svn cleanup removes files"})
		}
	case "checkout", "co", "export":
		c.add(Effect{Kind: EffWrite, Path: c.base, What: "svn " + sub + " writes a working copy"})
	}
}

// --- fd -x ---

// fdPlaceholder matches fd's placeholders: {}, {/}, {//}, {.}, {/.}.
var fdPlaceholder = regexp.MustCompile(`\{(/|//|\.|/\.)?\}`)

// fdHandler: fd -x CMD (and -X) runs CMD on what it finds: the
// placeholders stand for the files found under the folders searched.
func fdHandler(c *cmdRun) {
	root, rootLit := ".", true
	if len(c.ops) > 1 {
		root, rootLit = c.ops[1].word, c.ops[1].lit
	}
	if v, ok := c.optVal("--base-directory"); ok {
		root = v
	}
	for _, o := range c.opts {
		if o.name != "-x" && o.name != "--exec" && o.name != "-X" && o.name != "--exec-batch" {
			continue
		}
		at := -1
		for i, w := range c.words {
			if w == o.name && c.lits[i] {
				at = i
				break
			}
		}
		if at < 0 || at+1 >= len(c.words) {
			c.unknown("fd " + o.name + " without a command")
			return
		}
		found := foundUnder(root, "")
		var words []string
		var lits []bool
		placed := false
		for i, w := range c.words[at+1:] {
			if w == ";" {
				break
			}
			if fdPlaceholder.MatchString(w) {
				w, placed = fdPlaceholder.ReplaceAllLiteralString(w, found), true
				lits = append(lits, rootLit && c.lits[at+1+i])
			} else {
				lits = append(lits, c.lits[at+1+i])
			}
			words = append(words, w)
		}
		if !placed {
			words, lits = append(words, found), append(lits, rootLit)
		}
		c.sh.call(words, lits, make([]bool, len(words)), nil, false, c.depth)
		return
	}
}

// --- php -d ---

// phpCodeSettings are php.ini settings that make PHP run or load other
// code, write where they say, or run a program.
var phpCodeSettings = map[string]bool{"auto_prepend_file": true, "auto_append_file": true, "extension": true, "zend_extension": true,
	"include_path": true, "error_log": true, "sendmail_path": true, "mail.log": true, "session.save_path": true, "disable_functions": true,
	"open_basedir": true, "user_ini.filename": true, "opcache.preload": true, "ffi.enable": true, "ffi.preload": true, "phar.readonly": true,
	"extension_dir": true, "xdebug.output_dir": true, "xdebug.log": true, "apc.preload_path": true}

// phpHandler is the interpreters' handler, and php -d NAME=VALUE: the
// settings that run or load code are code.
func phpHandler(c *cmdRun) {
	switch {
	case c.has("-S", "--server"):
		c.add(Effect{Kind: EffProject, What: "php -S serves the PHP files of the folder it runs in"})
	case !c.has("-l", "--syntax-check", "-s", "--syntax-highlight", "-w", "--strip", "-m", "--modules", "-i", "--info", "--ini",
		"--rf", "--rfunction", "--rc", "--rclass", "--re", "--rextension", "--rz", "--rzendextension", "--ri", "--rextinfo"):
		interpreterHandler(c)
	}
	for _, o := range c.opts {
		if o.name != "-d" && o.name != "--define" {
			continue
		}
		k, _, _ := strings.Cut(o.val, "=")
		if !o.lit || phpCodeSettings[strings.ToLower(strings.TrimSpace(k))] {
			c.add(Effect{Kind: EffExec, What: "php -d " + k + " makes PHP run or load other code"})
		}
	}
}

// --- deno ---

// denoRemote matches module specifiers that deno fetches.
var denoRemote = regexp.MustCompile(`^(https?://|npm:|jsr:|data:)`)

// denoHandler: deno run, install, compile and the like of a URL, npm:
// or jsr: module fetch it and run code that is not the project's.
func denoHandler(c *cmdRun) {
	buildDirHandler(c)
	for i, op := range c.ops {
		if i > 0 && len(c.prefix) > 1 && c.prefix[1] == "run" {
			break // the script's own arguments
		}
		if denoRemote.MatchString(op.word) {
			c.add(Effect{Kind: EffNetwork, What: "deno fetches " + op.word})
			c.add(Effect{Kind: EffExec, What: "deno runs " + op.word + ", which is not the project's code"})
			return
		}
	}
}

// --- a runner's exec subcommand ---

// execSubHandler: lerna exec and nx exec run the command after them (or
// after --) in each package.
func execSubHandler(c *cmdRun) {
	buildDirHandler(c)
	if len(c.ops) == 0 || c.ops[0].word != "exec" {
		return
	}
	start := c.ops[0].at + 1
	for i := start; i < len(c.words); i++ {
		if c.words[i] == "--" && c.lits[i] {
			start = i + 1
			break
		}
	}
	if start < len(c.words) {
		c.sh.call(c.words[start:], c.lits[start:], c.globs[start:], nil, false, c.depth)
	}
}

// --- kubectl get secret ---

// kubectlSecretsHandler is kubectl's handler, and what it does not see:
// get, describe and edit of secrets print their data.
func kubectlSecretsHandler(c *cmdRun) {
	kubectlHandler(c)
	if len(c.ops) < 2 {
		return
	}
	switch c.ops[0].word {
	case "get", "describe", "edit", "view-secret":
	default:
		return
	}
	for _, op := range c.ops[1:] {
		w := strings.ToLower(op.word)
		for _, kind := range strings.Split(w, ",") {
			kind, _, _ = strings.Cut(kind, "/")
			if kind == "secret" || kind == "secrets" || kind == "sealedsecrets" || strings.HasPrefix(kind, "secrets.") || kind == "all" && c.has("-o", "--output") {
				c.add(Effect{Kind: EffSecret, What: c.prog + " " + c.ops[0].word + " " + op.word + " prints secrets"})
				return
			}
		}
	}
}
