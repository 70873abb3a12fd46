package policy

import (
	"regexp"
	"strings"
	"sync"
)

// The handlers the entries of several families name: interactive
// programs, operands that may be paths, an option after which the words
// are a command, @file, and what a program does unless an option says
// otherwise.

// opWords returns the operands' words, literal flags and glob flags.
func opWords(ops []operand) (words []string, lits, globs []bool) {
	for _, op := range ops {
		words, lits, globs = append(words, op.word), append(lits, op.lit), append(globs, op.glob)
	}
	return
}

// --- interactive programs ---

// batchOptions are, for programs that are interactive unless told
// otherwise, the options that make them print and exit.
var batchOptions = map[string][]string{
	"top": {"-b", "--batch", "-h", "--help", "-v", "-V", "--version"}, "iotop": {"-b", "--batch", "-h", "--help", "--version"},
	"iftop": {"-t", "-h"}, "nethogs": {"-t", "-h", "-V"},
	"w3m":   {"-dump", "-dump_source", "-dump_head", "-dump_both", "-dump_extra", "-version", "-help"},
	"lynx":  {"-dump", "-source", "-head", "-mime_header", "-help", "-version", "-crawl"},
	"links": {"-dump", "-source", "-version", "-help"}, "elinks": {"-dump", "-source", "-version", "-help"},
	"ncdu": {"-o", "-h", "--help", "-v", "-V", "--version"}, "bpytop": {"-h", "--help", "-v", "--version"},
	"iftop6": {"-t"}, "glances": {"--stdout", "--stdout-csv", "--stdout-json", "-V", "--version", "-h", "--help"},
	"atop": {"-w", "-V", "-h"}, "screen": {"-ls", "-list", "-v", "--version", "-h", "--help", "-d", "-D", "-dm", "-dmS", "-m"},
	"script": {"-c", "--command", "-V", "--version", "-h", "--help"}, "mc": {"-V", "--version", "-h", "--help"}, "tig": {"-v", "--version", "-h", "--help"},
}

// interactiveHandler: an interactive program reads keys from its
// terminal, and its keys run commands (top's pipe, w3m's !, iftop's !).
func interactiveHandler(c *cmdRun) {
	batch := batchOptions[c.prog]
	if c.has(batch...) {
		return
	}
	c.add(Effect{Kind: EffExec, What: c.prog + " is interactive: the keys typed at it can run commands"})
}

// --- operands that may be paths ---

// pathOpsHandler: an operand with a slash is a file the program reads
// (man ./x.1, info ./x.info); the others are names.
func pathOpsHandler(c *cmdRun) {
	for _, op := range c.ops {
		if op.role == roleText && (strings.Contains(op.word, "/") || !op.lit) {
			c.pathEffect(EffRead, op.word, op.lit, Effect{})
		}
	}
}

// --- an option after which the words are a command ---

// restCmdHandler: an option marked !rest that takes no value (pidstat
// -e PROGRAM ARGS) is followed by a command.
func restCmdHandler(c *cmdRun) {
	for _, o := range c.opts {
		if !o.spec.rest || o.spec.arg != argNone {
			continue
		}
		for i, w := range c.words {
			if w == o.name && c.lits[i] {
				if i+1 < len(c.words) {
					c.sh.call(c.words[i+1:], c.lits[i+1:], c.globs[i+1:], nil, false, c.depth)
				}
				return
			}
		}
	}
}

// --- @file ---

// atFileHandler: an operand @FILE is a file of more arguments, read
// (gcc, as, ld, nm, readelf).
func atFileHandler(c *cmdRun) {
	for _, op := range c.ops {
		if f, ok := strings.CutPrefix(op.word, "@"); ok && f != "" {
			c.pathEffect(EffRead, f, op.lit, Effect{What: c.prog + " reads more arguments from " + f})
		}
	}
}

// --- names that are spliced into code ---

var identWord = lazyRegexp(`^[A-Za-z0-9_]+$`)

// --- what a program does unless an option says otherwise ---

// defaultEffects are, for programs that act on their own unless told
// otherwise (enscript prints unless -o), the options that stop them and
// what they do.
var defaultEffects = map[string]struct {
	unless []string
	effect Effect
}{
	"enscript": {[]string{"-o", "--output", "-p", "-W", "--language", "-h", "--help", "-V", "--version", "--list-media", "--help-highlight"},
		Effect{Kind: EffUpload, What: "enscript sends the file to the printer"}},
	"a2ps": {[]string{"-o", "--output", "-P", "--printer", "-h", "--help", "-V", "--version", "--list"},
		Effect{Kind: EffUpload, What: "a2ps sends the file to the printer"}},
	"uudecode": {[]string{"-o", "--output-file", "-h", "--help", "-v", "--version"},
		Effect{Kind: EffWrite, What: "uudecode writes where the encoded data says"}},
	"tic": {[]string{"-o", "-C", "-I", "-L", "-c", "-V", "-D"},
		Effect{Kind: EffWrite, What: "tic compiles into the terminfo database (~/.terminfo)"}},
	"ldconfig": {[]string{"-p", "--print-cache", "-V", "--version", "-?", "--help", "--usage"},
		Effect{Kind: EffSystem, What: "ldconfig rebuilds the dynamic linker's cache"}},
	"zic":           {[]string{"-d", "--version", "--help"}, Effect{Kind: EffWrite, Path: "/usr/share/zoneinfo", What: "zic writes the system's time zones"}},
	"terraform fmt": {[]string{"-check", "-write"}, Effect{Kind: EffWrite, Path: ".", Edit: true, What: "terraform fmt rewrites the files of the folder"}},
	"unsquashfs": {[]string{"-d", "-dest", "-l", "-ls", "-ll", "-lls", "-lc", "-llc", "-s", "-stat", "-i", "-info", "-li", "-cat", "-h", "-help",
		"-v", "-version", "-pf"}, Effect{Kind: EffWrite, Path: "squashfs-root", What: "unsquashfs extracts into squashfs-root"}},
}

// unlessHandler adds a program's default effect unless one of its
// options says otherwise.
func unlessHandler(c *cmdRun) {
	d, ok := defaultEffects[c.spec.name]
	if !ok || c.has(d.unless...) {
		return
	}
	e := d.effect
	if e.Path != "" && !strings.HasPrefix(e.Path, "/") {
		// A path relative to the folder the program works in.
		e.Path = c.abs(e.Path)
	}
	c.add(e)
}

// lazyRegexp compiles pattern the first time it is used, not when agate
// starts: every agate command links the policy, and the sandbox's runner
// starts once per confined command.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
