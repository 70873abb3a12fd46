package policy

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Bounds on what the shell analyser takes. A command past them asks: it is
// not analysed in part.
const (
	MaxCommandLen = 16 << 10 // bytes in one command
	maxShellDepth = 4        // nested bash -c / eval strings
	maxSimpleCmds = 512      // simple commands in one call
)

var (
	errTooLong   = fmt.Errorf("the command is longer than %d bytes", MaxCommandLen)
	errTooDeep   = fmt.Errorf("the command nests shells more than %d deep", maxShellDepth)
	errTooMany   = fmt.Errorf("the command has more than %d simple commands", maxSimpleCmds)
	errNoCommand = errors.New("the shell call has no command")
)

// simpleCmd is one simple command found in a shell call.
type simpleCmd struct {
	text     string   // the words, resolved, and redirections, joined by spaces
	plain    string   // the words alone, without redirections: what allow rules match
	stripped string   // text without the wrappers (sudo, env, timeout, ...)
	based    string   // stripped, with the command's path cut to its base name (/bin/rm -> rm)
	name     string   // base name of the command run after the wrappers
	args     []string // its arguments, resolved; a word with an expansion keeps its shape ("$HOME", "$(...)")
	wrappers []string // the wrappers stripped, in order
}

// shellAnalysis is what the analyser learned about a shell command.
type shellAnalysis struct {
	cmds     []simpleCmd
	risks    Risks
	writes   []string // write targets, absolute (relative ones against the folder at that point)
	dynWrite bool     // some write target is not a literal
	words    []string // every literal argument and read redirection, absolute, to spot secret reads
	guard    string   // a guardrail tripped: why
	err      error    // did not parse, or past a bound: the call asks
}

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

// analyseShell parses cmd and analyses every simple command in it. cwd and
// home let it judge targets such as "*" run in the home folder.
func analyseShell(cmd, cwd, home string, self []string) *shellAnalysis {
	a := &shellAnalysis{}
	sh := shellCtx{a: a, cwd: cwd, home: home, self: self}
	sh.parse(cmd, 0)
	return a
}

type shellCtx struct {
	a    *shellAnalysis
	cwd  string
	home string
	self []string // names and paths agate runs under
}

func (sh *shellCtx) fail(err error) {
	if sh.a.err == nil {
		sh.a.err = err
	}
}

// parse analyses one shell program; depth counts nested -c strings.
func (sh *shellCtx) parse(src string, depth int) {
	if len(src) > MaxCommandLen {
		sh.fail(errTooLong)
		return
	}
	if depth > maxShellDepth {
		sh.fail(errTooDeep)
		return
	}
	p := parserPool.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parserPool.Put(p)
	if err != nil {
		sh.fail(fmt.Errorf("the command does not parse: %v", err))
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if sh.a.err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			sh.stmt(src, n, depth)
		case *syntax.FuncDecl:
			if forkBomb(n) {
				sh.guard(fmt.Sprintf("function %s calls itself in the background or a pipe (a fork bomb)", n.Name.Value))
			}
		}
		return true
	})
}

func (sh *shellCtx) guard(why string) {
	if sh.a.guard == "" {
		sh.a.guard = why
	}
}

// stmt analyses a statement: its redirections, its assignments, and, if
// it is a simple command, the command. A statement that is not a simple
// command but redirects or assigns (`> f`, `export X=...`, `(( x ))`)
// is recorded as a command of its own, so an allow rule must cover it too.
func (sh *shellCtx) stmt(src string, st *syntax.Stmt, depth int) {
	var redirs []string
	stdinCode := false
	for _, r := range st.Redirs {
		target, lit := wordText(r.Word)
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
			syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
			sh.writeTarget(target, lit)
			redirs = append(redirs, r.Op.String()+" "+target)
		case syntax.DplOut:
			if lit && !isFD(target) {
				sh.writeTarget(target, lit)
			}
			redirs = append(redirs, r.Op.String()+target)
		case syntax.RdrIn:
			sh.readWord(target, lit)
			redirs = append(redirs, "< "+target)
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			stdinCode = true
		}
	}
	if len(sh.a.cmds) >= maxSimpleCmds {
		sh.fail(errTooMany)
		return
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		sh.assigns(cmd.Assigns)
		if len(cmd.Args) == 0 {
			if len(redirs) > 0 || len(cmd.Assigns) > 0 {
				sh.pseudo(src, st, redirs)
			}
			return
		}
		words, lits, globs, ok := sh.expandWords(cmd.Args)
		if !ok {
			return
		}
		sh.call(words, lits, globs, redirs, stdinCode, depth)
	case *syntax.DeclClause:
		sh.assigns(cmd.Args)
		sh.pseudo(src, st, redirs)
	case *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestClause:
		sh.pseudo(src, st, redirs)
	default:
		if len(redirs) > 0 {
			sh.pseudo(src, st, redirs)
		}
	}
}

