package policy

import (
	"path"
	"regexp"
	"strings"
)

// wrapper describes a command that runs another command: sudo, env,
// timeout... The analyser strips it and analyses the command it runs.
type wrapper struct {
	elevated bool
	withArg  string // short options that take an argument
	longArg  []string
	// positional arguments before the command (timeout's duration)
	positional int
	// inlineOpt is an option whose argument is a whole command line (su -c, env -S)
	inlineOpt string
	// code: the wrapper itself runs code in ways the analyser cannot see
	// (strace -e inject, systemd-run units): the call is inline code.
	code bool
}

var wrappers = map[string]wrapper{
	"sudo":        {elevated: true, withArg: "ugCDhprtUTc", longArg: []string{"--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--command-timeout", "--close-from"}},
	"doas":        {elevated: true, withArg: "uC"},
	"pkexec":      {elevated: true, longArg: []string{"--user"}},
	"run0":        {elevated: true, longArg: []string{"--user", "--group", "--chdir", "--unit", "--property", "--description", "--slice", "--nice", "--setenv"}},
	"su":          {elevated: true, withArg: "gGs", inlineOpt: "-c", longArg: []string{"--group", "--supp-group", "--shell", "--whitelist-environment"}},
	"env":         {withArg: "uCS", inlineOpt: "-S", longArg: []string{"--unset", "--chdir", "--split-string"}},
	"timeout":     {withArg: "sk", longArg: []string{"--signal", "--kill-after"}, positional: 1},
	"nice":        {withArg: "n", longArg: []string{"--adjustment"}},
	"nohup":       {},
	"xargs":       {withArg: "aEeIiLlnPsd", longArg: []string{"--arg-file", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--delimiter", "--process-slot-var"}},
	"command":     {},
	"builtin":     {},
	"exec":        {withArg: "a"},
	"time":        {withArg: "fo", longArg: []string{"--format", "--output"}},
	"stdbuf":      {withArg: "ioe", longArg: []string{"--input", "--output", "--error"}},
	"setsid":      {},
	"ionice":      {withArg: "cnpPuT", longArg: []string{"--class", "--classdata"}},
	"taskset":     {positional: 1},
	"unbuffer":    {},
	"chronic":     {},
	"caffeinate":  {withArg: "tw"},
	"flock":       {withArg: "wE", inlineOpt: "-c", positional: 1},
	"watch":       {withArg: "nd", longArg: []string{"--interval", "--differences"}},
	"strace":      {withArg: "eoOpPsuSXIbaE", code: true},
	"ltrace":      {withArg: "eoOpPsuSXIbaE", code: true},
	"unshare":     {withArg: "SGRw", longArg: []string{"--setuid", "--setgid", "--root", "--wd"}},
	"nsenter":     {withArg: "tSGrwa", elevated: true},
	"chroot":      {elevated: true, positional: 1},
	"systemd-run": {code: true, longArg: []string{"--unit", "--property", "--description", "--slice", "--uid", "--gid", "--nice", "--working-directory", "--setenv", "--on-calendar", "--on-active"}},
	"busybox":     {},
	"toybox":      {},
	"firejail":    {},
	"proxychains": {},
	"torsocks":    {},
}

// skip returns the index of the command a wrapper runs, the command line
// given as an option's argument, if any, and the variables it assigns
// (env NAME=value).
func (w wrapper) skip(words []string, i int) (int, string, []string) {
	inline := ""
	var assigned []string
	for i < len(words) {
		a := words[i]
		switch {
		case a == "--":
			return i + 1, inline, assigned
		case strings.HasPrefix(a, "--"):
			name, _, hasVal := strings.Cut(a, "=")
			i++
			if !hasVal {
				for _, l := range w.longArg {
					if l == name && i < len(words) {
						if (name == "--split-string") && inline == "" {
							inline = words[i]
						}
						i++
						break
					}
				}
			}
			continue
		case len(a) > 1 && a[0] == '-':
			i++
			// -n5 or -n 5: a trailing letter that takes an argument eats the next word.
			last := a[len(a)-1:]
			if w.inlineOpt != "" && a == w.inlineOpt && i < len(words) {
				inline = words[i]
				i++
				continue
			}
			if len(a) == 2 && strings.Contains(w.withArg, last) && i < len(words) {
				i++
			}
			continue
		case strings.Contains(a, "=") && isAssignment(a):
			// env NAME=value
			name, _, _ := strings.Cut(a, "=")
			assigned = append(assigned, name)
			i++
			continue
		}
		break
	}
	if w.positional > 0 && i < len(words) {
		// flock FILE -c CMD: options may follow the positional words too.
		rest := w
		rest.positional--
		i++
		return rest.skip2(words, i, inline, assigned)
	}
	return i, inline, assigned
}

// skip2 continues skip after a positional word, keeping what was found.
func (w wrapper) skip2(words []string, i int, inline string, assigned []string) (int, string, []string) {
	next, in2, as2 := w.skip(words, i)
	if in2 != "" {
		inline = in2
	}
	return next, inline, append(assigned, as2...)
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && validEnvName(name)
}

// split separates a command's options from its operands. withArg lists the
// short options that take an argument; "--" ends the options.
func split(args []string, lits []bool, withArg string) (flags []string, ops []string, opLits []bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			ops = append(ops, args[i+1:]...)
			opLits = append(opLits, lits[i+1:]...)
			return
		}
		if len(a) > 1 && a[0] == '-' && lits[i] {
			flags = append(flags, a)
			if len(a) == 2 && strings.ContainsRune(withArg, rune(a[1])) && i+1 < len(args) {
				i++
			}
			continue
		}
		ops = append(ops, a)
		opLits = append(opLits, lits[i])
	}
	return
}

