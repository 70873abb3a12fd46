package policy

import (
	"path"
	"strings"
)

// The handlers of build tools and package managers: npm, yarn, pip, poetry, bundler, gem, composer, go, cmake, the C compilers, and the folder a build runs in (policy/programs/build.toml).

// npmHandler: `npm config set` and `npm set` change where packages come
// from.
func npmHandler(c *cmdRun) {
	if len(c.prefix) > 1 && (c.prefix[1] == "config" || c.prefix[1] == "c") && len(c.ops) > 0 &&
		(c.ops[0].word == "set" || c.ops[0].word == "delete" || c.ops[0].word == "edit" || c.ops[0].word == "fix") ||
		len(c.prefix) > 1 && c.prefix[1] == "set" {
		c.add(Effect{Kind: EffPersist, Path: c.abs("~/.npmrc"), What: "npm config changes where packages come from"})
	}
}

// npmPkgHandler: npm pkg get only reads package.json; set, delete and fix
// edit it.
func npmPkgHandler(c *cmdRun) {
	if len(c.ops) == 0 || c.ops[0].word != "get" {
		c.add(Effect{Kind: EffWrite, Path: c.abs("package.json"), Edit: true})
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

// subWords says what a package manager's first word does: "run" runs
// the rest as a command of the project, "project" runs the project's
// code, "network" installs (fetching and running packages' scripts),
// "write" writes the project, "none" only looks.
type subWords map[string]string

var poetryWords = subWords{"run": "run", "install": "network", "add": "network", "update": "network", "lock": "network",
	"remove": "network", "sync": "network", "show": "none", "check": "none", "env": "none", "version": "none", "about": "none",
	"list": "none", "search": "network", "build": "write", "publish": "upload", "shell": "exec", "new": "write", "init": "write",
	"export": "write", "debug": "none", "source": "none", "self": "network", "cache": "none"}

var bundleWords = subWords{
	"add": "network", "binstubs": "write", "cache": "network", "check": "none", "clean": "write",
	"config": "none", "console": "exec", "doctor": "none", "exec": "run", "gem": "write", "info": "none",
	"init": "write", "install": "network", "licenses": "none", "list": "none", "lock": "network",
	"open": "exec", "outdated": "network", "package": "network", "platform": "none", "plugin": "network",
	"pristine": "network", "remove": "write", "show": "none", "update": "network", "viz": "write",
}

var gemWords = subWords{
	"build": "project", "check": "none", "cleanup": "write", "contents": "none", "dependency": "none",
	"env": "none", "environment": "none", "exec": "network", "fetch": "network", "help": "none", "info": "none",
	"install": "network", "list": "none", "lock": "none", "mirror": "network", "open": "exec",
	"outdated": "network", "owner": "upload", "pristine": "network", "push": "upload", "query": "none",
	"rdoc": "write", "rebuild": "project", "search": "network", "server": "network", "signin": "network",
	"signout": "none", "sources": "none", "specification": "none", "stale": "none", "uninstall": "write",
	"update": "network", "which": "none", "yank": "upload",
}

var composerWords = subWords{
	"about": "none", "archive": "write", "audit": "network", "browse": "exec", "bump": "write", "check": "none",
	"check-platform-reqs": "none", "clear-cache": "write", "clearcache": "write", "create-project": "network",
	"depends": "none", "diagnose": "none", "dump-autoload": "write", "exec": "run", "fund": "none",
	"global": "network", "help": "none", "home": "exec", "info": "none", "init": "write", "install": "network",
	"licenses": "none", "list": "none", "outdated": "network", "prohibits": "none", "reinstall": "network",
	"remove": "network", "require": "network", "run": "project", "run-script": "project", "search": "network",
	"self-update": "network", "selfupdate": "network", "show": "none", "status": "none", "suggests": "none",
	"test": "project", "update": "network", "validate": "none", "why": "none", "why-not": "none",
}

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

// jarHandler reads jar's mode: the letters of its first word (tf, xvf,
// cf) or the long options. t lists the archive, x extracts it into the
// folder, c and u write it; f names the archive. A -J option passes
// options to the JVM, which can load code: agate does not read them.
func jarHandler(c *cmdRun) {
	words, lits := c.words, c.lits
	if len(words) == 0 {
		return
	}
	var list, extract, write bool
	file, fileLit := "", true
	rest := 1
	switch w := words[0]; {
	case strings.HasPrefix(w, "-J"):
		c.unknown("jar " + w + " passes options to the JVM")
		return
	case strings.HasPrefix(w, "--"):
		rest = 0
	default:
		m := strings.TrimPrefix(w, "-")
		if m == "" || strings.Trim(m, "tvxcufm0eMPn") != "" {
			c.unknown("jar's mode " + w)
			return
		}
		list, extract, write = strings.ContainsRune(m, 't'), strings.ContainsRune(m, 'x'), strings.ContainsAny(m, "cu")
		if strings.ContainsRune(m, 'f') && len(words) > 1 {
			file, fileLit, rest = words[1], lits[1], 2
		}
	}
	for i := rest; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "-J"):
			c.unknown("jar " + w + " passes options to the JVM")
			return
		case w == "-t" || w == "--list":
			list = true
		case w == "-x" || w == "--extract":
			extract = true
		case w == "-c" || w == "--create" || w == "-u" || w == "--update":
			write = true
		case (w == "-f" || w == "--file") && i+1 < len(words):
			file, fileLit = words[i+1], lits[i+1]
			i++
		case strings.HasPrefix(w, "--file="):
			file, fileLit = strings.TrimPrefix(w, "--file="), lits[i]
		case w == "-C" && i+1 < len(words):
			c.pathEffect(EffRead, words[i+1], lits[i+1], Effect{Names: true})
			i++
		}
	}
	switch {
	case write:
		if file != "" {
			c.writePath(file, fileLit, Effect{})
		} else {
			c.unknown("jar writes an archive to its output")
		}
	case extract:
		if file != "" {
			c.pathEffect(EffRead, file, fileLit, Effect{})
		}
		c.writePath(".", true, Effect{})
	case list:
		if file != "" {
			c.pathEffect(EffRead, file, fileLit, Effect{})
		}
	default:
		c.unknown("jar's mode")
	}
}