// pseudo records a statement that is not a simple command as a command
// with no name, its source text as its text.
func (sh *shellCtx) pseudo(src string, st *syntax.Stmt, redirs []string) {
	text := strings.TrimSpace(src[st.Pos().Offset():min(int(st.End().Offset()), len(src))])
	if text == "" {
		text = joinWords(nil, redirs)
	}
	sh.a.cmds = append(sh.a.cmds, simpleCmd{text: text, stripped: text, plain: text})
}

// dangerousVars are variables that make a program run other code: set
// before a command, or exported, they are inline code.
var dangerousVars = map[string]bool{
	"PAGER": true, "GIT_PAGER": true, "MANPAGER": true, "EDITOR": true, "VISUAL": true, "GIT_EDITOR": true,
	"GIT_SEQUENCE_EDITOR": true, "GIT_EXTERNAL_DIFF": true, "GIT_SSH": true, "GIT_SSH_COMMAND": true,
	"GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_EXEC_PATH": true, "GIT_CONFIG_PARAMETERS": true,
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG": true, "BASH_ENV": true, "ENV": true, "PS4": true,
	"PROMPT_COMMAND": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true,
	"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true, "PYTHONSTARTUP": true, "PYTHONPATH": true,
	"NODE_OPTIONS": true, "PERL5OPT": true, "PERL5LIB": true, "RUBYOPT": true, "RUBYLIB": true,
	"BROWSER": true, "SHELL": true, "PATH": true, "IFS": true, "CDPATH": true, "HISTFILE": true,
	"LESSOPEN": true, "LESSCLOSE": true, "MAKEFLAGS": false,
}

// dangerousVar reports whether assigning name can make a program run code.
func dangerousVar(name string) bool {
	return dangerousVars[name] || strings.HasPrefix(name, "GIT_CONFIG_") || strings.HasPrefix(name, "LD_") ||
		strings.HasPrefix(name, "DYLD_") || strings.HasSuffix(name, "_COMMAND") || strings.HasSuffix(name, "_EDITOR")
}

// assigns notes variable assignments that can run code.
func (sh *shellCtx) assigns(as []*syntax.Assign) {
	for _, a := range as {
		if a.Name != nil && dangerousVar(a.Name.Value) {
			sh.a.risks = sh.a.risks.With(InlineCode)
		}
	}
}

// maxBraceWords bounds what one word's brace expansion may give.
const maxBraceWords = 256

// expandWords resolves a simple command's words, brace expansion applied
// as bash does ({rm,-rf,/} is three words). globs says which words have an
// unquoted glob character.
func (sh *shellCtx) expandWords(args []*syntax.Word) (words []string, lits, globs []bool, ok bool) {
	words, lits, globs = make([]string, 0, len(args)), make([]bool, 0, len(args)), make([]bool, 0, len(args))
	for _, w := range args {
		if hasBrace(w) {
			// SplitBraces rewrites the word it is given: split a copy, the
			// AST being walked must keep its parts.
			cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
			if syntax.SplitBraces(cp) {
				n := 0
				for ew, err := range expand.BracesSeq(nil, cp) {
					if err != nil || n >= maxBraceWords {
						sh.fail(fmt.Errorf("a brace expansion gives more than %d words", maxBraceWords))
						return nil, nil, nil, false
					}
					s, lit := wordText(ew)
					words, lits, globs = append(words, s), append(lits, lit), append(globs, hasGlob(ew))
					n++
				}
				continue
			}
		}
		s, lit := wordText(w)
		words, lits, globs = append(words, s), append(lits, lit), append(globs, hasGlob(w))
	}
	return words, lits, globs, true
}

