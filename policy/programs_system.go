package policy

import (
	"path"
	"strings"
)

// The handlers of system administration: crontab, systemctl, service, at, ip and the network and kernel tools, mount, the package managers, docker, sqlite, gpg, sysctl (policy/programs/system.toml).

// crontabHandler: crontab -l reads; anything else installs jobs.
func crontabHandler(c *cmdRun) {
	if c.has("-l") && !c.has("-e", "-r") && len(c.ops) == 0 {
		return
	}
	c.add(Effect{Kind: EffPersist, What: "crontab changes the jobs cron runs"})
}

// systemctlHandler: the units that matter are agate's own.
func systemctlHandler(c *cmdRun) {
	for _, op := range c.ops {
		if strings.HasPrefix(op.word, "agate") {
			c.add(Effect{Kind: EffPersist, What: "systemctl " + strings.Join(c.prefix[1:], " ") + " " + op.word + " touches agate itself"})
		}
	}
}

func hasWord(words []string, set ...string) (string, bool) {
	for _, w := range words {
		for _, s := range set {
			if w == s {
				return w, true
			}
		}
	}
	return "", false
}

func serviceHandler(c *cmdRun) {
	if c.has("--status-all") {
		return
	}
	if len(c.ops) >= 2 && c.ops[1].word == "status" {
		return
	}
	c.add(Effect{Kind: EffSystem, What: "service starts, stops or changes a service"})
}

func atHandler(c *cmdRun) {
	if c.prog == "atq" || c.has("-l") || c.has("-c") && c.prog == "at" {
		return
	}
	if c.prog == "atrm" || c.has("-r", "-d") {
		c.add(Effect{Kind: EffSystem, What: "atrm removes a job"})
		return
	}
	c.add(Effect{Kind: EffPersist, What: c.prog + " runs commands later"})
}

// ipChanges are the words that make network and kernel tools change
// something.
var ipChanges = []string{"set", "add", "del", "delete", "flush", "change", "replace", "append", "insert", "up", "down",
	"-w", "--write", "-A", "-D", "-I", "-F", "-X", "-N", "-P", "-Z", "-R", "--append", "--delete", "--insert", "--flush",
	"enable", "disable", "allow", "deny", "reject", "limit", "reset", "reload", "--add-service", "--remove-service",
	"--add-port", "--remove-port", "--permanent", "-s", "--change", "-p", "--load"}

// netAdminHandler reads the network, firewall and kernel tools of
// system.toml's "ip" entries (route, iptables, ufw, modprobe, hwclock,
// setcap, ...): the words that make them change something.
func netAdminHandler(c *cmdRun) {
	switch c.prog {
	case "modprobe", "rmmod", "insmod", "swapon", "swapoff", "setcap":
		if _, ok := hasWord(c.words, "-l", "--list", "--show", "-s", "--help", "-h", "--version", "-V", "--show-depends", "-n", "--dry-run"); ok && c.prog != "setcap" {
			return
		}
		c.add(Effect{Kind: EffSystem, What: c.prog + " changes the kernel or devices"})
		return
	case "hwclock":
		if _, ok := hasWord(c.words, "-w", "--systohc", "-s", "--hctosys", "--set"); ok {
			c.add(Effect{Kind: EffSystem, What: "hwclock sets the clock"})
		}
		return
	case "ifconfig", "route":
		if len(c.ops) > 1 {
			c.add(Effect{Kind: EffSystem, What: c.prog + " changes the network"})
		}
		return
	}
	if w, ok := hasWord(c.words, ipChanges...); ok {
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + w + " changes the network or the firewall"})
	}
}

func mountHandler(c *cmdRun) {
	if len(c.ops) == 0 && c.prog == "mount" {
		return // mount with no operands lists what is mounted
	}
	if _, ok := hasWord(c.words, "-l", "--list", "status", "list", "show", "info", "-n", "--dry-run", "--help", "-h", "--version", "-V", "df", "usage"); ok {
		return
	}
	c.add(Effect{Kind: EffSystem, What: c.prog + " changes disks and file systems"})
	c.add(Effect{Kind: EffElevated, What: c.prog})
}

