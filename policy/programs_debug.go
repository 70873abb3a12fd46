package policy

import "strings"

// The handlers of debuggers and tracers: strace's -o |CMD (policy/programs/debug.toml).

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
