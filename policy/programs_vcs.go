package policy

import "strings"

// The handlers of Mercurial and Subversion (policy/programs/vcs.toml).

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