// pkgReads are the package managers' commands that only look.
var pkgReads = map[string]bool{"list": true, "search": true, "show": true, "policy": true, "depends": true, "rdepends": true,
	"info": true, "repolist": true, "provides": true, "whatprovides": true, "query": true, "deps": true, "outdated": true,
	"config": true, "doctor": true, "leaves": true, "uses": true, "desc": true, "home": true, "find": true, "changelog": true,
	"-l": true, "-L": true, "-s": true, "-S": true, "--list": true, "--status": true, "--search": true, "--listfiles": true,
	"-q": true, "-qa": true, "-qi": true, "-ql": true, "-qf": true, "-Q": true, "-Qi": true, "-Ql": true, "-Qs": true,
	"-Ss": true, "-Si": true, "--version": true, "-v": true, "-V": true, "--help": true, "-h": true, "help": true,
	"check-update": true, "list-installed": true, "madison": true, "download": false, "print-architecture": true,
	"--print-architecture": true, "--get-selections": true, "-W": true, "--show": true, "-p": true, "--print-avail": true}

func pkgmgrHandler(c *cmdRun) {
	if len(c.words) == 0 {
		return
	}
	first := c.words[0]
	if pkgReads[first] && !(c.prog == "pacman" && strings.HasPrefix(first, "-S") && first != "-Ss" && first != "-Si") {
		c.prefix = append(c.prefix, first)
		return
	}
	c.prefix = append(c.prefix, first)
	if c.prog == "dpkg" && (first == "-i" || first == "--install") {
		for _, op := range c.ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
	} else if c.prog != "dpkg" && c.prog != "rpm" {
		c.add(Effect{Kind: EffNetwork, What: c.prog + " " + first})
	}
	c.add(Effect{Kind: EffExec, What: c.prog + " " + first + " runs the packages' install scripts"})
	c.add(Effect{Kind: EffSystem, What: c.prog + " " + first + " changes the installed software"})
	if c.prog != "brew" && c.prog != "nix-env" && c.prog != "flatpak" {
		c.add(Effect{Kind: EffElevated, What: c.prog + " installs for the whole system"})
	}
}

// dockerReads only look at containers and images.
var dockerReads = map[string]bool{"ps": true, "images": true, "logs": true, "inspect": true, "version": true, "info": true,
	"stats": true, "top": true, "port": true, "diff": true, "history": true, "events": true, "ls": true, "config": true,
	"context": true, "search": true, "--version": true, "-v": true, "--help": true, "help": true, "list": true, "show": true,
	"df": true, "ps-all": true}

// dockerRemoves throw containers, images or volumes away.
var dockerRemoves = map[string]bool{"rm": true, "rmi": true, "prune": true, "down": true, "remove": true, "delete": true}

// dockerStops change running containers.
var dockerStops = map[string]bool{"stop": true, "kill": true, "pause": true, "unpause": true, "restart": true, "update": true,
	"rename": true, "wait": true, "tag": true}

// dockerFormatNoEnv reports whether docker inspect is given a --format
// that prints no environment: one that names neither Env nor the whole
// Config, nor the whole object.
func dockerFormatNoEnv(words []string) bool {
	format := ""
	for i, w := range words {
		switch {
		case (w == "--format" || w == "-f") && i+1 < len(words):
			format = words[i+1]
		case strings.HasPrefix(w, "--format="):
			format = strings.TrimPrefix(w, "--format=")
		}
	}
	f := strings.ToLower(strings.Join(strings.Fields(format), ""))
	return f != "" && !strings.Contains(f, "env") && !strings.Contains(f, ".config}}") &&
		!strings.Contains(f, "{{.}}") && !strings.Contains(f, "{{json.}}") && !strings.Contains(f, "{{printf") && strings.Contains(f, "{{")
}

