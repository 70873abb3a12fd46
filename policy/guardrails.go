package policy

import (
	"path"
	"strings"
)

// The guardrails: a few catastrophic, never-legitimate commands (Pepe's)
// are denied in every mode, before the catalog is read. The catalog says
// what everything else does.

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && ValidEnvName(name)
}

// disk formatting and partitioning: catastrophic.
var mkfsCmds = map[string]bool{"mkfs": true, "mke2fs": true, "mkswap": true, "wipefs": true, "mkdosfs": true, "mkntfs": true, "newfs": true}

// powerCmds switch the host off or restart it.
var powerCmds = map[string]bool{"shutdown": true, "reboot": true, "halt": true, "poweroff": true}

// guardrails checks one command against the guardrails and reports
// whether one tripped (sh.a.guard then says why).
func (sh *shellCtx) guardrails(word, name string, args []string, lits []bool) bool {
	if sh.isSelf(word, name) {
		sh.guard("runs agate itself (" + word + "): an agent changes agate only through calls the gate can see")
		return true
	}
	switch {
	case mkfsCmds[name] || strings.HasPrefix(name, "mkfs."):
		sh.guard(name + " formats a filesystem")
		return true
	case powerCmds[name]:
		sh.guard(name + " powers off or restarts the host")
		return true
	case (name == "init" || name == "telinit") && len(args) > 0 && (args[0] == "0" || args[0] == "6"):
		sh.guard(name + " " + args[0] + " powers off or restarts the host")
		return true
	case name == "systemctl" || name == "loginctl":
		for _, x := range args {
			switch x {
			case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "rescue", "emergency", "soft-reboot":
				sh.guard(name + " " + x + " powers off or restarts the host")
				return true
			}
		}
	case name == "kill" || name == "pkill" || name == "killall":
		for _, x := range args {
			if x == "1" || x == "-1" {
				sh.guard(name + " " + x + " signals init or every process")
				return true
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp" || name == "setfacl" || name == "chattr":
		// A recursive change of modes or owners of / , ~ or a system path.
		recursive := false
		var ops []string
		var opLits []bool
		for i, a := range args {
			if lits[i] && (a == "-R" || a == "--recursive" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'R')) {
				recursive = true
			} else if !strings.HasPrefix(a, "-") {
				ops, opLits = append(ops, a), append(opLits, lits[i])
			}
		}
		if recursive && len(ops) > 1 {
			for i, t := range ops[1:] {
				if sh.catastrophic(t, opLits[i+1]) {
					sh.guard(name + " " + strings.Join(args, " ") + " changes " + t + " recursively")
					return true
				}
			}
		}
	case deleteCmds[name]:
		for i, a := range args {
			if lits[i] && isDiskDevice(a) {
				sh.guard(name + " " + a + " destroys a disk")
				return true
			}
		}
		recursive := name == "shred"
		var ops []string
		var opLits []bool
		done := false
		for i, a := range args {
			switch {
			case !done && a == "--":
				done = true
			case !done && lits[i] && len(a) > 1 && a[0] == '-':
				if a == "--recursive" || !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], "rR") {
					recursive = true
				}
			default:
				ops, opLits = append(ops, a), append(opLits, lits[i])
			}
		}
		if recursive {
			for i, t := range ops {
				if sh.catastrophic(t, opLits[i]) {
					sh.guard(name + " " + strings.Join(args, " ") + " deletes " + t + " recursively")
					return true
				}
			}
		}
	}
	return false
}

// deleteCmds remove their operands; a recursive delete of /, ~ or a
// system path is a guardrail.
var deleteCmds = map[string]bool{"rm": true, "rmdir": true, "unlink": true, "shred": true, "srm": true}