// hasFlag reports whether a short flag letter (in a cluster such as -rf) or
// a long flag is among flags.
func hasFlag(flags []string, short string, long ...string) bool {
	for _, f := range flags {
		if strings.HasPrefix(f, "--") {
			name, _, _ := strings.Cut(f, "=")
			for _, l := range long {
				if name == l {
					return true
				}
			}
			continue
		}
		if short != "" && strings.ContainsAny(f[1:], short) {
			return true
		}
	}
	return false
}

// shells are interpreters of shell syntax: "-c STRING" is parsed in turn.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "busybox": false, "fish": true}

// interpreters run code; inlineFlags are the options that take code inline.
var interpreters = map[string][]string{
	"python": {"-c"}, "python2": {"-c"}, "python3": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
	"node": {"-e", "--eval", "-p", "--print"}, "nodejs": {"-e", "--eval", "-p", "--print"},
	"deno": {"eval"}, "bun": {"-e", "--eval", "-p", "--print"},
	"ruby": {"-e"}, "perl": {"-e", "-E"}, "php": {"-r"}, "lua": {"-e"}, "luajit": {"-e"},
	"Rscript": {"-e"}, "osascript": {"-e"}, "pwsh": {"-c", "-Command", "-EncodedCommand", "-e"},
	"powershell": {"-c", "-Command", "-EncodedCommand", "-e"}, "tclsh": {}, "wish": {},
	"jshell": {}, "irb": {}, "ghci": {}, "julia": {"-e"}, "elixir": {"-e"}, "erl": {"-eval"},
	"swift": {"-e"}, "scala": {"-e"},
}

// networkCmds always reach the network.
var networkCmds = map[string]bool{
	"curl": true, "wget": true, "nc": true, "ncat": true, "netcat": true, "socat": true, "ssh": true,
	"scp": true, "sftp": true, "ftp": true, "lftp": true, "telnet": true, "ping": true, "ping6": true,
	"dig": true, "nslookup": true, "host": true, "whois": true, "http": true, "https": true, "xh": true,
	"aria2c": true, "mosh": true, "gh": true, "aws": true, "gcloud": true, "gsutil": true, "az": true,
	"kubectl": true, "helm": true, "doctl": true, "flyctl": true, "heroku": true, "vercel": true,
	"netlify": true, "npx": true, "bunx": true, "pnpx": true, "uvx": true, "pipx": true,
	"traceroute": true, "tracepath": true, "mtr": true, "nmap": true, "openssl": false, "tailscale": true,
}