// dockerElsewhere are the global options of docker, podman and their
// kin that send the command to another daemon (-H ssh://host, --context,
// --url) or read another client config, whose credential helpers run.
var dockerElsewhere = []string{"-H", "--host", "--context", "-c", "--config", "--url", "--connection", "--remote",
	"-r", "--identity", "--tls", "--tlsverify", "--tlscacert", "--tlscert", "--tlskey", "--address", "-a"}

func dockerHandler(c *cmdRun) {
	for i, w := range c.words {
		if !c.lits[i] || !strings.HasPrefix(w, "-") {
			break // the first operand ends the global options
		}
		name, _, _ := strings.Cut(w, "=")
		for _, e := range dockerElsewhere {
			if name == e || len(e) == 2 && strings.HasPrefix(w, e) {
				c.add(Effect{Kind: EffNetwork, What: c.prog + " " + name + " sends the command to a daemon it names"})
			}
		}
		if w == "--" {
			break
		}
	}
	var verbs []string
	for _, op := range c.ops {
		verbs = append(verbs, op.word)
		if len(verbs) == 2 {
			break
		}
	}
	if len(verbs) == 0 {
		return
	}
	verb := verbs[0]
	// docker image ls, docker container rm, docker compose up: the second word says.
	switch verb {
	case "image", "container", "volume", "network", "system", "compose", "builder", "buildx", "context", "plugin", "manifest", "trust", "machine", "pod":
		if len(verbs) > 1 {
			verb = verbs[1]
		}
	}
	c.prefix = append(c.prefix, verbs...)
	switch {
	case verb == "inspect" && !dockerFormatNoEnv(c.words):
		c.add(Effect{Kind: EffSecret, What: c.prog + " inspect prints the container's environment, where its secrets are"})
	case verb == "config" && (verbs[0] == "compose" || strings.HasSuffix(c.prog, "compose")):
		c.add(Effect{Kind: EffSecret, What: c.prog + " config prints the compose file with the values it takes from .env filled in"})
	case dockerReads[verb]:
	case dockerRemoves[verb]:
		c.add(Effect{Kind: EffDelete, What: c.prog + " " + strings.Join(verbs, " ") + " throws containers, images or volumes away"})
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + strings.Join(verbs, " ")})
	case dockerStops[verb]:
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + strings.Join(verbs, " ") + " changes running containers"})
	case verb == "exec" && verbs[0] == "exec":
		c.add(Effect{Kind: EffElevated, What: c.prog + " runs containers through a daemon with root's privileges"})
		c.containerCommand(c.prog+" exec", dockerExecSkip(c))
	case verb == "pull" || verb == "login" || verb == "logout":
		c.add(Effect{Kind: EffNetwork, What: c.prog + " " + verb})
	case verb == "push":
		c.add(Effect{Kind: EffNetwork, What: c.prog + " push"})
		c.add(Effect{Kind: EffUpload, What: c.prog + " push sends an image"})
	default:
		// run, exec, build, compose up, create, start, cp, commit, load,
		// save, import, swarm, service, stack: a container runs code with
		// the daemon's privileges.
		c.add(Effect{Kind: EffElevated, What: c.prog + " runs containers through a daemon with root's privileges"})
		c.add(Effect{Kind: EffExec, What: c.prog + " " + strings.Join(verbs, " ") + " runs code in a container"})
		c.add(Effect{Kind: EffNetwork, What: c.prog + " " + strings.Join(verbs, " ")})
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + strings.Join(verbs, " ")})
	}
}

// dockerExecSkip is where the container's name is among docker exec's
// operands: the first after the verb, but for the values of exec's own
// options that take one (-u root, -w /app, -e K=V), which docker's
// entry reads as operands.
func dockerExecSkip(c *cmdRun) int {
	takes := map[string]bool{"-u": true, "--user": true, "-w": true, "--workdir": true, "-e": true, "--env": true,
		"--env-file": true, "--detach-keys": true}
	skip := 1
	for i, w := range c.words {
		if w == "exec" {
			for _, x := range c.words[i+1:] {
				if !strings.HasPrefix(x, "-") {
					break
				}
				if takes[x] {
					skip++
				}
			}
			break
		}
	}
	return skip
}

