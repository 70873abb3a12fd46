package policy

import (
	"strings"
)

// The handlers of wrappers that run a command: capsh, GNU parallel, and the commands after a leading operand (policy/programs/wrappers.toml).

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
	if parallelRepl().MatchString(line) {
		line = parallelRepl().ReplaceAllLiteralString(line, arg)
	} else {
		line += " " + arg
	}
	c.sh.parse(line, c.depth+1)
}

// parallelRepl matches parallel's replacement strings: {}, {.}, {/},
// {//}, {/.}, {#}, {%}, {1}, {2.}.
var parallelRepl = lazyRegexp(`\{[0-9]*(\.|/|//|/\.|#|%)?\}`)

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