// subcommandNetwork lists package managers' and tools' subcommands that
// fetch from or publish to the network.
var subcommandNetwork = map[string][]string{
	"npm":             {"install", "i", "ci", "add", "update", "upgrade", "publish", "exec", "x", "create", "init", "login", "adduser", "dist-tag", "view", "info", "outdated", "audit", "unpublish", "deprecate", "pack"},
	"pnpm":            {"install", "i", "add", "update", "up", "publish", "dlx", "create", "outdated", "audit"},
	"yarn":            {"install", "add", "upgrade", "up", "publish", "dlx", "create", "npm", "outdated", "audit", ""},
	"bun":             {"install", "i", "add", "update", "publish", "x", "create", "upgrade"},
	"pip":             {"install", "download", "wheel", "search", "index"},
	"pip3":            {"install", "download", "wheel", "search", "index"},
	"uv":              {"add", "sync", "lock", "pip", "tool", "run", "python", "publish", "venv", "self"},
	"poetry":          {"install", "add", "update", "lock", "publish", "self"},
	"pipenv":          {"install", "update", "lock", "sync"},
	"conda":           {"install", "create", "update", "upgrade", "env", "search"},
	"mamba":           {"install", "create", "update", "upgrade", "env", "search"},
	"gem":             {"install", "update", "push", "fetch", "search"},
	"bundle":          {"install", "update", "add", "exec", "outdated", "lock"},
	"cargo":           {"install", "add", "update", "publish", "fetch", "search", "login", "yank", "owner"},
	"go":              {"get", "install", "mod"},
	"composer":        {"install", "update", "require", "create-project", "global"},
	"brew":            {"install", "upgrade", "update", "reinstall", "fetch", "tap", "search"},
	"apt":             {"install", "update", "upgrade", "full-upgrade", "dist-upgrade", "download", "source", "reinstall"},
	"apt-get":         {"install", "update", "upgrade", "dist-upgrade", "download", "source", "reinstall"},
	"dnf":             {"install", "update", "upgrade", "download", "reinstall", "makecache"},
	"yum":             {"install", "update", "upgrade", "download", "reinstall", "makecache"},
	"pacman":          {"-S", "-Sy", "-Syu", "-Syy", "-Su", "-Sw"},
	"apk":             {"add", "update", "upgrade", "fetch"},
	"snap":            {"install", "refresh"},
	"flatpak":         {"install", "update", "remote-add"},
	"docker":          {"pull", "push", "login", "run", "build", "buildx", "compose", "search", "create"},
	"podman":          {"pull", "push", "login", "run", "build", "search", "create"},
	"terraform":       {"init", "plan", "apply", "destroy", "import", "refresh", "login"},
	"rustup":          {"update", "install", "toolchain", "target", "component", "self"},
	"dotnet":          {"add", "restore", "tool", "new", "nuget", "workload"},
	"mvn":             {""},
	"gradle":          {""},
	"deno":            {"install", "add", "upgrade", "cache", "run"},
	"huggingface-cli": {"download", "upload", "login"},
}

// deleteCmds remove their operands.
var deleteCmds = map[string]bool{"rm": true, "rmdir": true, "unlink": true, "shred": true, "srm": true, "trash": true, "trash-put": true, "gio": false}

// writeAllCmds write (create or change) every operand.
var writeAllCmds = map[string]string{ // name -> short options taking an argument
	"touch": "rdt", "mkdir": "m", "truncate": "sor", "chmod": "", "chown": "", "chgrp": "", "tee": "",
	"mkfifo": "m", "mknod": "m", "setfacl": "mMxX", "chattr": "pv",
}

// copyCmds write their last operand (or the -t target).
var copyCmds = map[string]string{"cp": "St", "mv": "St", "install": "gmoSt", "ln": "St", "rsync": "efT", "scp": "cFiJlPSo"}

// disk formatting and partitioning: catastrophic.
var mkfsCmds = map[string]bool{"mkfs": true, "mke2fs": true, "mkswap": true, "wipefs": true, "mkdosfs": true, "mkntfs": true, "newfs": true}

// powerCmds switch the host off or restart it.
var powerCmds = map[string]bool{"shutdown": true, "reboot": true, "halt": true, "poweroff": true}

