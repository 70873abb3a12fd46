package policy

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

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
	stripped string   // text without the wrappers (sudo, env, timeout, ...)
	name     string   // base name of the command run after the wrappers
	args     []string // its arguments, resolved; a word with an expansion keeps its shape ("$HOME", "$(...)")
	wrappers []string // the wrappers stripped, in order
}

// shellAnalysis is what the analyser learned about a shell command.
type shellAnalysis struct {
	cmds     []simpleCmd
	risks    Risks
	writes   []string // write targets, as written
	dynWrite bool     // some write target is not a literal
	words    []string // every literal argument and read redirection, to spot secret reads
	guard    string   // a guardrail tripped: why
	err      error    // did not parse, or past a bound: the call asks
	funcs    map[string]bool
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

// stmt analyses a statement's redirections and, if it is a simple command,
// the command.
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
			if lit {
				sh.a.words = append(sh.a.words, target)
			}
			redirs = append(redirs, "< "+target)
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			stdinCode = true
		}
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	if len(sh.a.cmds) >= maxSimpleCmds {
		sh.fail(errTooMany)
		return
	}
	words := make([]string, len(call.Args))
	lits := make([]bool, len(call.Args))
	for i, w := range call.Args {
		words[i], lits[i] = wordText(w)
	}
	sh.call(words, lits, redirs, stdinCode, depth)
}

// call analyses one simple command given as words.
func (sh *shellCtx) call(words []string, lits []bool, redirs []string, stdinCode bool, depth int) {
	sc := simpleCmd{text: joinWords(words, redirs)}
	for i, w := range words {
		if lits[i] && i > 0 {
			sh.a.words = append(sh.a.words, w)
		}
	}
	// Strip wrappers.
	i := 0
	for i < len(words) {
		if !lits[i] {
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
		next, inline := w.skip(words, i+1)
		if inline != "" {
			// env -S "string", su -c "string": a command line in a string.
			sh.parse(inline, depth+1)
		}
		i = next
	}
	sc.stripped = joinWords(words[i:], redirs)
	if i >= len(words) {
		sh.a.cmds = append(sh.a.cmds, sc)
		return
	}
	if !lits[i] {
		// $CMD args: the command is not known until it runs.
		sh.a.risks = sh.a.risks.With(InlineCode)
		sc.name = words[i]
		sh.a.cmds = append(sh.a.cmds, sc)
		return
	}
	sc.name = path.Base(words[i])
	sc.args = words[i+1:]
	sh.a.cmds = append(sh.a.cmds, sc)
	sh.classify(words[i], sc.name, sc.args, lits[i+1:], stdinCode, depth)
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
	sh.a.writes = append(sh.a.writes, target)
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
		if lits[i] {
			sh.a.writes = append(sh.a.writes, t)
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