// sqlWrites are SQL words that change a database.
var sqlWrites = lazyRegexp(`(?i)\b(insert|update|delete|create|drop|alter|replace|vacuum|reindex|attach|detach|begin|commit|rollback|savepoint|release|analyze)\b|\bpragma\s+\w+\s*=`)

// sqliteHarmlessDots are the sqlite3 dot commands that only print or
// change how results are printed. sqlite3 takes any unambiguous
// abbreviation (.sh is .shell, .ou is .output), so any other word is not
// known.
var sqliteHarmlessDots = map[string]bool{"tables": true, "schema": true, "mode": true, "headers": true, "header": true,
	"indexes": true, "indices": true, "dump": true, "databases": true, "show": true, "width": true, "separator": true,
	"nullvalue": true, "timer": true, "stats": true, "help": true, "quit": true, "exit": true, "print": true, "eqp": true,
	"explain": true, "changes": true, "dbinfo": true, "fullschema": true, "lint": true, "bail": true, "echo": true,
	"version": true, "limit": true, "timeout": true, "prompt": true, "expert": true, "dbconfig": true, "vfsinfo": true,
	"vfslist": true, "vfsname": true, "scanstats": true, "binary": true}

// sqliteReaches are the SQL of the sqlite3 shell that reaches beyond the
// database: functions that read, write or list any file (readfile,
// writefile, fsdir, zipfile), open an editor (edit) or load code
// (load_extension), and statements that open or make another file
// (ATTACH, VACUUM INTO).
var sqliteReaches = lazyRegexp(`(?i)\b(readfile|writefile|edit|load_extension|fts3_tokenizer|fsdir|zipfile|sqlar_uncompress|sqlar_compress)\s*\(|\battach\b|\bvacuum\s+into\b`)

// sqliteHandler: dot commands that run or write are code; SQL that
// changes the database writes it.
func sqliteHandler(c *cmdRun) {
	db, ops := "", c.ops
	if len(ops) > 0 {
		db, ops = ops[0].word, ops[1:]
	}
	var sql []string
	for _, op := range ops {
		if !op.lit {
			c.add(Effect{Kind: EffExec, What: "SQL not known until it runs"})
			return
		}
		sql = append(sql, op.word)
	}
	for _, o := range c.opts {
		if o.name == "-cmd" || o.name == "--cmd" {
			if !o.lit {
				c.add(Effect{Kind: EffExec, What: "SQL not known until it runs"})
			}
			sql = append(sql, o.val)
		}
	}
	if len(ops) == 0 && !c.has("-version", "--version", "-help", "--help") {
		c.unknown(c.prog + " reads its SQL from standard input")
		if len(sql) == 0 {
			return
		}
	}
	text := strings.Join(sql, "\n")
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if !strings.HasPrefix(l, ".") {
			continue
		}
		cmd, _, _ := strings.Cut(strings.TrimSpace(l[1:]), " ")
		cmd, _, _ = strings.Cut(cmd, "\t")
		switch {
		case sqliteHarmlessDots[cmd]:
		case len(cmd) >= 2 && (strings.HasPrefix("shell", cmd) || strings.HasPrefix("system", cmd) || strings.HasPrefix("load", cmd)):
			c.add(Effect{Kind: EffExec, What: "sqlite3 ." + cmd + " runs code"})
		default:
			c.unknown("sqlite3 ." + cmd + " may read or write other files")
		}
	}
	if sqliteReaches().MatchString(text) {
		c.unknown("sqlite3 SQL that reads, writes or runs beyond the database")
	}
	if db != "" && !c.has("-readonly", "--readonly") && sqlWrites().MatchString(text) {
		c.writePath(db, c.ops[0].lit, Effect{})
	}
}