// classify adds what one command (after its wrappers) does to the analysis.
func (sh *shellCtx) classify(word, name string, args []string, lits []bool, stdinCode bool, depth int) {
	a := sh.a
	if sh.isSelf(word, name) {
		sh.guard("runs agate itself (" + word + "): an agent changes agate only through calls the gate can see")
		return
	}
	switch {
	case mkfsCmds[name] || strings.HasPrefix(name, "mkfs."):
		sh.guard(name + " formats a filesystem")
		return
	case powerCmds[name]:
		sh.guard(name + " powers off or restarts the host")
		return
	case (name == "init" || name == "telinit") && len(args) > 0 && (args[0] == "0" || args[0] == "6"):
		sh.guard(name + " " + args[0] + " powers off or restarts the host")
		return
	case name == "systemctl" || name == "loginctl":
		for _, x := range args {
			switch x {
			case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "rescue", "emergency", "soft-reboot":
				sh.guard(name + " " + x + " powers off or restarts the host")
				return
			}
		}
		a.risks = a.risks.With(Writes) // services are system state
		return
	}

	if shells[name] {
		sh.shell(name, args, lits, stdinCode, depth)
		return
	}
	if inline, ok := interpreters[name]; ok || strings.HasPrefix(name, "python3.") {
		sh.interpreter(name, inline, args, lits, stdinCode)
		return
	}

	switch name {
	case "cd", "pushd", "chdir":
		// Later relative paths are taken from the new folder; a folder not
		// known until it runs makes them unknown.
		target := "~"
		lit := true
		for j, x := range args {
			if !strings.HasPrefix(x, "-") || x == "-" {
				target, lit = x, lits[j]
				break
			}
		}
		switch {
		case !lit || target == "-" || (strings.HasPrefix(target, "~") && target != "~" && !strings.HasPrefix(target, "~/")):
			sh.cwd = ""
		case sh.cwd != "" || strings.HasPrefix(target, "/") || strings.HasPrefix(target, "~"):
			sh.cwd = absPath(target, sh.cwd, sh.home)
		}
		return
	case "popd":
		sh.cwd = ""
		return
	case "ln":
		// A link redirects later writes through it: what they reach is
		// not known from the text.
		a.risks = a.risks.With(Writes)
		a.dynWrite = true
		return
	case "gdb", "lldb", "vim", "vi", "nvim", "ex", "view", "emacs", "emacsclient", "parallel", "script",
		"expect", "tmux", "screen", "at", "batch", "nohup.sh", "dtach", "socat":
		// They run commands given to them (-ex, -c, :!, send-keys...).
		a.risks = a.risks.With(InlineCode)
		if name == "socat" {
			a.risks = a.risks.With(Network)
		}
		return
	case "sqlite3":
		for _, x := range args {
			if strings.Contains(x, ".shell") || strings.Contains(x, ".system") || strings.Contains(x, ".load") {
				a.risks = a.risks.With(InlineCode)
			}
			if strings.Contains(x, ".output") || strings.Contains(x, ".once") || strings.Contains(x, ".backup") || strings.Contains(x, ".save") {
				a.risks = a.risks.With(Writes)
				a.dynWrite = true
			}
		}
		return
	case "eval":
		for _, l := range lits {
			if !l {
				a.risks = a.risks.With(InlineCode)
				return
			}
		}
		sh.parse(strings.Join(args, " "), depth+1)
		return
	case "source", ".":
		return // runs a file of the project's; what it reads is checked below
	case "git":
		sh.git(args, lits)
		return
	case "find":
		sh.find(args, lits, depth)
		return
	case "sed":
		flags, ops, opLits := split(args, lits, "ef")
		if sedRunsOrWrites(args, flags, ops) {
			a.risks = a.risks.With(InlineCode).With(Writes)
			a.dynWrite = true
		}
		if hasFlag(flags, "i", "--in-place") {
			// The first operand is the script unless -e or -f gave it.
			if !hasFlag(flags, "ef", "--expression", "--file") && len(ops) > 0 {
				ops, opLits = ops[1:], opLits[1:]
			}
			sh.writesTo(ops, opLits)
		}
		return
	case "perl":
	case "awk", "gawk", "mawk", "nawk":
		for _, x := range args {
			if strings.Contains(x, "system(") || strings.Contains(x, "| getline") || strings.Contains(x, "|&") || strings.Contains(x, "print >") || strings.Contains(x, "printf >") {
				a.risks = a.risks.With(InlineCode)
			}
		}
		return
	case "dd":
		for _, x := range args {
			if t, ok := strings.CutPrefix(x, "of="); ok {
				if isDiskDevice(t) {
					sh.guard("dd writes onto the disk device " + t)
					return
				}
				sh.writeTarget(t, true)
			}
		}
		return
	case "curl":
		a.risks = a.risks.With(Network)
		flags, _, _ := split(args, lits, "odHXuAeFTbcKrwxyzEm")
		if hasFlag(flags, "oO", "--output", "--remote-name", "--remote-name-all") {
			a.risks = a.risks.With(Writes)
			a.dynWrite = true
		}
		return
	case "wget":
		a.risks = a.risks.With(Network).With(Writes)
		a.dynWrite = true
		return
	case "rsync":
		for i, x := range args {
			if lits[i] && strings.Contains(x, ":") && !strings.HasPrefix(x, "-") {
				a.risks = a.risks.With(Network)
			}
		}
		if hasFlag(args, "", "--delete", "--delete-before", "--delete-after", "--delete-during", "--remove-source-files") {
			a.risks = a.risks.With(Deletes)
		}
	case "tar":
		if len(args) > 0 && (strings.ContainsAny(strings.TrimPrefix(args[0], "-"), "xc") || hasFlag(args, "", "--extract", "--create")) {
			a.risks = a.risks.With(Writes)
			a.dynWrite = true
		}
		return
	case "unzip", "7z", "gunzip", "bunzip2", "unxz", "patch", "zip", "gzip":
		a.risks = a.risks.With(Writes)
		a.dynWrite = true
		return
	case "sort":
		flags, _, _ := split(args, lits, "okStT")
		for i := 0; i < len(args); i++ {
			if args[i] == "-o" && i+1 < len(args) {
				sh.writeTarget(args[i+1], lits[i+1])
			} else if t, ok := strings.CutPrefix(args[i], "--output="); ok {
				sh.writeTarget(t, lits[i])
			}
		}
		_ = flags
		return
	case "kill", "pkill", "killall":
		for _, x := range args {
			if x == "1" || x == "-1" {
				sh.guard(name + " " + x + " signals init or every process")
				return
			}
		}
		return
	case "crontab":
		a.risks = a.risks.With(Writes)
		a.dynWrite = true
		return
	}

	if networkCmds[name] {
		a.risks = a.risks.With(Network)
	}
	if subs, ok := subcommandNetwork[name]; ok {
		sub := firstOperand(args)
		for _, s := range subs {
			if s == sub || s == "" {
				a.risks = a.risks.With(Network)
				break
			}
		}
		if name == "docker" || name == "podman" {
			a.risks = a.risks.With(Elevated) // the daemon runs as root
		}
	}
	if deleteCmds[name] {
		flags, ops, opLits := split(args, lits, "")
		recursive := name == "rm" && hasFlag(flags, "rR", "--recursive") || name == "shred"
		for i, t := range ops {
			if recursive && sh.catastrophic(t, opLits[i]) {
				sh.guard(name + " " + strings.Join(args, " ") + " deletes " + t + " recursively")
				return
			}
		}
		sh.deletes(ops, opLits)
		return
	}
	if withArg, ok := writeAllCmds[name]; ok {
		_, ops, opLits := split(args, lits, withArg)
		switch name {
		case "chmod", "chown", "chgrp", "setfacl", "chattr":
			if len(ops) > 0 {
				ops, opLits = ops[1:], opLits[1:] // the mode or owner
			}
		}
		for _, t := range ops {
			if isDiskDevice(t) {
				sh.guard(name + " writes onto the disk device " + t)
				return
			}
		}
		sh.writesTo(ops, opLits)
		return
	}
	if withArg, ok := copyCmds[name]; ok {
		flags, ops, opLits := split(args, lits, withArg)
		target := -1
		for i := 0; i < len(args); i++ {
			if (args[i] == "-t" || args[i] == "--target-directory") && i+1 < len(args) {
				sh.writeTarget(args[i+1], lits[i+1])
				target = i
			}
		}
		if target < 0 && len(ops) > 0 {
			last := len(ops) - 1
			if isDiskDevice(ops[last]) {
				sh.guard(name + " writes onto the disk device " + ops[last])
				return
			}
			if name == "mv" {
				// the sources change too: they move away
				sh.writesTo(ops, opLits)
			} else {
				sh.writeTarget(ops[last], opLits[last])
			}
		}
		_ = flags
		return
	}
}

