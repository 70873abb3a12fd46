package policy

import "strings"

// The handlers of terminal programs that run a command (policy/programs/terminal.toml).

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

// --- a program's session ---

// noSubExecHandler: with no subcommand, the program starts an interactive
// session (tmux alone is tmux new-session).
func noSubExecHandler(c *cmdRun) {
	if len(c.prefix) == 1 && !c.has("-V", "--version", "-h", "--help") {
		c.add(Effect{Kind: EffExec, What: c.prog + " with no command starts an interactive session"})
	}
}
