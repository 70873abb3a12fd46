package codexrules

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Rule is one prefix rule: Codex forbids a command whose first words are
// Pattern's (each position one of its alternatives).
type Rule struct {
	Pattern       [][]string
	Justification string
	// Source is the agate entry the rule comes from: "hard_deny[2]: deny
	// bash curl*", "guardrail: mkfs".
	Source string
	// Gap says what agate denies that the rule does not forbid ("" when
	// nothing).
	Gap string
}

// Example is a command the rule forbids: the first alternative of each
// word.
func (r Rule) Example() []string {
	out := make([]string, len(r.Pattern))
	for i, alts := range r.Pattern {
		out[i] = alts[0]
	}
	return out
}

// Skipped is an agate entry no prefix rule can express.
type Skipped struct {
	Source string // "hard_deny[1]: deny bash *sudo*"
	Why    string
}

// Rules are the rules agate exports, and what it could not.
type Rules struct {
	Rules   []Rule
	Skipped []Skipped
}

// shellTools are the tool globs of a hard_deny entry that cover Codex's
// shell calls (Codex's "Bash", agate's "bash", the category "shell",
// every tool).
var shellTools = map[string]bool{"*": true, "bash": true, "Bash": true, "shell": true, "exec_command": true}

// FromConfig returns the rules for hardDeny ([auto] hard_deny entries:
// "[deny] <tool glob> [arg glob]") and for agate's guardrails.
func FromConfig(hardDeny []string) Rules {
	var rs Rules
	for i, entry := range hardDeny {
		src := fmt.Sprintf("hard_deny[%d]: %s", i, entry)
		r, why := fromHardDeny(entry)
		if why != "" {
			rs.Skipped = append(rs.Skipped, Skipped{Source: src, Why: why})
			continue
		}
		r.Source = src
		rs.Rules = append(rs.Rules, r)
	}
	rs.Rules = append(rs.Rules, guardrails()...)
	rs.Skipped = append(rs.Skipped, guardrailGaps...)
	return rs
}

// fromHardDeny turns one hard_deny entry into a rule, or says why it
// cannot be one.
func fromHardDeny(entry string) (Rule, string) {
	// Read as the policy reads a rule: a verb (optional here), a tool
	// glob, then the argument glob, the rest of the text.
	tool, rest := cutField(entry)
	if tool == "deny" {
		tool, rest = cutField(rest)
	}
	rest = strings.TrimRightFunc(rest, unicode.IsSpace)
	switch {
	case tool == "":
		return Rule{}, "no tool glob"
	case !shellTools[tool]:
		return Rule{}, "not a shell command: exec-policy rules see only commands"
	case rest == "":
		return Rule{}, "it denies every command: a prefix names at least one word"
	case !strings.HasSuffix(rest, "*") || strings.HasSuffix(rest, " *") || rest == "*":
		return Rule{}, "a prefix rule also forbids the longer commands it begins; write the entry as `WORDS*` (a star glued to its last word) to export it"
	}
	words := strings.Split(strings.TrimSuffix(rest, "*"), " ")
	for _, w := range words {
		switch {
		case w == "":
			return Rule{}, "words not parted by single spaces: a prefix cannot say the spacing"
		case strings.ContainsAny(w, "*?[]"):
			return Rule{}, "a glob inside the words: a prefix matches whole words only"
		case !printable(w) || strings.ContainsAny(w, "'`$;&|<>(){}~#=") || strings.IndexFunc(w, unicode.IsSpace) >= 0:
			return Rule{}, "a word with characters the shell reads: a prefix matches the words after the shell parsed them"
		}
	}
	r := Rule{Justification: "agate: hard_deny " + entry}
	for _, w := range words {
		r.Pattern = append(r.Pattern, []string{w})
	}
	r.Gap = "agate's glob also matches a longer last word (" + strings.Join(words, " ") + "x)"
	return r, ""
}

// cutField splits s at its first run of white space, after leading ones.
func cutField(s string) (string, string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeftFunc(s[i:], unicode.IsSpace)
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) || r == '"' || r == '\\' {
			return false
		}
	}
	return true
}

// guardrail is one of agate's guardrails as a prefix.
type guardrail struct {
	pattern [][]string
	why     string
	gap     string
}

// recursive are the spellings of rm's recursive flags a prefix matches.
var recursive = []string{"-rf", "-fr", "-Rf", "-fR", "-r", "-R", "--recursive"}

// systemRoots are the folders whose recursive delete is a guardrail
// (policy's systemPaths, the ones a command names literally).
var systemRoots = []string{"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/root",
	"/sbin", "/srv", "/sys", "/usr", "/var", "/usr/bin", "/usr/lib", "/usr/local", "/var/lib", "/etc/ssh", "~"}

func guardrailList() []guardrail {
	return []guardrail{
		{[][]string{{"mkfs", "mke2fs", "mkswap", "wipefs", "mkdosfs", "mkntfs", "newfs",
			"mkfs.ext2", "mkfs.ext3", "mkfs.ext4", "mkfs.xfs", "mkfs.btrfs", "mkfs.vfat", "mkfs.fat", "mkfs.exfat", "mkfs.ntfs", "mkfs.f2fs"}},
			"formats a filesystem", "other mkfs.* names"},
		{[][]string{{"shutdown", "reboot", "halt", "poweroff"}}, "powers off or restarts the host", ""},
		{[][]string{{"init", "telinit"}, {"0", "6"}}, "powers off or restarts the host", ""},
		{[][]string{{"systemctl", "loginctl"}, {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "rescue", "emergency", "soft-reboot"}},
			"powers off or restarts the host", "the verb after an option (systemctl --force reboot)"},
		{[][]string{{"kill", "pkill", "killall"}, {"1", "-1"}}, "signals init or every process", "a signal option first (kill -9 -1)"},
		{[][]string{{"rm"}, recursive, systemRoots}, "deletes the system or the home folder recursively",
			"other flag spellings and orders (rm -v -rf /), paths written otherwise (/usr/), and rmdir, shred, srm"},
		{[][]string{agateNames, agateCommands}, "runs agate itself: an agent changes agate only through calls the gate can see",
			"agate with no command or only flags (the tray app)"},
		{[][]string{agateNames, {"sandbox"}, agateSandboxFlags}, "runs agate itself: an agent changes agate only through calls the gate can see",
			"a flag written --flag=value; `agate sandbox --strict`, the command agate's hook rewrites a confined call to, is left to the hook"},
	}
}