// isSelf reports whether a command runs agate.
func (sh *shellCtx) isSelf(word, name string) bool {
	if name == "agate" || name == "agate-cli" {
		return true
	}
	for _, s := range sh.self {
		if s != "" && (word == s || name == path.Base(s)) {
			return true
		}
	}
	return false
}

// shell handles sh/bash/...: -c STRING is parsed in turn; no script means
// the program comes from stdin.
func (sh *shellCtx) shell(name string, args []string, lits []bool, stdinCode bool, depth int) {
	for i := 0; i < len(args); i++ {
		x := args[i]
		if x == "-c" || (len(x) > 1 && x[0] == '-' && x[1] != '-' && strings.Contains(x, "c")) {
			if i+1 >= len(args) {
				sh.fail(errNoCommand)
				return
			}
			if !lits[i+1] {
				sh.a.risks = sh.a.risks.With(InlineCode)
				return
			}
			sh.parse(args[i+1], depth+1)
			return
		}
		if x == "-s" || x == "-" {
			sh.a.risks = sh.a.risks.With(InlineCode)
			return
		}
		if strings.HasPrefix(x, "-") || strings.HasPrefix(x, "+") {
			if x == "-o" || x == "+o" || x == "-O" || x == "+O" {
				i++
			}
			continue
		}
		return // a script file: it runs like any program of the project
	}
	// No script and no -c: the shell reads its program from stdin, a pipe
	// or a here-document (curl x | sh).
	sh.a.risks = sh.a.risks.With(InlineCode)
}