// chmodHandler: a mode that lets every user write the files (o+w, 777,
// 666) changes who may change the project, and one that sets the setuid
// or setgid bit makes a program run with its owner's rights: neither is
// an ordinary edit.
func chmodHandler(c *cmdRun) {
	if len(c.ops) == 0 {
		return
	}
	mode := c.ops[0]
	if !mode.lit {
		c.unknown("chmod's mode is not known until it runs")
		return
	}
	world, setid := chmodBits(mode.word)
	if world {
		c.add(Effect{Kind: EffSystem, What: "chmod " + mode.word + " lets every user of the machine write the files"})
	}
	if setid {
		c.add(Effect{Kind: EffElevated, What: "chmod " + mode.word + " makes a program run with its owner's rights"})
	}
}

// chmodBits reads a chmod mode: whether it lets others write, whether it
// sets the setuid or setgid bit.
func chmodBits(m string) (world, setid bool) {
	if m != "" && strings.Trim(m, "01234567") == "" {
		if len(m) > 4 {
			return false, false
		}
		last := m[len(m)-1] - '0'
		world = last&2 != 0
		if len(m) == 4 {
			setid = (m[0]-'0')&6 != 0
		}
		return world, setid
	}
	for _, clause := range strings.Split(m, ",") {
		i := strings.IndexAny(clause, "+-=")
		if i < 0 {
			continue
		}
		who, op, perms := clause[:i], clause[i], clause[i+1:]
		if op == '-' {
			continue
		}
		if strings.ContainsAny(who, "oa") && strings.ContainsRune(perms, 'w') {
			world = true
		}
		if strings.ContainsRune(perms, 's') {
			setid = true
		}
	}
	return world, setid
}

// --- npx ---

// npxHandler: npx NAME (bunx NAME) runs the project's installed program
// when node_modules/.bin/NAME is in the project, in the folder it starts
// from or one above it: that is the project's own code, as npm run runs
// it, and nothing is downloaded. Otherwise, and with a package named
// (-p, NAME@VERSION, @scope/pkg, a path), a command string (-c) or
// --ignore-existing, it downloads and runs a package, as its entry says.
// A wrong guess runs confined, as the project's code does: a download
// meets the sandbox's closed network.
func npxHandler(c *cmdRun) {
	if c.prog != "npx" && c.prog != "bunx" || len(c.ops) == 0 || !c.ops[0].lit ||
		c.has("-p", "--package", "-c", "--call", "--ignore-existing", "-h", "--help", "-v", "--version") {
		return
	}
	name := c.ops[0].word
	if !npmBinName(name) || c.sh.files == nil {
		return
	}
	dir := c.base
	if dir == "" {
		dir = c.sh.cwd
	}
	for ; dir != "" && c.sh.inProject(dir); dir = path.Dir(dir) {
		bin := path.Join(dir, "node_modules", ".bin", name)
		switch c.sh.files(bin) {
		case FileAbsent:
			continue
		case FileUnknown:
			return // (beyond a link, or nobody can tell)
		}
		kept := c.effects[:0]
		for _, e := range c.effects {
			if e.Kind != EffNetwork && e.Kind != EffExec {
				kept = append(kept, e)
			}
		}
		c.effects = kept
		c.add(Effect{Kind: EffProject, Path: bin, What: c.prog + " " + name + " runs the project's installed " + name})
		return
	}
}

// npmBinName reports whether w is the plain name of a package's program
// (tsc, eslint, vite): no version, scope, path or option.
func npmBinName(w string) bool {
	if w == "" || len(w) > 214 || w[0] == '.' || w[0] == '-' || w[0] == '_' {
		return false
	}
	for _, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
		default:
			return false
		}
	}
	return true
}

// --- uv run ---

// uvRunHandler: uv run reaches the network only to make the project's
// environment. Where the project has one already (.venv/pyvenv.cfg beside
// the pyproject.toml found from where it starts, in the project), what it
// runs is the project's code in that environment, and nothing needs
// downloading; a sync it still wanted meets the sandbox's closed network.
// With a package or an interpreter to fetch (--with, --python), an
// environment of its own (--isolated, --script, --no-project), or no
// environment there, it reaches the network as its entry says.
func uvRunHandler(c *cmdRun) {
	buildDirHandler(c)
	if len(c.prefix) < 2 || c.prefix[1] != "run" || c.sh.files == nil ||
		c.has("--with", "--python", "-p", "--isolated", "--script", "--no-project") {
		return
	}
	dir := c.base
	if dir == "" {
		dir = c.sh.cwd
	}
	for ; dir != "" && c.sh.inProject(dir); dir = path.Dir(dir) {
		switch c.sh.files(path.Join(dir, "pyproject.toml")) {
		case FileAbsent:
			continue
		case FileUnknown:
			return
		}
		switch c.sh.files(path.Join(dir, ".venv", "pyvenv.cfg")) {
		case FileAbsent, FileUnknown:
			return
		}
		kept := c.effects[:0]
		for _, e := range c.effects {
			if e.Kind != EffNetwork {
				kept = append(kept, e)
			}
		}
		c.effects = kept
		return
	}
}
