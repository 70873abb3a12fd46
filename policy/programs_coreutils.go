package policy

import (
	"path"
	"strings"

	"github.com/agatehq/agate/policy/shellquote"
)

// The handlers of the everyday file and text tools: find, sed, awk, dd, tar, env, xargs, ln, jq, split, unzip, 7z, watch, fd (policy/programs/coreutils.toml).

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
var sedCommand = lazyRegexp(`(?:^|[;\n{}])\s*(?:[0-9$,~+]+|/[^/]*/[IM]*)?\s*!?\s*[ewWrR](?:\s|$|;)`)

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
			if sedSubstRunsOrWrites(s) || sedCommand().MatchString(s) || sedReaches(s) {
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
var awkEscapes = lazyRegexp(`\bsystem\s*\(|\|\s*getline|\bgetline\b[^;{}\n|]*<|\|&|\bprintf?\b[^;{}\n]*[>|]|\bENVIRON\b|\bfflush\b|\bclose\s*\(|@load|@include|@[A-Za-z_][A-Za-z_0-9]*\s*\(`)

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
	if awkEscapes().MatchString(prog) {
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
// lnHandler: what a command does through a link it made is judged where
// the link points. Each link's path maps to its target (shellCtx.links),
// and a later read, write or delete through it, a cd into it included,
// lands on the target; making a link is a read of what it points to (a
// link to a credential store is a secret read). What goes through a link
// to a path not known until it runs goes to a path agate cannot name.
func lnHandler(c *cmdRun) {
	var targets []operand
	dest, destLit, destDir := ".", true, false
	if d, ok := c.optVal("-t", "--target-directory"); ok {
		targets, dest, destDir = c.ops, d, true
		destLit = !strings.ContainsAny(d, "$`")
	} else {
		switch n := len(c.ops); n {
		case 0:
			return
		case 1:
			targets, destDir = c.ops, true
		default:
			targets, dest, destLit = c.ops[:n-1], c.ops[n-1].word, c.ops[n-1].lit
			destDir = n > 2 || strings.HasSuffix(dest, "/")
		}
	}
	destAbs := ""
	if destLit {
		destAbs = c.abs(dest)
	}
	symbolic, relative := c.has("-s", "--symbolic"), c.has("-r", "--relative")
	for _, t := range targets {
		to := ""
		if !t.lit {
			if rest, ok := strings.CutPrefix(t.word, "$HOME"); ok && !strings.ContainsAny(rest, "$`") {
				t.word, t.lit = "~"+rest, true
			}
		}
		if t.lit && destAbs != "" {
			from := c.base
			if symbolic && !relative {
				// A symbolic link's relative target is read from the
				// link's folder.
				from = destAbs
				if !destDir {
					from = path.Dir(destAbs)
				}
			}
			if from != "" || strings.HasPrefix(t.word, "/") || strings.HasPrefix(t.word, "~") {
				to = absPath(t.word, from, c.sh.home)
				if strings.HasPrefix(t.word, "~") && t.word != "~" && !strings.HasPrefix(t.word, "~/") {
					to = "" // ~user
				}
			}
		}
		if to == "" {
			c.sh.linked = true
			c.add(Effect{Kind: EffRead, What: c.prog + " links to a path not known until it runs: " + t.word})
		} else {
			c.add(Effect{Kind: EffRead, Path: to, What: c.prog + " links to " + t.word})
		}
		if destAbs == "" {
			continue
		}
		if c.sh.links == nil {
			c.sh.links = map[string]string{}
		}
		// DEST is the link, or, when it is a folder, DEST/NAME is: both,
		// where agate cannot tell which (-T says it is the link).
		if !destDir {
			c.sh.links[destAbs] = to
		}
		if destDir || !c.has("-T", "--no-target-directory") {
			c.sh.links[path.Join(destAbs, path.Base(t.word))] = to
		}
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

// --- fd -x ---

// fdPlaceholder matches fd's placeholders: {}, {/}, {//}, {.}, {/.}.
var fdPlaceholder = lazyRegexp(`\{(/|//|\.|/\.)?\}`)

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
			if fdPlaceholder().MatchString(w) {
				w, placed = fdPlaceholder().ReplaceAllLiteralString(w, found), true
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
