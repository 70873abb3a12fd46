package policy

import "strings"

// The handlers of the shell's builtins: command, eval, source, trap, set, read, printf, kill (policy/programs/builtins.toml).

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
			c.add(Effect{Kind: EffExec, What: "read " + varWhy(op.word)})
		}
	}
}