// interpreter handles python, node, ruby...: inline code, or a program
// read from stdin, is inline code.
func (sh *shellCtx) interpreter(name string, inline []string, args []string, lits []bool, stdinCode bool) {
	for i, x := range args {
		for _, f := range inline {
			if x == f || (len(f) == 2 && strings.HasPrefix(x, f) && !strings.HasPrefix(x, "--")) {
				sh.a.risks = sh.a.risks.With(InlineCode)
				return
			}
		}
		if name == "perl" && strings.HasPrefix(x, "-") && !strings.HasPrefix(x, "--") && strings.ContainsAny(x[1:], "eE") {
			sh.a.risks = sh.a.risks.With(InlineCode)
			return
		}
		if strings.HasPrefix(name, "python") || name == "pypy" || name == "pypy3" {
			if x == "-m" && i+1 < len(args) {
				switch args[i+1] {
				case "pip", "ensurepip", "http.server", "venv", "pipx", "uv":
					if args[i+1] != "venv" {
						sh.a.risks = sh.a.risks.With(Network)
					}
				}
				return
			}
		}
		if x == "-" {
			sh.a.risks = sh.a.risks.With(InlineCode)
			return
		}
		if !strings.HasPrefix(x, "-") {
			return // a script file
		}
		if x == "--version" || x == "-V" || x == "--help" || x == "-h" {
			return
		}
	}
	// No script: the program comes from stdin (a pipe or a here-document),
	// or an interactive interpreter starts.
	sh.a.risks = sh.a.risks.With(InlineCode)
}

