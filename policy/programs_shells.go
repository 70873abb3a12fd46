package policy

import (
	"strings"
)

// The handlers of shells and interpreters: sh and bash -c, python, node and the rest with no script, php -d, deno (policy/programs/shells.toml).

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
var denoRemote = lazyRegexp(`^(https?://|npm:|jsr:|data:)`)

// denoHandler: deno run, install, compile and the like of a URL, npm:
// or jsr: module fetch it and run code that is not the project's.
func denoHandler(c *cmdRun) {
	buildDirHandler(c)
	for i, op := range c.ops {
		if i > 0 && len(c.prefix) > 1 && c.prefix[1] == "run" {
			break // the script's own arguments
		}
		if denoRemote().MatchString(op.word) {
			c.add(Effect{Kind: EffNetwork, What: "deno fetches " + op.word})
			c.add(Effect{Kind: EffExec, What: "deno runs " + op.word + ", which is not the project's code"})
			return
		}
	}
}
