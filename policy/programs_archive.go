package policy

import "strings"

// The handlers of archivers: cpio, pax and the archivers that take a command letter (rar, arj, ...) (policy/programs/archive.toml).

// --- cpio ---

// cpioTakes are cpio's options that take a value.
var cpioTakes = map[string]bool{"-F": true, "--file": true, "-O": true, "-I": true, "-H": true, "--format": true,
	"-R": true, "--owner": true, "-D": true, "--directory": true, "-E": true, "--pattern-file": true, "-M": true,
	"--message": true, "-C": true, "--io-size": true, "--block-size": true, "--rsh-command": true, "--rename-batch-file": true}

// cpioFlags are cpio's options that take none.
var cpioFlags = map[string]bool{"-o": true, "--create": true, "-i": true, "--extract": true, "-p": true, "--pass-through": true,
	"-t": true, "--list": true, "-d": true, "--make-directories": true, "-u": true, "--unconditional": true, "-v": true,
	"--verbose": true, "-V": true, "--dot": true, "-m": true, "--preserve-modification-time": true, "-a": true,
	"--reset-access-time": true, "-B": true, "-c": true, "-f": true, "--nonmatching": true, "-l": true, "--link": true,
	"-L": true, "--dereference": true, "-n": true, "--numeric-uid-gid": true, "-s": true, "--swap-bytes": true,
	"-S": true, "--swap-halfwords": true, "-b": true, "--swap": true, "-0": true, "--null": true, "--quiet": true,
	"--no-absolute-filenames": true, "--absolute-filenames": true, "--sparse": true, "--no-preserve-owner": true,
	"--only-verify-crc": true, "--to-stdout": true, "--help": true, "--version": true, "-r": true, "--rename": true,
	"--force-local": true, "--device-independent": true, "--reproducible": true, "--ignore-devno": true, "--renumber-inodes": true}

// cpioHandler reads cpio's mode and options: -o archives the files named
// on its input, -i unpacks into the folder it runs in, -p copies into a
// folder; an archive named host:path is on another host.
func cpioHandler(c *cmdRun) {
	mode, archive, archiveLit := "", "", true
	dir := c.base
	var ops []operand
	for i := 0; i < len(c.words); i++ {
		w := c.words[i]
		if !strings.HasPrefix(w, "-") || w == "-" {
			ops = append(ops, operand{word: w, lit: c.lits[i]})
			continue
		}
		name, val, hasVal := strings.Cut(w, "=")
		if !strings.HasPrefix(w, "--") && len(w) > 2 {
			// -idv, -ovF x
			for j := 1; j < len(w); j++ {
				f := "-" + w[j:j+1]
				if cpioTakes[f] {
					name, val, hasVal = f, w[j+1:], w[j+1:] != ""
					break
				}
				if !cpioFlags[f] {
					c.unknown("cpio " + f + " is not an option agate knows")
					return
				}
				switch w[j] {
				case 'o', 'i', 'p', 't':
					mode = w[j : j+1]
				}
				name = ""
			}
			if name == "" {
				continue
			}
		}
		switch {
		case cpioTakes[name]:
			lit := c.lits[i]
			if !hasVal {
				if i+1 >= len(c.words) {
					c.unknown("cpio " + name + " without its value")
					return
				}
				i++
				val, lit = c.words[i], c.lits[i]
			}
			switch name {
			case "-F", "--file", "-O", "-I":
				archive, archiveLit = val, lit
			case "-D", "--directory":
				dir = c.abs(val)
			case "-E", "--pattern-file":
				c.pathEffect(EffRead, val, lit, Effect{})
			case "--rsh-command":
				c.add(Effect{Kind: EffExec, What: "cpio runs " + val + " to reach a remote archive"})
			case "--rename-batch-file":
				c.writePath(val, lit, Effect{})
			}
		case cpioFlags[name]:
			switch name {
			case "-o", "--create":
				mode = "o"
			case "-i", "--extract":
				mode = "i"
			case "-p", "--pass-through":
				mode = "p"
			case "-t", "--list":
				mode = "t"
			case "--absolute-filenames":
				c.add(Effect{Kind: EffWrite, What: "cpio --absolute-filenames may write anywhere"})
			}
		default:
			c.unknown("cpio " + name + " is not an option agate knows")
			return
		}
	}
	c.prefix = append(c.prefix, "-"+mode)
	remote := ""
	if archive != "" && archiveLit && !c.has("--force-local") {
		if i := strings.IndexByte(archive, ':'); i > 0 && !strings.Contains(archive[:i], "/") {
			remote = hostOf(archive[:i])
		}
	}
	if remote != "" {
		c.add(Effect{Kind: EffNetwork, Host: remote, What: "cpio reaches " + remote + " for the archive " + archive})
	}
	readsNamed := func() {
		if c.sh.stdinPaths != nil {
			for _, p := range c.sh.stdinPaths {
				c.add(Effect{Kind: EffRead, Path: p})
			}
			return
		}
		c.add(Effect{Kind: EffRead, What: "cpio -" + mode + " reads the files named on its input"})
	}
	switch mode {
	case "o":
		readsNamed()
		if remote != "" {
			c.add(Effect{Kind: EffUpload, Host: remote})
		} else if archive != "" {
			c.writePath(archive, archiveLit, Effect{})
		}
	case "i", "t":
		if archive != "" && remote == "" {
			c.pathEffect(EffRead, archive, archiveLit, Effect{})
		}
		if mode == "i" && !c.has("--to-stdout", "--only-verify-crc") {
			if dir == "" {
				c.add(Effect{Kind: EffWrite, What: "cpio extracts into a folder not known until it runs"})
			} else {
				c.add(Effect{Kind: EffWrite, Path: dir, What: "cpio extracts into " + dir})
			}
		}
	case "p":
		readsNamed()
		if len(ops) == 0 {
			c.unknown("cpio -p without a folder")
			return
		}
		for _, op := range ops {
			c.writePath(op.word, op.lit, Effect{})
		}
	default:
		if !c.has("--help", "--version") {
			c.unknown("cpio without -o, -i, -p or -t")
		}
	}
}