// agateNames are agate's programs an agent could run.
var agateNames = []string{"agate", "agate-cli", "agate-hook"}

// agateCommands are agate's commands but sandbox (cli's register calls;
// a test keeps the list whole). `agate sandbox --strict` is how a call
// agate's hook confines runs, so only its other spellings are forbidden.
var agateCommands = []string{"approvals", "approve", "check", "config", "container", "doctor", "grants", "hook", "hooks", "keys", "tokens", "undo",
	"log", "mcp", "replay", "run", "serve", "start", "status", "version", "help", "-h", "-help", "--help"}

// agateSandboxFlags are the words `agate sandbox` can begin with but
// --strict, which the hook's rewrite always puts first.
var agateSandboxFlags = []string{"--", "-h", "-help", "--help",
	"-agent", "--agent", "-ask", "--ask", "-cache", "--cache", "-config", "--config", "-cwd", "--cwd",
	"-launcher", "--launcher", "-net", "--net", "-print", "--print", "-read-only", "--read-only",
	"-ro", "--ro", "-rw", "--rw", "-socket", "--socket", "-work", "--work"}

// AgateCommands are the commands of agate the rules forbid an agent to
// run (all but sandbox), and AgateSandboxFlags the words after `agate
// sandbox` they forbid (all but --strict): for the test that keeps them
// in step with agate's command line.
func AgateCommands() []string { return slices.Clone(agateCommands) }

// AgateSandboxFlags: see AgateCommands.
func AgateSandboxFlags() []string { return slices.Clone(agateSandboxFlags) }

// guardrailGaps are the guardrails no prefix can express.
var guardrailGaps = []Skipped{
	{Source: "guardrail: chmod/chown/chgrp/setfacl/chattr -R on / or a system path", Why: "the path comes after a mode or an owner, which a prefix cannot leave open"},
	{Source: "guardrail: writes to a disk device (dd of=/dev/sda, rm /dev/sda)", Why: "the device is an argument at any place"},
}

func guardrails() []Rule {
	var out []Rule
	for _, g := range guardrailList() {
		out = append(out, Rule{
			Pattern:       g.pattern,
			Justification: "agate: guardrail: " + g.why,
			Source:        "guardrail: " + strings.Join(g.pattern[0][:min(3, len(g.pattern[0]))], ", ") + map[bool]string{true: ", …", false: ""}[len(g.pattern[0]) > 3],
			Gap:           g.gap,
		})
	}
	return out
}

// header begins every file agate writes.
const header = "# agate's exec-policy rules for Codex CLI: written by `agate hooks install codex`,\n"

// isAgates reports whether data is a rules file agate wrote.
func isAgates(data []byte) bool { return strings.HasPrefix(string(data), header) }

// Render writes rs as a .rules file.
func Render(rs Rules) []byte {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("# regenerated by agate's daemon when its config changes, removed by `agate hooks uninstall codex`.\n")
	b.WriteString("# Do not edit: agate rewrites it. Codex enforces these rules even when hooks are off or untrusted;\n")
	b.WriteString("# each forbids only commands agate denies too. Codex matches each simple command's words:\n")
	b.WriteString("# `bash -c \"...\"`, `env ...` or a path written otherwise are not matched (agate's hook sees them).\n")
	for _, r := range rs.Rules {
		fmt.Fprintf(&b, "\n# %s\n", oneLine(r.Source))
		if r.Gap != "" {
			fmt.Fprintf(&b, "# not covered here (agate's hook still denies it): %s\n", oneLine(r.Gap))
		}
		b.WriteString("prefix_rule(\n    pattern = [")
		for i, alts := range r.Pattern {
			if i > 0 {
				b.WriteString(", ")
			}
			if len(alts) == 1 {
				b.WriteString(quote(alts[0]))
				continue
			}
			b.WriteByte('[')
			for j, a := range alts {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(quote(a))
			}
			b.WriteByte(']')
		}
		b.WriteString("],\n")
		b.WriteString("    decision = \"forbidden\",\n")
		fmt.Fprintf(&b, "    justification = %s,\n", quote(r.Justification))
		fmt.Fprintf(&b, "    match = [%s],\n", quoteList(r.Example()))
		b.WriteString(")\n")
	}
	if len(rs.Skipped) > 0 {
		b.WriteString("\n# Not exported (no prefix rule says them; agate's hook still denies them):\n")
		for _, s := range rs.Skipped {
			fmt.Fprintf(&b, "#   %s: %s\n", oneLine(s.Source), oneLine(s.Why))
		}
	}
	return []byte(b.String())
}

func quoteList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quote(w)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// quote writes s as a Starlark string: printable characters as they are,
// '"' and '\\' escaped, anything else as \n, \t or \xHH / \uHHHH /
// \UHHHHHHHH.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case !unicode.IsPrint(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// oneLine keeps a comment on one line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, s)
}
