package policy

import (
	"strings"
)

// The handlers of text tools: TeX, exiftool, csplit, cowsay (policy/programs/text.toml).

// --- TeX ---

// texHandler: TeX runs the file it is given, or the TeX code given in
// its place (an operand that starts with a backslash): code that reads
// any file, and with --shell-escape runs commands.
func texHandler(c *cmdRun) {
	if len(c.ops) == 0 {
		if !c.has("--version", "-version", "--help", "-help") {
			c.add(Effect{Kind: EffExec, What: c.prog + " reads TeX code from its input"})
		}
		return
	}
	op := c.ops[0]
	if strings.HasPrefix(op.word, "\\") || strings.HasPrefix(op.word, "&") {
		c.add(Effect{Kind: EffExec, What: c.prog + " runs TeX code given on the command line"})
		return
	}
	c.script(op.word, op.lit)
}

// --- exiftool ---

// exiftoolCode matches an exiftool format with Perl in it: ${TAG;EXPR}.
var exiftoolCode = lazyRegexp(`\$\{[^}]*;`)

// exiftoolHandler: -TAG=VALUE, -TAG<=FILE and -TAG<SRC write the files
// given; -FileName= and -Directory= move them anywhere; -if, -api Filter
// and a format with ${TAG;EXPR} run Perl.
func exiftoolHandler(c *cmdRun) {
	writes := c.has("-tagsFromFile", "-TagsFromFile", "-all=", "-delete_original", "-restore_original")
	for _, o := range c.opts {
		name := o.name
		if i := strings.IndexAny(name, "=<>"); i > 0 {
			tag := strings.ToLower(strings.TrimPrefix(name[:i], "-"))
			if j := strings.LastIndexByte(tag, ':'); j >= 0 {
				tag = tag[j+1:]
			}
			tag = strings.TrimRight(tag, "+-^")
			writes = true
			switch tag {
			case "filename", "directory", "testname", "hardlink", "symlink":
				c.add(Effect{Kind: EffWrite, What: "exiftool -" + tag + "= moves or links files where it likes"})
			}
			if f, ok := strings.CutPrefix(name[i:], "<="); ok && f != "" {
				c.pathEffect(EffRead, f, o.lit, Effect{})
			}
		}
		switch o.name {
		case "-if", "-api", "-userParam", "-config":
			c.add(Effect{Kind: EffExec, What: "exiftool " + o.name + " runs Perl"})
		case "-p", "-printFormat":
			if exiftoolCode().MatchString(o.val) {
				c.add(Effect{Kind: EffExec, What: "exiftool -p with ${...;EXPR} runs Perl"})
			}
		}
	}
	if writes && !c.has("-o", "-out") {
		for _, op := range c.ops {
			c.writePath(op.word, op.lit, Effect{Edit: true})
		}
	}
}

// --- csplit ---

// csplitHandler: csplit writes its pieces as PREFIX00, PREFIX01, ...
// (xx00 by default), where -f says.
func csplitHandler(c *cmdRun) {
	prefix, lit := "xx", true
	for _, o := range c.opts {
		if o.name == "-f" || o.name == "--prefix" {
			prefix, lit = o.val, o.lit
		}
	}
	c.writePath(prefix+"*", lit, Effect{What: "csplit writes " + prefix + "00, " + prefix + "01, ..."})
}

// --- a file or a name ---

// cowfileHandler: cowsay -f NAME picks a cow from the cow path; -f
// PATH runs the cow file at PATH, which is Perl.
func cowfileHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name == "-f" && (strings.Contains(o.val, "/") || strings.HasSuffix(o.val, ".cow") || strings.HasSuffix(o.val, ".pl") || !o.lit) {
			c.script(o.val, o.lit)
		}
	}
}