// gpgHandler: decrypting, signing and exporting secret keys use the
// person's secrets; importing and making keys change the keyring.
func gpgHandler(c *cmdRun) {
	for _, w := range c.words {
		switch w {
		case "-d", "--decrypt", "-s", "--sign", "--clearsign", "--clear-sign", "-b", "--detach-sign", "--export-secret-keys",
			"--export-secret-subkeys", "--export-ssh-key", "-sa", "-bsa", "--decrypt-files":
			c.add(Effect{Kind: EffSecret, What: "gpg " + w + " uses or prints a secret key"})
			return
		case "--recv-keys", "--search-keys", "--send-keys", "--refresh-keys", "--fetch-keys", "--locate-keys":
			c.add(Effect{Kind: EffNetwork, What: "gpg " + w})
			return
		case "--import", "--gen-key", "--full-generate-key", "--quick-generate-key", "--full-gen-key", "--delete-keys",
			"--delete-secret-keys", "--edit-key", "--lsign-key", "--sign-key", "--quick-add-key", "--import-ownertrust", "--change-passphrase", "--passwd":
			c.add(Effect{Kind: EffPersist, What: "gpg " + w + " changes the keyring"})
			return
		}
	}
}

// --- sysctl ---

// sysctlHandler: an assignment, -w, -p or --system changes the kernel; a
// name with a slash is a path under /proc/sys, and .. leaves it.
func sysctlHandler(c *cmdRun) {
	change := c.has("-w", "--write", "-p", "--load", "-f", "--system")
	for _, op := range c.ops {
		if !op.lit {
			c.add(Effect{Kind: EffSystem, What: "sysctl of a name not known until it runs"})
			continue
		}
		name, _, assign := strings.Cut(op.word, "=")
		if assign {
			change = true
		}
		if strings.Contains(name, "/") {
			p := path.Clean("/proc/sys/" + name)
			if !strings.HasPrefix(p, "/proc/sys/") {
				c.add(Effect{Kind: EffRead, Path: p, What: "sysctl reads " + p})
			}
		}
	}
	if change {
		c.add(Effect{Kind: EffSystem, What: "sysctl changes kernel settings"})
	}
}

// --- ip ---

// ipReads are ip's commands that only show.
var ipReads = map[string]bool{"show": true, "list": true, "lst": true, "ls": true, "get": true, "help": true, "sh": true}

// ipHandler reads ip OBJECT COMMAND: only show, list, get and help
// leave the network as it is (ip link s is set, ip addr s is show);
// ip netns exec NAME CMD and ip vrf exec NAME CMD run a command; a
// batch file can do anything.
func ipHandler(c *cmdRun) {
	if c.spec.name == "nft" {
		// nft COMMAND OBJECT: only list, describe and monitor show.
		if len(c.ops) > 0 && !(c.ops[0].lit && (c.ops[0].word == "list" || c.ops[0].word == "describe" || c.ops[0].word == "monitor" || c.ops[0].word == "help")) {
			c.add(Effect{Kind: EffSystem, What: "nft " + c.ops[0].word + " changes the firewall"})
		}
		return
	}
	if c.has("-b", "-batch") {
		c.add(Effect{Kind: EffSystem, What: "ip -batch runs the commands of a file"})
	}
	if len(c.ops) < 2 {
		return
	}
	obj, cmd := c.ops[0].word, c.ops[1].word
	if (strings.HasPrefix("netns", obj) && len(obj) > 1 || obj == "vrf") && cmd == "exec" || strings.HasPrefix("exec", cmd) && cmd != "" && obj == "netns" {
		c.add(Effect{Kind: EffElevated, What: "ip " + obj + " exec runs a command in another namespace"})
		if len(c.ops) > 3 {
			w, l, g := opWords(c.ops[3:])
			c.sh.call(w, l, g, nil, c.stdinCode, c.depth)
		}
		return
	}
	if !c.ops[1].lit || !(ipReads[cmd] || cmd == "s" && !strings.HasPrefix(obj, "l")) {
		c.add(Effect{Kind: EffSystem, What: "ip " + obj + " " + cmd + " changes the network"})
	}
}