// git classifies git subcommands.
func (sh *shellCtx) git(args []string, lits []bool) {
	a := sh.a
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path":
			i++
		}
		i++
	}
	if i >= len(args) {
		return
	}
	for _, x := range args[:i] {
		if x == "-c" || strings.HasPrefix(x, "--config-env") || strings.HasPrefix(x, "--exec-path") {
			// Config from the command line can set a pager, an alias to a
			// shell command, hooks or an ssh command.
			a.risks = a.risks.With(InlineCode)
		}
	}
	sub, rest := args[i], args[i+1:]
	for _, x := range rest {
		switch {
		case x == "--exec" || x == "-x" && sub == "rebase" || strings.HasPrefix(x, "--exec="),
			strings.HasPrefix(x, "--open-files-in-pager"), x == "-O" && sub == "grep",
			strings.HasPrefix(x, "--extcmd"), strings.HasPrefix(x, "--tool"), strings.HasPrefix(x, "--upload-pack"),
			strings.HasPrefix(x, "--receive-pack"), strings.HasPrefix(x, "--exec-path"):
			a.risks = a.risks.With(InlineCode)
		case strings.HasPrefix(x, "--output=") || x == "--output" || (x == "-o" && (sub == "log" || sub == "diff" || sub == "show" || sub == "format-patch")):
			a.risks = a.risks.With(Writes)
			a.dynWrite = true
		}
	}
	switch sub {
	case "difftool", "mergetool", "filter-branch", "filter-repo":
		a.risks = a.risks.With(InlineCode)
	case "bisect":
		if len(rest) > 0 && rest[0] == "run" {
			a.risks = a.risks.With(InlineCode)
		}
	}
	switch sub {
	case "push", "pull", "fetch", "clone", "ls-remote", "archive", "request-pull", "send-email", "svn", "p4":
		a.risks = a.risks.With(Network)
		if sub == "push" && hasFlag(rest, "f", "--force", "--force-with-lease", "--delete", "--mirror", "--prune") {
			a.risks = a.risks.With(Deletes)
		}
		if sub == "pull" || sub == "clone" {
			a.risks = a.risks.With(Writes)
			a.dynWrite = true
		}
	case "submodule":
		if len(rest) > 0 && (rest[0] == "update" || rest[0] == "add" || rest[0] == "sync" || rest[0] == "foreach") {
			a.risks = a.risks.With(Network)
		}
		if len(rest) > 0 && rest[0] == "foreach" {
			a.risks = a.risks.With(InlineCode)
		}
	case "remote":
		if len(rest) > 0 && (rest[0] == "update" || rest[0] == "prune" || rest[0] == "show") {
			a.risks = a.risks.With(Network)
		}
	case "clean", "rm":
		a.risks = a.risks.With(Deletes)
	case "reset":
		if hasFlag(rest, "", "--hard", "--merge", "--keep") {
			a.risks = a.risks.With(Deletes)
		}
	case "checkout":
		for _, x := range rest {
			if x == "--" || x == "." || x == "-f" || x == "--force" {
				a.risks = a.risks.With(Deletes)
			}
		}
	case "restore":
		if !hasFlag(rest, "", "--staged") || hasFlag(rest, "W", "--worktree") {
			a.risks = a.risks.With(Deletes)
		}
	case "stash":
		if len(rest) > 0 && (rest[0] == "drop" || rest[0] == "clear") {
			a.risks = a.risks.With(Deletes)
		}
	case "branch", "tag":
		if hasFlag(rest, "dD", "--delete") {
			a.risks = a.risks.With(Deletes)
		}
	case "filter-branch", "filter-repo", "reflog", "gc", "prune", "update-ref", "replace":
		a.risks = a.risks.With(Deletes)
	case "config":
		if hasFlag(rest, "l", "--list", "--get", "--get-all", "--get-regexp", "--show-origin", "--show-scope") || len(nonFlags(rest)) < 2 {
			return
		}
		if hasFlag(rest, "", "--global") {
			sh.writeTarget("~/.gitconfig", true)
		} else if hasFlag(rest, "", "--system") {
			sh.writeTarget("/etc/gitconfig", true)
		} else {
			sh.writeTarget(".git/config", true)
		}
	case "apply", "am":
		a.risks = a.risks.With(Writes)
		a.dynWrite = true
	case "hook":
		a.risks = a.risks.With(InlineCode)
	}
}

func nonFlags(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

func firstOperand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-S" || strings.HasPrefix(a, "-S") {
			return a
		}
	}
	return ""
}

// find: -delete deletes, -exec/-execdir/-ok run a command (analysed in
// turn), -fprint writes.
func (sh *shellCtx) find(args []string, lits []bool, depth int) {
	var roots []string
	var rootLits []bool
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		roots, rootLits = append(roots, args[i]), append(rootLits, lits[i])
		i++
	}
	if len(roots) == 0 {
		roots, rootLits = []string{"."}, []bool{true}
	}
	for ; i < len(args); i++ {
		switch args[i] {
		case "-delete":
			for j, r := range roots {
				if sh.catastrophic(r, rootLits[j]) {
					sh.guard("find " + r + " -delete deletes " + r + " recursively")
					return
				}
			}
			sh.deletes(roots, rootLits)
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
					if w == "{}" && len(roots) > 0 {
						sub[k], subLits[k] = strings.TrimRight(roots[0], "/")+"/*", rootLits[0]
					}
				}
				sh.call(sub, subLits, make([]bool, len(sub)), nil, false, depth)
			}
			i = j
		case "-fprint", "-fprintf", "-fprint0", "-fls":
			if i+1 < len(args) {
				sh.writeTarget(args[i+1], lits[i+1])
			}
		}
	}
}

// systemPaths are the folders whose recursive delete is a guardrail.
var systemPaths = map[string]bool{
	"/": true, "/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true,
	"/lib32": true, "/lib64": true, "/libx32": true, "/media": true, "/mnt": true, "/opt": true,
	"/proc": true, "/root": true, "/run": true, "/sbin": true, "/snap": true, "/srv": true, "/sys": true,
	"/usr": true, "/var": true, "/Users": true, "/System": true, "/Library": true, "/Applications": true,
	"/private": true, "/Volumes": true, "/cores": true, "/nix": true,
	"/usr/bin": true, "/usr/sbin": true, "/usr/lib": true, "/usr/lib64": true, "/usr/local": true,
	"/usr/share": true, "/usr/include": true, "/usr/libexec": true, "/var/lib": true, "/var/log": true,
	"/var/db": true, "/etc/ssh": true, "/etc/systemd": true, "/private/etc": true, "/private/var": true,
}

