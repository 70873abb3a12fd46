package policy

import (
	"path"
	"strconv"
	"strings"
)

// A patch writes the files it names, and only its text says which: a
// patch that rewrites .git/hooks/pre-commit or .claude/settings.json is
// as much a protected write as an echo into them. The patch's text comes
// from a here-document in the command, or from the caller, who reads the
// file (Request.ReadPatch); without it, what the patch writes is unknown.

// maxPatchTargets bounds the files one patch is read for.
const maxPatchTargets = 1000

// DiffTargets returns the paths a unified, git or context diff names as
// it writes them ("a/src/x.c", "src/x.c"), in order, each once: the new
// side of every file header, the old side where it differs (a rename's,
// or a deletion's), and git's rename and copy targets. "/dev/null" is not
// a path.
func DiffTargets(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = strings.TrimSpace(p)
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i] // "--- a/x\t2024-01-01 ..."
		}
		if unq, err := strconv.Unquote(p); err == nil && strings.HasPrefix(p, `"`) {
			p = unq // git quotes names with odd characters
		}
		if p == "" || p == "/dev/null" || seen[p] || len(out) >= maxPatchTargets {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
			// A context diff's hunk lines ("--- 12,14 ----") are not names.
			if rest := line[4:]; !strings.HasSuffix(strings.TrimSpace(rest), "----") {
				add(rest)
			}
		case strings.HasPrefix(line, "*** ") && !strings.HasPrefix(line, "*** Begin Patch") && !strings.HasPrefix(line, "*** End Patch"):
			rest := line[4:]
			if !strings.HasSuffix(strings.TrimSpace(rest), "****") {
				add(rest)
			}
		case strings.HasPrefix(line, "diff --git "):
			// "diff --git a/x b/y": the names may have spaces; the headers
			// that follow name them again, so take the simple case only.
			if f := strings.Fields(line[len("diff --git "):]); len(f) == 2 {
				add(f[0])
				add(f[1])
			}
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "):
			_, p, _ := strings.Cut(line, " to ")
			add(p)
		case strings.HasPrefix(line, "Index: "):
			add(line[len("Index: "):])
		}
	}
	return out
}

// stripPath removes n leading components from a diff's path, as patch -pN
// and git apply -pN do; ok is false when the path has fewer.
func stripPath(p string, n int) (string, bool) {
	for ; n > 0; n-- {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return "", false
		}
		p = strings.TrimLeft(p[i+1:], "/")
	}
	return p, p != ""
}

// patchWrites records the files the patch applied by this command writes:
// under base, each path stripped of strip leading components (strip < 0:
// not given, so every level it could be). file is the patch file, "" for
// standard input.
func (c *cmdRun) patchWrites(file string, fileLit bool, strip int, base string) {
	text, ok := "", false
	switch {
	case file == "" && c.sh.stdinTextKnown:
		text, ok = c.sh.stdinText, true
	case file == "" && c.sh.stdinFile != "":
		file, fileLit = c.sh.stdinFile, true
	}
	if !ok && file != "" && fileLit && c.sh.readPatch != nil {
		if p := c.abs(file); p != "" {
			text, ok = c.sh.readPatch(p)
		}
	}
	if !ok {
		what := "the patch it applies, which agate has not read"
		if file == "" {
			what = "a patch from its standard input, which agate cannot read"
		}
		c.add(Effect{Kind: EffUnknown, What: c.prog + " writes the files named in " + what})
		return
	}
	targets := DiffTargets(text)
	if len(targets) == 0 {
		c.add(Effect{Kind: EffUnknown, What: c.prog + " applies a patch that names no file agate can read"})
		return
	}
	saved := c.base
	c.base = base
	defer func() { c.base = saved }()
	for _, t := range targets {
		levels := []int{strip}
		if strip < 0 {
			levels = levels[:0]
			for n := 0; n <= strings.Count(t, "/"); n++ {
				levels = append(levels, n)
			}
		}
		for _, n := range levels {
			if p, ok := stripPath(t, n); ok {
				c.writePath(path.Clean(p), true, Effect{Edit: true})
			}
		}
	}
}

// patchHandler: patch writes the files its patch names, unless it is
// given the file to patch (an operand) or an output file (-o).
func patchHandler(c *cmdRun) {
	if len(c.ops) > 0 {
		return // patch FILE [PATCH]: the file is written, by its role
	}
	if _, ok := c.optVal("-o"); ok {
		return
	}
	if _, ok := c.optVal("--output"); ok {
		return
	}
	strip := -1
	for _, name := range []string{"-p", "--strip"} {
		if v, ok := c.optVal(name); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				strip = n
			}
		}
	}
	file, lit := "", true
	for _, o := range c.opts {
		if o.name == "-i" || o.name == "--input" {
			file, lit = o.val, o.lit
		}
	}
	c.patchWrites(file, lit, strip, c.base)
}

// gitApplyPatches: git apply and git am write the files their patches
// name, under the repository's top (--directory moves them), stripped of
// one component (-p).
func gitApplyPatches(c *cmdRun) {
	for _, o := range c.opts {
		switch o.name {
		case "--stat", "--numstat", "--summary", "--check":
			if !c.has("--apply") {
				return // only says what the patch would do
			}
		case "--cached":
			return // the index only: no file in the work tree changes
		}
	}
	strip := 1
	if v, ok := c.optVal("-p"); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			strip = n
		}
	}
	base := c.base
	if d, ok := c.optVal("--directory"); ok {
		if path.IsAbs(d) {
			base = path.Clean(d)
		} else {
			base = path.Join(base, d)
		}
	}
	if len(c.ops) == 0 {
		c.patchWrites("", true, strip, base)
		return
	}
	for _, op := range c.ops {
		c.patchWrites(op.word, op.lit, strip, base)
	}
}