// isSelf reports whether a command runs agate.
func (sh *shellCtx) isSelf(word, name string) bool {
	if name == "agate" || name == "agate-cli" || name == "agate-hook" {
		return true
	}
	for _, s := range sh.self {
		if s != "" && (word == s || name == path.Base(s)) {
			return true
		}
	}
	return false
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
		case strings.HasSuffix(t, "/**"):
			t = strings.TrimSuffix(t, "/**")
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
		c := path.Clean(t)
		return systemPaths[c] || sh.home != "" && c == path.Clean(sh.home) || path.Dir(c) == "/home" || path.Dir(c) == "/Users"
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

// sedSubstRunsOrWrites reports whether an s command in script has the e
// or w flag: s/a/b/e runs the pattern space as a command, s/a/b/w f
// writes f. Any delimiter, escapes honoured.
func sedSubstRunsOrWrites(script string) bool {
	for i := 0; i+1 < len(script); i++ {
		// An address may end right before the s: 1s/a/b/w f, $s, 2~3s.
		if script[i] != 's' || (i > 0 && isTokenByte(script[i-1]) && (script[i-1] < '0' || script[i-1] > '9')) {
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

// sedReaches reads a sed script as GNU sed parses it and reports whether
// it runs a command or reads or writes a file other than its input: the
// e, r, R, w and W commands, and s///e and s///w. Any delimiter is taken
// (s|a|b|w f, sxaxbxw f, \,x,w f), brackets in a regular expression hide
// the delimiter (s/[/]/x/w f), addresses may be ranges (/a/,/b/w f) and a
// file name may follow its command at once (w/tmp/x). A script it cannot
// read is taken to reach.
func sedReaches(script string) bool {
	s, i := script, 0
	space := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	// delimited reads a part ending at delim from s[i]; brackets hide it
	// in a regular expression.
	delimited := func(delim byte, regex bool) bool {
		for i < len(s) {
			c := s[i]
			switch {
			case c == '\\':
				i += 2
				continue
			case c == delim:
				i++
				return true
			case c == '\n' && delim != '\n':
				// GNU sed allows a newline only escaped.
				return false
			case regex && c == '[':
				j := i + 1
				if j < len(s) && s[j] == '^' {
					j++
				}
				if j < len(s) && s[j] == ']' {
					j++
				}
				for j < len(s) && s[j] != ']' {
					if s[j] == '[' && j+1 < len(s) && (s[j+1] == ':' || s[j+1] == '.' || s[j+1] == '=') {
						k := strings.Index(s[j+2:], string(s[j+1])+"]")
						if k < 0 {
							return false
						}
						j += k + 4
						continue
					}
					j++
				}
				if j >= len(s) {
					return false
				}
				i = j + 1
				continue
			}
			i++
		}
		return false
	}
	addr := func() bool {
		switch {
		case i < len(s) && s[i] == '/':
			i++
			if !delimited('/', true) {
				return false
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !delimited(d, true) {
				return false
			}
		case i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '+' || s[i] == '~'):
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '+' || s[i] == '~') {
				i++
			}
			return true
		default:
			return true
		}
		for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
		return true
	}
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';') {
			i++
		}
		if i >= len(s) {
			return false
		}
		if !addr() {
			return true
		}
		space()
		if i < len(s) && s[i] == ',' {
			i++
			space()
			if !addr() {
				return true
			}
		}
		space()
		for i < len(s) && (s[i] == '!' || s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return true // an address with no command
		}
		c := s[i]
		i++
		switch c {
		case 'e', 'r', 'R', 'w', 'W':
			return true
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case '#', ':', 'a', 'i', 'c':
			// A comment, a label, text: to the end of the line (a\ text
			// may go on past escaped newlines).
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 'b', 't', 'T', 'v':
			for i < len(s) && s[i] != '\n' && s[i] != ';' && s[i] != '}' {
				i++
			}
		case 'l', 'L', 'q', 'Q':
			space()
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case 's', 'y':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' && c == 'y' {
				return true
			}
			d := s[i]
			i++
			if !delimited(d, c == 's') || !delimited(d, false) {
				return true
			}
			if c == 's' {
				for i < len(s) && s[i] != '\n' && s[i] != ';' && s[i] != '}' && s[i] != '#' {
					switch f := s[i]; {
					case f == 'e' || f == 'w' || f == 'W':
						return true
					case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9' || f == ' ' || f == '\t':
					default:
						return true
					}
					i++
				}
			}
		default:
			return true
		}
	}
	return false
}