// --- archivers that take a command letter ---

// arcSwitches are the switches of rar, unrar, arj and lha that agate
// knows, by prefix: the ones that set where files are written say so.
var arcSwitches = []string{"-y", "-r", "-v", "-p", "-g", "-hp", "-o+", "-o-", "-ow", "-ep", "-ap", "-x", "-n", "-m", "-s", "-k", "-t", "-idq",
	"-idc", "-idd", "-idp", "-inul", "-jf", "-jm", "-e", "-f", "-u", "-c", "-ad", "-cl", "-cu", "-df", "-dh", "-ma", "-md", "-ms", "-ai",
	"-ht", "-op", "-a", "-i"}

// arcCommandHandler reads rar, unrar, arj and lha: COMMAND [-SWITCHES]
// ARCHIVE [FILES] [DEST/]. x and e extract into the folder they run in
// (or DEST/, -ht, -op), l, v, t and p only read, a, u, f and m add (m
// removes what it adds), d deletes from the archive.
func arcCommandHandler(c *cmdRun) {
	if len(c.words) == 0 {
		return
	}
	cmd := strings.TrimPrefix(c.words[0], "-")
	c.prefix = append(c.prefix, cmd)
	dest := ""
	var ops []operand
	for i, w := range c.words[1:] {
		if !strings.HasPrefix(w, "-") || w == "-" {
			ops = append(ops, operand{word: w, lit: c.lits[i+1]})
			continue
		}
		known := false
		for _, p := range arcSwitches {
			if strings.HasPrefix(w, p) {
				known = true
				break
			}
		}
		if !known || strings.HasPrefix(w, "-ilog") || strings.HasPrefix(w, "-ieml") || strings.HasPrefix(w, "-w") {
			c.unknown(c.prog + " " + w + " is not a switch agate knows")
			return
		}
		for _, p := range []string{"-ht", "-op"} {
			if d, ok := strings.CutPrefix(w, p); ok && d != "" {
				dest = d
			}
		}
	}
	switch {
	case strings.ContainsAny(cmd, "xe") && len(cmd) <= 3:
		if len(ops) > 1 && strings.HasSuffix(ops[len(ops)-1].word, "/") {
			dest = ops[len(ops)-1].word
			ops = ops[:len(ops)-1]
		}
		for _, op := range ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
		if dest != "" {
			c.writePath(dest, true, Effect{})
		} else {
			c.add(Effect{Kind: EffWrite, Path: c.base, What: c.prog + " extracts into " + c.base})
		}
	case cmd == "l" || cmd == "v" || cmd == "t" || cmd == "p" || cmd == "lb" || cmd == "lt" || cmd == "vt" || cmd == "vb" || cmd == "pr" || cmd == "vta":
		for _, op := range ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
	case cmd == "a" || cmd == "u" || cmd == "f" || cmd == "m" || cmd == "d" || cmd == "c":
		for i, op := range ops {
			switch {
			case i == 0:
				c.writePath(op.word, op.lit, Effect{})
			case cmd == "m":
				c.pathEffect(EffDelete, op.word, op.lit, Effect{What: c.prog + " m moves the files into the archive"})
			default:
				c.pathEffect(EffRead, op.word, op.lit, Effect{})
			}
		}
	default:
		c.unknown(c.prog + " " + cmd + " is not a command agate knows")
	}
}

// paxHandler reads pax's mode: -r alone extracts into the folder it runs
// in, -w alone archives the files named, -r -w copies them into the last
// operand, and neither lists.
func paxHandler(c *cmdRun) {
	r, w := c.has("-r"), c.has("-w")
	ops := c.ops
	archive, hasArchive := c.optVal("-f")
	switch {
	case r && w:
		if len(ops) == 0 {
			c.unknown("pax -rw without a folder")
			return
		}
		dest := ops[len(ops)-1]
		for _, op := range ops[:len(ops)-1] {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
		if len(ops) == 1 {
			c.add(Effect{Kind: EffRead, What: "pax -rw copies the files named on its input"})
		}
		c.writePath(dest.word, dest.lit, Effect{})
	case r:
		if hasArchive {
			c.pathEffect(EffRead, archive, true, Effect{})
		}
		c.add(Effect{Kind: EffWrite, Path: c.base, What: "pax -r extracts into " + c.base})
	case w:
		for _, op := range ops {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
		if len(ops) == 0 {
			c.add(Effect{Kind: EffRead, What: "pax -w archives the files named on its input"})
		}
		if hasArchive {
			c.writePath(archive, true, Effect{})
		}
	default:
		if hasArchive {
			c.pathEffect(EffRead, archive, true, Effect{})
		}
	}
}