// hasBrace reports whether a word has an unquoted {, which brace
// expansion may act on.
func hasBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// hasGlob reports whether a word has an unquoted *, ? or [.
func hasGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[") {
			return true
		}
	}
	return false
}

// guardedNames are the commands a glob in command position is checked
// against (/bin/r? -rf / runs rm).
var guardedNames = []string{"rm", "rmdir", "shred", "mkfs", "mke2fs", "mkswap", "wipefs", "dd", "shutdown",
	"reboot", "halt", "poweroff", "init", "telinit", "systemctl", "agate", "agate-cli", "find", "kill", "killall"}

// call analyses one simple command given as words.
func (sh *shellCtx) call(words []string, lits, globs []bool, redirs []string, stdinCode bool, depth int) {
	sc := simpleCmd{text: joinWords(words, redirs)}
	sc.plain = sc.text
	if len(redirs) > 0 {
		sc.plain = joinWords(words, nil)
	}
	for i, w := range words {
		if i > 0 {
			sh.readWord(w, lits[i] || strings.HasPrefix(w, "$HOME"))
		}
	}
	// Strip wrappers.
	i := 0
	for i < len(words) {
		if !lits[i] || globs[i] {
			break
		}
		name := path.Base(words[i])
		w, ok := wrappers[name]
		if !ok {
			break
		}
		sc.wrappers = append(sc.wrappers, name)
		if w.elevated {
			sh.a.risks = sh.a.risks.With(Elevated)
		}
		if w.code {
			sh.a.risks = sh.a.risks.With(InlineCode)
		}
		next, inline, assigned := w.skip(words, i+1)
		for _, v := range assigned {
			if dangerousVar(v) {
				sh.a.risks = sh.a.risks.With(InlineCode)
			}
		}
		if inline != "" {
			// env -S "string", su -c "string": a command line in a string.
			sh.parse(inline, depth+1)
		}
		i = next
	}
	sc.stripped = sc.text
	if i > 0 {
		sc.stripped = joinWords(words[i:], redirs)
	}
	if i >= len(words) {
		sh.a.cmds = append(sh.a.cmds, sc)
		return
	}
	if !lits[i] || globs[i] {
		// $CMD args, or a glob: the command is not known until it runs.
		sh.a.risks = sh.a.risks.With(InlineCode)
		sc.name = words[i]
		sh.a.cmds = append(sh.a.cmds, sc)
		if globs[i] {
			for _, name := range guardedNames {
				if wildMatch(path.Base(words[i]), name) {
					sh.classify(name, name, words[i+1:], lits[i+1:], stdinCode, depth)
				}
			}
		}
		return
	}
	sc.name = path.Base(words[i])
	sc.args = words[i+1:]
	sc.based = sc.stripped
	if words[i] != sc.name {
		sc.based = joinWords(append([]string{sc.name}, sc.args...), redirs)
	}
	sh.a.cmds = append(sh.a.cmds, sc)
	sh.classify(words[i], sc.name, sc.args, lits[i+1:], stdinCode, depth)
}

// readWord records an argument that may name a file read, resolved
// against the current folder ($HOME written as ~).
func (sh *shellCtx) readWord(w string, lit bool) {
	if !lit || w == "" || strings.HasPrefix(w, "-") {
		return
	}
	if rest, ok := strings.CutPrefix(w, "$HOME"); ok {
		w = "~" + rest
	}
	sh.a.words = append(sh.a.words, sh.abs(w))
	// git show HEAD:.env, scp host:path: the part after a colon too.
	if i := strings.IndexByte(w, ':'); i > 0 && i < len(w)-1 && !strings.Contains(w[:i], "/") {
		sh.a.words = append(sh.a.words, sh.abs(w[i+1:]))
	}
}

// abs makes a path from the command absolute against the folder the
// command runs in at that point (a cd earlier in the line moves it); ""
// when that folder is not known, or the path names another user's home.
func (sh *shellCtx) abs(p string) string {
	if strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/") {
		return "" // ~user, ~+, ~-: not modelled
	}
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && sh.cwd == "" {
		return ""
	}
	return absPath(p, sh.cwd, sh.home)
}

