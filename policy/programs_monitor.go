package policy

import "strings"

// The handlers of system monitors: getent, packet capture, ps (policy/programs/monitor.toml).

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

// --- ps ---

// psHandler: BSD-style ps letters with e (ps auxe, ps e) print the
// environment of every process, credentials included.
func psHandler(c *cmdRun) {
	for _, op := range c.ops {
		if !strings.HasPrefix(op.word, "-") && strings.ContainsRune(op.word, 'e') && identWord().MatchString(op.word) {
			c.add(Effect{Kind: EffSecret, What: "ps " + op.word + " prints the environment of processes"})
			return
		}
	}
}