// catastrophic reports whether a recursive delete of target would destroy
// the system or the home folder: /, ~, $HOME, a system path, or "*" run in
// one of those.
func (sh *shellCtx) catastrophic(target string, lit bool) bool {
	t := target
	for {
		switch {
		case strings.HasSuffix(t, "/*"):
			t = strings.TrimSuffix(t, "/*")
		case strings.HasSuffix(t, "/."):
			t = strings.TrimSuffix(t, "/.")
		case len(t) > 1 && strings.HasSuffix(t, "/"):
			t = strings.TrimSuffix(t, "/")
		default:
			goto done
		}
	}
done:
	switch t {
	case "", "/", "~", "$HOME", "${HOME}", "/*", "~/", "$HOME/", ".*":
		return true
	case "*", ".", "./", "./*":
		d := path.Clean(sh.cwd)
		return sh.cwd != "" && (d == "/" || d == path.Clean(sh.home) || systemPaths[d])
	}
	if !lit {
		return t == "$HOME" || strings.HasPrefix(t, "$HOME/*")
	}
	if strings.HasPrefix(t, "/") {
		return systemPaths[path.Clean(t)]
	}
	if strings.HasPrefix(t, "~/") && sh.home != "" {
		return path.Clean(sh.home+t[1:]) == path.Clean(sh.home)
	}
	return false
}

// isDiskDevice reports whether p names a block device holding a disk or a
// partition.
func isDiskDevice(p string) bool {
	d, ok := strings.CutPrefix(p, "/dev/")
	if !ok {
		return false
	}
	for _, pre := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "nbd", "loop", "sr", "fd0", "zd", "mtdblock"} {
		if strings.HasPrefix(d, pre) && len(d) > len(pre)-1 {
			return true
		}
	}
	return false
}

// sedRunsOrWrites reports whether a sed script runs commands (the e
// command, the s///e flag) or writes files (w, W, s///w).
func sedRunsOrWrites(args, flags, ops []string) bool {
	var scripts []string
	for i := 0; i < len(args); i++ {
		if (args[i] == "-e" || args[i] == "--expression") && i+1 < len(args) {
			scripts = append(scripts, args[i+1])
		} else if v, ok := strings.CutPrefix(args[i], "--expression="); ok {
			scripts = append(scripts, v)
		}
	}
	if len(scripts) == 0 && len(ops) > 0 && !hasFlag(flags, "f", "--file") {
		scripts = append(scripts, ops[0])
	}
	if hasFlag(flags, "f", "--file") {
		return true // a script from a file: not known
	}
	for _, sc := range scripts {
		if sedSubstRunsOrWrites(sc) || sedCommand.MatchString(sc) {
			return true
		}
	}
	return false
}

// sedCommand matches e, w or W used as a command, after an optional
// address.
var sedCommand = regexp.MustCompile(`(?:^|[;\n{}])\s*(?:[0-9$,]+|/[^/]*/)?\s*!?\s*[ewW](?:\s|$|;)`)

// sedSubstRunsOrWrites reports whether an s command in script has the e
// or w flag: s/a/b/e runs the pattern space as a command, s/a/b/w f
// writes f. Any delimiter, escapes honoured.
func sedSubstRunsOrWrites(script string) bool {
	for i := 0; i+1 < len(script); i++ {
		if script[i] != 's' || (i > 0 && isTokenByte(script[i-1])) {
			continue
		}
		d := script[i+1]
		if d == '\\' || d == '\n' || d == ' ' || isTokenByte(d) {
			continue
		}
		j, parts := i+2, 0
		for j < len(script) && parts < 2 {
			switch script[j] {
			case '\\':
				j++
			case d:
				parts++
			}
			j++
		}
		if parts < 2 {
			continue
		}
		for ; j < len(script); j++ {
			c := script[j]
			if c == 'e' || c == 'w' || c == 'W' {
				return true
			}
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				break
			}
		}
		i = j - 1
	}
	return false
}