// writeTarget records a redirection or command writing to target.
func (sh *shellCtx) writeTarget(target string, lit bool) {
	if !lit {
		sh.a.risks = sh.a.risks.With(Writes)
		sh.a.dynWrite = true
		return
	}
	switch {
	case target == "/dev/null" || target == "/dev/stdout" || target == "/dev/stderr" || target == "/dev/tty" ||
		strings.HasPrefix(target, "/dev/fd/") || target == "-":
		return
	case strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/"):
		sh.a.risks = sh.a.risks.With(Network)
		return
	case isDiskDevice(target):
		sh.guard("writes onto the disk device " + target)
	}
	sh.a.risks = sh.a.risks.With(Writes)
	if a := sh.abs(target); a != "" {
		sh.a.writes = append(sh.a.writes, a)
	} else {
		sh.a.dynWrite = true
	}
}

// writesTo records the write targets among args (lits says which are
// literal).
func (sh *shellCtx) writesTo(args []string, lits []bool) {
	for i, t := range args {
		sh.writeTarget(t, lits[i])
	}
}

// deletes records a delete of the targets among args.
func (sh *shellCtx) deletes(args []string, lits []bool) {
	sh.a.risks = sh.a.risks.With(Deletes)
	for i, t := range args {
		a := ""
		if lits[i] {
			a = sh.abs(t)
		}
		if a != "" {
			sh.a.writes = append(sh.a.writes, a)
		} else {
			sh.a.dynWrite = true
		}
	}
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	_, err := strconv.Atoi(s)
	return err == nil
}

func joinWords(words, redirs []string) string {
	n := 0
	for _, w := range words {
		n += len(w) + 1
	}
	for _, r := range redirs {
		n += len(r) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, w := range words {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	for _, r := range redirs {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(r)
	}
	return b.String()
}

// wordText resolves a word to the string the shell would pass, when it is
// literal: quotes removed, escapes applied, $'...' decoded. A word with an
// expansion is not literal; its text then keeps "$NAME" for a plain
// parameter so targets such as $HOME can still be recognised.
func wordText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	lit := true
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && (v == "~" || strings.HasPrefix(v, "~/")) {
				b.WriteString(v)
				continue
			}
			b.WriteString(unescapeUnquoted(v))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					b.WriteString(unescapeDouble(q.Value))
				case *syntax.ParamExp:
					lit = false
					b.WriteString(paramText(q))
				default:
					lit = false
					b.WriteString("$(...)")
				}
			}
		case *syntax.ParamExp:
			lit = false
			b.WriteString(paramText(part.(*syntax.ParamExp)))
		default:
			lit = false
			b.WriteString("$(...)")
		}
	}
	return b.String(), lit
}

func paramText(p *syntax.ParamExp) string {
	if p.Param != nil && p.Exp == nil && p.Index == nil && p.Slice == nil && p.Repl == nil && !p.Length && !p.Excl {
		return "$" + p.Param.Value
	}
	return "${...}"
}

func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the escapes of a $'...' string.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if v, err := strconv.ParseUint(s[i+1:j], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i = j - 1
			} else {
				b.WriteString(`\x`)
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// forkBomb reports whether a function calls itself from a pipeline or in
// the background: ":(){ :|:& };:".
func forkBomb(fn *syntax.FuncDecl) bool {
	if fn.Name == nil || fn.Body == nil {
		return false
	}
	name := fn.Name.Value
	bomb := false
	syntax.Walk(fn.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background && callsName(n, name) {
				bomb = true
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (callsName(n.X, name) || callsName(n.Y, name)) {
				bomb = true
			}
		}
		return !bomb
	})
	return bomb
}

func callsName(st *syntax.Stmt, name string) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if v, lit := wordText(c.Args[0]); lit && v == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// quoteArgv turns an argv (Codex sends commands as arrays) into one shell
// command line that parses back to the same words.
func quoteArgv(argv []string) (string, error) {
	var b strings.Builder
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			return "", fmt.Errorf("argument %d: %w", i, err)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(q)
	}
	return b.String(), nil
}
