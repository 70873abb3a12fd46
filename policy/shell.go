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

// simpleCmd is one simple command found in a shell call. A command run by
// another (sudo CMD, env X=1 CMD, find -exec CMD) is one of its own.
type simpleCmd struct {
	text     string   // the words, resolved, and redirections, joined by spaces
	plain    string   // the words alone, without redirections: what allow rules match
	stripped string   // text, kept for rules written against wrappers' commands
	based    string   // text with the command's path cut to its base name (/bin/rm -> rm)
	name     string   // base name of the command word
	args     []string // its arguments, resolved; a word with an expansion keeps its shape ("$HOME", "$(...)")
	// prog is the catalog's program the command runs; "" when it runs a
	// file of the project, a function of the command, or what is not
	// known until it runs.
	prog string
	// prefix is the program, its subcommands and its key operands: what
	// a person's grant for this command names ("git push", "ssh host").
	prefix []string
	// effects are what it does, redirections included.
	effects []Effect
}

// shellAnalysis is what the analyser learned about a shell command.
type shellAnalysis struct {
	cmds  []simpleCmd
	guard string // a guardrail tripped: why
	err   error  // did not parse, or past a bound: the call asks
}

// risks is the coarse risks of every effect.
func (a *shellAnalysis) risks() Risks { return a.effects().risks() }

// writes are the paths written or deleted, in order.
func (a *shellAnalysis) writes() []string {
	var out []string
	for _, e := range a.effects() {
		if (e.Kind == EffWrite || e.Kind == EffDelete) && e.Path != "" {
			out = append(out, e.Path)
		}
	}
	return out
}

// effects returns every effect of every simple command.
func (a *shellAnalysis) effects() effectSet {
	var out effectSet
	for i := range a.cmds {
		out = append(out, a.cmds[i].effects...)
	}
	return out
}

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

// analyseShell parses cmd and analyses every simple command in it. cwd and
// home let it judge targets such as "*" run in the home folder.
func analyseShell(cmd, cwd, home string, self []string) *shellAnalysis {
	progs, err := builtinPrograms()
	if err != nil {
		return &shellAnalysis{err: err}
	}
	return analyseShellWith(shellEnv{programs: progs, cwd: cwd, home: home, workspace: cwd, self: self}, cmd)
}

// shellEnv is what the analyser reads a command against.
type shellEnv struct {
	programs  *Programs
	cwd       string // where the command starts
	home      string
	workspace string   // the project's root
	self      []string // names and paths agate runs under
	selfPID   int      // the daemon's pid
	repo      func(dir string) RepoFacts
	readPatch func(path string) (string, bool)
	// files tells what is at a path; nil when nobody can tell, and
	// then a path may be anything.
	files func(path string) FileState
}

// analyseShellWith parses cmd and reads every simple command in it
// against env.
func analyseShellWith(env shellEnv, cmd string) *shellAnalysis {
	a := &shellAnalysis{}
	sh := shellCtx{shellEnv: env, a: a, written: map[string]bool{}, funcs: map[string]bool{}}
	sh.parse(cmd, 0)
	return a
}

type shellCtx struct {
	shellEnv
	a       *shellAnalysis
	funcs   map[string]bool // functions the command defines
	written map[string]bool // paths written so far
	linked  bool            // a link agate cannot follow was made: later writes may go anywhere
	// links maps each link the command made to where it points, "" for
	// a place not known until it runs (lnHandler).
	links       map[string]string
	arith       bool // the command evaluates arithmetic
	subsVal     bool // a literal value holds a[$(...)]: arithmetic would run it
	subsLit     bool // a quoted or escaped word holds a[$(...)] or a[`...`]
	subsLitDone bool // and that has been recorded
	// feeds maps a command on the right of a pipe to the one feeding it.
	feeds map[*syntax.Stmt]*syntax.Stmt
	// loopVars are the variables of for loops over a list of words, and
	// the words.
	loopVars map[string][]*syntax.Word
	// stdinPaths, while a command is read, are what the command feeding
	// it prints when that is known to be paths matching these patterns
	// (find . -name '*.go' | xargs ...); nil when it is not known.
	stdinPaths []string
	// stdinFile and stdinText, while a command is read, are what its
	// standard input is: a file it is redirected from (absolute), or the
	// text of a here-document that has no expansions in it.
	stdinFile      string
	stdinText      string
	stdinTextKnown bool
	// top are the statements that run in the command's own shell, one
	// after another (not in a pipe, a subshell or a substitution), and
	// own the variables such a statement set before: their expansion
	// later in the command is what the command put there, not the
	// environment's.
	top map[*syntax.Stmt]bool
	own map[string]bool
}

// lastStmt is the statement of a pipeline's left side whose output feeds
// the right: the last of a pipeline.
func lastStmt(st *syntax.Stmt) *syntax.Stmt {
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) {
			return st
		}
		st = b.Y
	}
}

// pathsFrom says what a command prints, when it prints only paths that
// match patterns it names: find ROOTS with -name (or -iname, -path)
// tests and no negation, fd with -e or -g, git ls-files with pathspecs.
// It returns the patterns, absolute, or nil.
func (sh *shellCtx) pathsFrom(st *syntax.Stmt) []string {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	var words []string
	for _, w := range call.Args {
		s, lit := wordText(w)
		if !lit {
			return nil
		}
		words = append(words, s)
	}
	switch path.Base(words[0]) {
	case "find":
		var roots, pats []string
		i := 1
		for i < len(words) && !strings.HasPrefix(words[i], "-") && words[i] != "(" && words[i] != "!" {
			roots = append(roots, words[i])
			i++
		}
		if len(roots) == 0 {
			roots = []string{"."}
		}
		for ; i < len(words); i++ {
			switch words[i] {
			case "-not", "!", "-regex", "-iregex", "-exec", "-execdir", "-ok", "-okdir", "-printf", "-fprint", "-ls", "-print0":
				if words[i] == "-print0" {
					continue
				}
				return nil
			case "-name", "-iname", "-path", "-ipath", "-wholename":
				if i+1 < len(words) {
					p := words[i+1]
					if words[i] == "-path" || words[i] == "-ipath" || words[i] == "-wholename" {
						p = path.Base(p)
					}
					if strings.HasPrefix(words[i], "-i") {
						p = strings.ToLower(p)
					}
					pats = append(pats, p)
					i++
				}
			}
		}
		if len(pats) == 0 {
			return nil
		}
		var out []string
		for _, r := range roots {
			root := sh.abs(r)
			if root == "" {
				return nil
			}
			for _, p := range pats {
				out = append(out, foundUnder(root, p))
			}
		}
		return out
	case "git":
		if len(words) > 2 && words[1] == "ls-files" {
			var out []string
			for _, w := range words[2:] {
				if strings.HasPrefix(w, "-") {
					if w == "--" || w == "-z" || w == "--cached" || w == "-c" {
						continue
					}
					return nil
				}
				if p := sh.abs(w); p != "" && strings.ContainsAny(w, "*?[") {
					// A pathspec's * crosses slashes: the files it names
					// are any below its literal folder, named like its end.
					lp := litPrefix(p)
					d := lp[:strings.LastIndexByte(lp, '/')]
					out = append(out, foundUnder(d, path.Base(p)))
				} else {
					return nil
				}
			}
			return out
		}
	}
	return nil
}

// foundUnder is the read path that stands for the files a search finds
// below root: those named like name in any folder, or all of them.
func foundUnder(root, name string) string {
	root = strings.TrimRight(root, "/")
	if name == "" || name == "*" {
		return root + "/**"
	}
	return root + "/**/" + name
}

// inProject reports whether p is inside the project.
func (sh *shellCtx) inProject(p string) bool {
	ws := sh.workspace
	return ws != "" && ws != "/" && within(p, ws)
}

// wrote reports whether the command wrote p before this point.
func (sh *shellCtx) wrote(p string) bool { return sh.written[p] }

// repo returns what the caller knows of the git repository dir is in.
func (sh *shellCtx) repo(dir string) RepoFacts {
	if sh.shellEnv.repo == nil || dir == "" {
		return RepoFacts{}
	}
	return sh.shellEnv.repo(dir)
}

// selfProcess reports whether kill, pkill or killall of target reaches
// agate.
func (sh *shellCtx) selfProcess(prog, target string) bool {
	t := strings.ToLower(target)
	if prog == "kill" {
		return sh.selfPID > 0 && t == strconv.Itoa(sh.selfPID)
	}
	if strings.Contains(t, "agate") {
		return true
	}
	for _, s := range sh.self {
		if s != "" && strings.Contains(t, strings.ToLower(path.Base(s))) {
			return true
		}
	}
	return false
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
	sh.top = map[*syntax.Stmt]bool{}
	var topOf func(st *syntax.Stmt)
	topOf = func(st *syntax.Stmt) {
		if st.Background || st.Coprocess {
			return
		}
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok {
			if b.Op == syntax.AndStmt || b.Op == syntax.OrStmt {
				topOf(b.X)
				topOf(b.Y)
			}
			return
		}
		sh.top[st] = true
	}
	if depth == 0 {
		for _, st := range f.Stmts {
			topOf(st)
		}
	}
	// A call of a function the command defines runs the function, not
	// the catalog's program of that name; the function's body is read
	// where it is written. Each command on the right of a pipe is noted
	// with the command that feeds it.
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			if n.Name != nil {
				sh.funcs[n.Name.Value] = true
			}
		case *syntax.ForClause:
			// for f in src/*.go; do ... "$f" ...: $f stands for each word.
			if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil && len(wi.Items) > 0 {
				if sh.loopVars == nil {
					sh.loopVars = map[string][]*syntax.Word{}
				}
				sh.loopVars[wi.Name.Value] = append(sh.loopVars[wi.Name.Value], wi.Items...)
			}
		case *syntax.SglQuoted:
			if subscriptSubst().MatchString(n.Value) {
				sh.subsLit = true
			}
		case *syntax.Lit:
			if subscriptSubst().MatchString(n.Value) {
				sh.subsLit = true
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				if sh.feeds == nil {
					sh.feeds = map[*syntax.Stmt]*syntax.Stmt{}
				}
				sh.feeds[n.Y] = lastStmt(n.X)
			}
		}
		return true
	})
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
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
			sh.arith = true
		case *syntax.TestClause:
			sh.arith = true // [[ x -eq y ]] evaluates its operands as arithmetic
		case *syntax.ProcSubst:
			// <(cmd) as an argument: read below as a path not known.
		}
		return true
	})
	if sh.subsLit && !sh.subsLitDone {
		sh.subsLitDone = true
		// Bash evaluates a[$(cmd)] wherever it reads a word as a number
		// or a variable's name: let, (( )), [[ -eq ]], test -v, declare,
		// printf -v, read, ${x:off}, and a variable's value used in any of
		// them. Quoted, the command is not the parser's to see.
		sh.a.cmds = append(sh.a.cmds, simpleCmd{text: "a[$(...)]", plain: "a[$(...)]", stripped: "a[$(...)]",
			effects: []Effect{{Kind: EffExec, What: "a quoted a[$(...)]: bash runs that command where it reads the word as a number or a name"}}})
	}
	if sh.arith && sh.subsVal {
		sh.a.cmds = append(sh.a.cmds, simpleCmd{text: "(( ))", plain: "(( ))", stripped: "(( ))",
			effects: []Effect{{Kind: EffExec, What: "arithmetic on a value holding $(...) in a subscript runs that command"}}})
	}
}

func (sh *shellCtx) guard(why string) {
	if sh.a.guard == "" {
		sh.a.guard = why
	}
}

// redir is one redirection of a statement: its text for the rules, and
// what it does.
type redir struct {
	text   string
	effect *Effect
}

// stmt analyses a statement: its redirections, its assignments, and, if
// it is a simple command, the command. A statement that is not a simple
// command but redirects or assigns (`> f`, `export X=...`, `(( x ))`)
// is recorded as a command of its own, so an allow rule must cover it too.
func (sh *shellCtx) stmt(src string, st *syntax.Stmt, depth int) {
	var redirs []redir
	stdinCode := false
	sh.stdinFile, sh.stdinText, sh.stdinTextKnown = "", "", false
	for _, r := range st.Redirs {
		target, lit := wordText(r.Word)
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
			syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
			app := r.Op == syntax.AppOut || r.Op == syntax.AppClob || r.Op == syntax.AppAll || r.Op == syntax.AppAllClob
			redirs = append(redirs, redir{text: r.Op.String() + " " + target, effect: sh.redirWrite(target, lit, app)})
		case syntax.RdrInOut:
			redirs = append(redirs, redir{text: r.Op.String() + " " + target, effect: sh.redirWrite(target, lit, false)})
		case syntax.DplOut:
			var e *Effect
			if lit && !isFD(target) {
				e = sh.redirWrite(target, lit, false)
			}
			redirs = append(redirs, redir{text: r.Op.String() + target, effect: e})
		case syntax.RdrIn:
			redirs = append(redirs, redir{text: "< " + target, effect: sh.redirRead(target, lit)})
			if lit {
				sh.stdinFile = sh.abs(target)
			}
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			stdinCode = true
			if r.Hdoc != nil {
				sh.stdinText, sh.stdinTextKnown = wordText(r.Hdoc)
			} else if r.Op == syntax.WordHdoc {
				sh.stdinText, sh.stdinTextKnown = target, lit
			}
		}
	}
	if len(sh.a.cmds) >= maxSimpleCmds {
		sh.fail(errTooMany)
		return
	}
	sh.stdinPaths = nil
	if from := sh.feeds[st]; from != nil {
		sh.stdinPaths = sh.pathsFrom(from)
	}
	secretVars := credentialParams(st, sh.own)
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		assign := sh.assigns(cmd.Assigns)
		if len(cmd.Args) == 0 {
			if len(redirs) > 0 || len(cmd.Assigns) > 0 {
				sh.pseudo(src, st, redirs, append(assign, secretVars...))
			}
			sh.owns(st, cmd.Assigns)
			return
		}
		words, lits, globs, ok := sh.expandWords(cmd.Args)
		if !ok {
			return
		}
		sh.callWith(words, lits, globs, redirs, append(assign, secretVars...), stdinCode, depth)
	case *syntax.DeclClause:
		effs := sh.assigns(cmd.Args)
		if len(cmd.Args) == 0 || allFlags(cmd.Args) {
			switch cmd.Variant.Value {
			case "export", "declare", "typeset", "readonly":
				effs = append(effs, Effect{Kind: EffSecret, What: cmd.Variant.Value + " prints variables, credentials included"})
			}
		}
		sh.pseudo(src, st, redirs, append(effs, secretVars...))
		switch cmd.Variant.Value {
		case "export", "declare", "typeset", "local":
			sh.owns(st, cmd.Args)
		}
	case *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestClause:
		sh.pseudo(src, st, redirs, nil)
	default:
		if len(redirs) > 0 {
			sh.pseudo(src, st, redirs, nil)
		}
	}
}

// owns notes the variables a statement of the command's own shell sets
// (TOKEN=$(curl ... /login), export TOKEN=...): what they hold is the
// command's, judged where it is set.
func (sh *shellCtx) owns(st *syntax.Stmt, as []*syntax.Assign) {
	if !sh.top[st] {
		return
	}
	for _, a := range as {
		if a.Name != nil && !a.Append && a.Index == nil {
			if sh.own == nil {
				sh.own = map[string]bool{}
			}
			sh.own[a.Name.Value] = true
		}
	}
}

// credentialParams are the secret reads of a statement's own words: an
// expansion of a variable whose name says it holds a credential ($OPENAI_API_KEY,
// ${GITHUB_TOKEN}) prints or passes on that credential, unless the
// command set it itself (own).
func credentialParams(st *syntax.Stmt, own map[string]bool) []Effect {
	var assigns []*syntax.Assign
	var args []*syntax.Word
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		assigns, args = c.Assigns, c.Args
	case *syntax.DeclClause:
		assigns = c.Args
	default:
		return nil
	}
	var out []Effect
	seen := map[string]bool{}
	check := func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil {
			name := pe.Param.Value
			if !seen[name] && !own[name] && credentialVar(name) {
				seen[name] = true
				out = append(out, Effect{Kind: EffSecret, What: "it expands $" + name + ", a credential"})
			}
		}
		return true
	}
	for _, w := range args {
		syntax.Walk(w, check)
	}
	for _, a := range assigns {
		if a.Value != nil {
			syntax.Walk(a.Value, check)
		}
	}
	return out
}

// credentialVar reports whether a variable's name says it holds a
// credential: one of its words (split at _) is KEY, TOKEN, SECRET,
// PASSWORD, PASS, CREDENTIAL(S), AUTH, COOKIE or PAT, or it ends in
// APIKEY.
func credentialVar(name string) bool {
	u := strings.ToUpper(name)
	if strings.HasSuffix(u, "APIKEY") {
		return true
	}
	for _, w := range strings.Split(u, "_") {
		switch w {
		case "KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "CREDENTIAL", "CREDENTIALS", "AUTH", "COOKIE", "PAT", "APIKEY", "PASSPHRASE":
			return true
		}
	}
	return false
}

// allFlags reports whether a declaration's words are all options
// (export -p, declare -x).
func allFlags(as []*syntax.Assign) bool {
	for _, a := range as {
		if a.Name != nil || a.Value == nil {
			return false
		}
		if v, _ := wordText(a.Value); !strings.HasPrefix(v, "-") {
			return false
		}
	}
	return true
}

// redirWrite is what `> target` does.
func (sh *shellCtx) redirWrite(target string, lit, app bool) *Effect {
	switch {
	case !lit:
		return &Effect{Kind: EffWrite, What: "a redirection to a path not known until it runs: " + target}
	case target == "/dev/null" || target == "/dev/stdout" || target == "/dev/stderr" || target == "/dev/tty" ||
		strings.HasPrefix(target, "/dev/fd/") || target == "-":
		return nil
	case strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/"):
		return &Effect{Kind: EffUpload, Host: devNetHost(target), What: "a redirection to " + target}
	case isDiskDevice(target):
		sh.guard("writes onto the disk device " + target)
		return nil
	}
	e := &Effect{Kind: EffWrite, Append: app}
	if sh.linked {
		e.What = "a write through a link made earlier in the command: " + target
		return e
	}
	if e.Path = sh.abs(target); e.Path == "" {
		e.What = "a redirection to a path not known until it runs: " + target
	} else {
		sh.throughLinks(e)
		sh.written[e.Path] = true
	}
	return e
}

// maxLinkHops bounds the links throughLinks follows from one path.
const maxLinkHops = 8

// throughLinks moves an effect on a path at or below a link the command
// made to where the link points, following links to links.
func (sh *shellCtx) throughLinks(e *Effect) {
	if len(sh.links) == 0 || e.Path == "" {
		return
	}
	for range maxLinkHops {
		link, to := "", ""
		for l, t := range sh.links {
			if (e.Path == l || within(e.Path, l)) && len(l) > len(link) {
				link, to = l, t
			}
		}
		if link == "" {
			return
		}
		via := "through the link " + link + " made earlier in the command"
		if to == "" {
			e.Path, e.What = "", "a path "+via+", to a place not known until it runs"
			return
		}
		rest := strings.TrimPrefix(e.Path, link)
		e.Path = path.Clean(to + rest)
		if e.What == "" {
			e.What = via
		} else if !strings.Contains(e.What, via) {
			e.What += " (" + via + ")"
		}
	}
}

// redirRead is what `< target` does.
func (sh *shellCtx) redirRead(target string, lit bool) *Effect {
	switch {
	case !lit:
		return &Effect{Kind: EffRead, What: "a redirection from a path not known until it runs: " + target}
	case strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/"):
		return &Effect{Kind: EffNetwork, Host: devNetHost(target), What: "a redirection from " + target}
	case target == "/dev/null" || target == "/dev/stdin":
		return nil
	}
	if p := sh.abs(target); p != "" {
		e := &Effect{Kind: EffRead, Path: p}
		sh.throughLinks(e)
		return e
	}
	return &Effect{Kind: EffRead, What: "a redirection from a path not known until it runs: " + target}
}

// devNetHost is the host of /dev/tcp/HOST/PORT.
func devNetHost(t string) string {
	parts := strings.Split(t, "/")
	if len(parts) >= 4 {
		return strings.ToLower(parts[3])
	}
	return ""
}

// pseudo records a statement that is not a simple command as a command
// with no name, its source text as its text.
func (sh *shellCtx) pseudo(src string, st *syntax.Stmt, redirs []redir, effs []Effect) {
	text := strings.TrimSpace(src[st.Pos().Offset():min(int(st.End().Offset()), len(src))])
	if text == "" {
		text = joinWords(nil, redirTexts(redirs))
	}
	sc := simpleCmd{text: text, stripped: text, plain: text, effects: effs}
	for _, r := range redirs {
		if r.effect != nil {
			sc.effects = append(sc.effects, *r.effect)
		}
	}
	sh.a.cmds = append(sh.a.cmds, sc)
}

func redirTexts(rs []redir) []string {
	if len(rs) == 0 {
		return nil
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.text
	}
	return out
}

// dangerousVars are variables that make a program run other code: set
// before a command, or exported, they are inline code.
var dangerousVars = map[string]bool{
	"PAGER": true, "GIT_PAGER": true, "MANPAGER": true, "EDITOR": true, "VISUAL": true, "GIT_EDITOR": true,
	"GIT_SEQUENCE_EDITOR": true, "GIT_EXTERNAL_DIFF": true, "GIT_SSH": true, "GIT_SSH_COMMAND": true,
	"GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_EXEC_PATH": true, "GIT_CONFIG_PARAMETERS": true,
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG": true, "GIT_DIR": true, "GIT_WORK_TREE": true, "BASH_ENV": true,
	"ENV": true, "PS4": true, "PS1": true, "PS0": true, "PROMPT_COMMAND": true, "LD_PRELOAD": true,
	"LD_LIBRARY_PATH": true, "LD_AUDIT": true, "DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true,
	"PYTHONSTARTUP": true, "PYTHONPATH": true, "PYTHONHOME": true, "PYTHONINSPECT": true, "NODE_OPTIONS": true,
	"NODE_PATH": true, "PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true,
	"BROWSER": true, "SHELL": true, "PATH": true, "IFS": true, "CDPATH": true, "HISTFILE": true,
	"LESSOPEN": true, "LESSCLOSE": true, "LESSKEY": true, "MAKEFLAGS": true, "MFLAGS": true, "GOFLAGS": true,
	"RUSTC_WRAPPER": true, "CC": true, "CXX": true, "LDFLAGS": false, "NPM_CONFIG_USERCONFIG": true,
	"NPM_CONFIG_REGISTRY": true, "PIP_INDEX_URL": true, "PIP_EXTRA_INDEX_URL": true, "HOME": true,
	"XDG_CONFIG_HOME": true, "ZDOTDIR": true, "TERMINFO": true, "GCONV_PATH": true, "LOCPATH": true,
	// They run code, load a library, or read their options from a file the
	// variable names.
	"AUTOM4TE": true, "AUTOCONF": true, "AUTOHEADER": true, "M4": true, "GROFF_BIN_PATH": true,
	"CRASHPAGER": true, "PERL5DB": true, "PERLDB_OPTS": true, "BUNDLE_GEMFILE": true, "FACTERLIB": true,
	"LUA_INIT": true, "LUA_INIT_5_1": true, "LUA_INIT_5_2": true, "LUA_INIT_5_3": true, "LUA_INIT_5_4": true,
	"LUA_PATH": true, "LUA_CPATH": true, "TCLLIBPATH": true, "R_PROFILE": true, "R_PROFILE_USER": true,
	"R_ENVIRON": true, "R_ENVIRON_USER": true, "PHPRC": true, "PHP_INI_SCAN_DIR": true,
	"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "JAVA_OPTS": true,
	"MAVEN_OPTS": true, "GRADLE_OPTS": true, "CLASSPATH": true, "ERL_AFLAGS": true, "ERL_FLAGS": true,
	"ERL_ZFLAGS": true, "ELIXIR_ERL_OPTIONS": true, "GIT_TEMPLATE_DIR": true, "MANOPT": true,
	"SYSTEMD_PAGER": true, "LESSKEYIN": true, "LESSKEY_CONTENT": true, "LESSEDIT": true, "VIMINIT": true,
	"EXINIT": true, "MYVIMRC": true, "GVIMINIT": true, "shell_escape": true, "KUBECONFIG": true,
	"AWS_CONFIG_FILE": true, "PYTHONWARNINGS": true, "PYTHONBREAKPOINT": true, "RUSTC": true,
	"RUSTC_WORKSPACE_WRAPPER": true, "RUSTDOC": true, "CARGO_BUILD_RUSTC_WRAPPER": true, "GOTOOLCHAIN": true,
	"CPP": true, "LD": true, "NPM_CONFIG_SCRIPT_SHELL": true, "npm_config_script_shell": true,
	"npm_config_userconfig": true, "npm_config_registry": true, "YARN_RC_FILENAME": true, "SUDO_ASKPASS": true,
	"SHELLOPTS": true, "BASHOPTS": true, "OPENSSL_CONF": true, "OPENSSL_ENGINES": true, "OPENSSL_MODULES": true,
	"CURL_HOME": true, "WGETRC": true, "PIP_CONFIG_FILE": true, "MAKEFILES": true, "GNUMAKEFLAGS": true,
	"TERMINFO_DIRS": true, "SCREENRC": true, "TMUX_CONF": true, "RESTIC_PASSWORD_COMMAND": true,
	"NODE_REPL_EXTERNAL_MODULE": true, "BAT_PAGER": true, "BAT_CONFIG_PATH": true, "COWPATH": true,
	"BORG_RSH": true, "BORG_REMOTE_PATH": true, "RSYNC_RSH": true, "RSYNC_CONNECT_PROG": true, "CVS_RSH": true,
	"RCLONE_CONFIG": true, "FZF_DEFAULT_COMMAND": true, "FZF_DEFAULT_OPTS": true, "FZF_DEFAULT_OPTS_FILE": true,
	"RIPGREP_CONFIG_PATH": true, "DELTA_PAGER": true, "TAR_OPTIONS": true, "UNZIP": true, "UNZIPOPT": true,
	"ZIPOPT": true, "GNUPGHOME": true, "LESS": true, "MORE": true, "DOCKER_HOST": true, "DOCKER_CONTEXT": true,
	"DOCKER_CONFIG": true, "CONTAINER_HOST": true, "CONTAINER_CONNECTION": true, "PARALLEL": true,
	"PARALLEL_SHELL": true, "TEXMFCNF": true, "TEXINPUTS": true, "LUAINPUTS": true, "MAILRC": true,
	"NAILRC": true, "MUTTRC": true, "EMAIL_CONFIG": true, "XDG_CONFIG_DIRS": true,
}

// harmlessGitVars are git's variables that change only what git writes
// into commits and how it matches and prints. Any other GIT_ variable can
// make git run code or write elsewhere: GIT_COMMON_DIR reads another
// repository's config (core.fsmonitor), GIT_TRACE=FILE and GIT_INDEX_FILE
// write FILE.
var harmlessGitVars = map[string]bool{"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
	"GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true, "GIT_TERMINAL_PROMPT": true,
	"GIT_OPTIONAL_LOCKS": true, "GIT_FLUSH": true, "GIT_MERGE_AUTOEDIT": true, "GIT_MERGE_VERBOSITY": true,
	"GIT_LITERAL_PATHSPECS": true, "GIT_GLOB_PATHSPECS": true, "GIT_NOGLOB_PATHSPECS": true, "GIT_ICASE_PATHSPECS": true,
	"GIT_NO_REPLACE_OBJECTS": true, "GIT_REDACT_COOKIES": true, "GIT_DEFAULT_HASH": true, "GIT_ADVICE": true,
	"GIT_PROGRESS_DELAY": true, "GIT_NOTES_REF": true, "GIT_DIFF_OPTS": true, "GIT_CEILING_DIRECTORIES": true,
	"GIT_DISCOVERY_ACROSS_FILESYSTEM": true, "GIT_PAGER_IN_USE": false}

// dangerousVar reports whether assigning name can make a program run code.
func dangerousVar(name string) bool {
	return dangerousVars[name] || redirectVar(name) || strings.HasPrefix(name, "GIT_") && !harmlessGitVars[name] || strings.HasPrefix(name, "LD_") ||
		strings.HasPrefix(name, "DYLD_") || strings.HasSuffix(name, "_COMMAND") || strings.HasSuffix(name, "_EDITOR") ||
		strings.HasPrefix(name, "AGATE_") || strings.HasPrefix(strings.ToLower(name), "npm_config_") ||
		strings.HasPrefix(name, "PIP_") || strings.HasPrefix(name, "UV_") || strings.HasPrefix(name, "CARGO_") && strings.HasSuffix(name, "_RUNNER") ||
		strings.HasPrefix(name, "RUSTC") || name == "GOTOOLCHAIN" || name == "GOPROXY" || name == "GONOSUMDB" || name == "GOINSECURE"
}

// redirectVar reports whether setting name sends a program's connections
// elsewhere than it would go, or makes it trust another certificate
// authority: a proxy (HTTPS_PROXY, all_proxy), a CA bundle, another
// endpoint or host for a tool (AWS_ENDPOINT_URL, GH_HOST). A read of the
// service a tool is set up for is then a read through, or of, whatever
// the command names, with the person's login.
func redirectVar(name string) bool {
	u := strings.ToUpper(name)
	return strings.HasSuffix(u, "_PROXY") && u != "NO_PROXY" || redirectVars[u] ||
		strings.HasPrefix(u, "AWS_ENDPOINT_URL") || strings.HasPrefix(u, "CLOUDSDK_API_ENDPOINT_OVERRIDES_")
}

// redirectVars are the variables, beyond proxies, that redirectVar names.
var redirectVars = map[string]bool{
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "CURL_CA_BUNDLE": true, "REQUESTS_CA_BUNDLE": true,
	"NODE_EXTRA_CA_CERTS": true, "NODE_TLS_REJECT_UNAUTHORIZED": true, "AWS_CA_BUNDLE": true,
	"GH_HOST": true, "GITHUB_API_URL": true, "GH_ENTERPRISE_TOKEN": true, "DOCKER_HOST": true,
	"DOCKER_CONTEXT": true, "KUBECONFIG": true,
}

// varWhy says why setting name is not harmless.
func varWhy(name string) string {
	if redirectVar(name) {
		return "sets " + name + ", which sends programs' connections elsewhere or makes them trust another certificate"
	}
	return "sets " + name + ", which makes programs run other code"
}

// assigns returns what variable assignments do: those that make programs
// run other code are code. A literal value with a[$(...)] in it makes
// any arithmetic later in the command run that command.
func (sh *shellCtx) assigns(as []*syntax.Assign) []Effect {
	var out []Effect
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		if dangerousVar(a.Name.Value) && !sh.harmlessValue(a.Name.Value, a.Value) {
			out = append(out, Effect{Kind: EffExec, What: varWhy(a.Name.Value)})
		}
		if a.Value != nil {
			if v, _ := wordText(a.Value); strings.Contains(v, "[") && (strings.Contains(v, "$(") || strings.Contains(v, "`")) {
				sh.subsVal = true
			}
		}
	}
	return out
}

// projectPathVars name folders code is loaded from: set to folders of the
// project, they load the project's own code.
var projectPathVars = map[string]bool{"PYTHONPATH": true, "NODE_PATH": true, "RUBYLIB": true, "PERL5LIB": true,
	"PERLLIB": true, "CLASSPATH": true, "GOPATH": false}

// safeGoFlags are the go command's flags GOFLAGS may carry and stay
// harmless.
var safeGoFlags = []string{"-mod=", "-tags=", "-count=", "-race", "-trimpath", "-buildvcs=", "-v", "-p=", "-short", "-cover", "-modcacherw", "-timeout="}

// harmlessValue reports whether a value given to a variable that can make
// programs run other code keeps to the project's own: PYTHONPATH=src,
// GOFLAGS=-mod=vendor.
func (sh *shellCtx) harmlessValue(name string, v *syntax.Word) bool {
	if v == nil {
		return true // X= : emptied
	}
	val, lit := wordText(v)
	if !lit {
		return false
	}
	switch {
	case projectPathVars[name]:
		for _, e := range strings.Split(val, ":") {
			if e == "" {
				continue
			}
			p := sh.abs(e)
			if p == "" || !sh.inProject(p) {
				return false
			}
		}
		return true
	case name == "GOFLAGS":
		for _, f := range strings.Fields(val) {
			ok := false
			for _, s := range safeGoFlags {
				ok = ok || f == s || strings.HasSuffix(s, "=") && strings.HasPrefix(f, s)
			}
			if !ok {
				return false
			}
		}
		return true
	}
	return false
}

// subscriptSubst matches a subscript holding a command substitution in
// text the parser took as literal: 'a[$(id)]', a[\$(id)], 'x[`id`]'.
var subscriptSubst = lazyRegexp("\\[[^\\]]*(\\$\\(|`)")

// maxBraceWords bounds what one word's brace expansion may give.
const maxBraceWords = 256

// expandWords resolves a simple command's words, brace expansion applied
// as bash does ({rm,-rf,/} is three words). globs says which words have an
// unquoted glob character.
func (sh *shellCtx) expandWords(args []*syntax.Word) (words []string, lits, globs []bool, ok bool) {
	words, lits, globs = make([]string, 0, len(args)), make([]bool, 0, len(args)), make([]bool, 0, len(args))
	for _, w := range args {
		if items := sh.loopItems(w); items != nil {
			for _, it := range items {
				s, lit := wordText(it)
				words, lits, globs = append(words, s), append(lits, lit), append(globs, hasGlob(it))
			}
			continue
		}
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

// loopItems returns the words a for loop's variable stands for, when w is
// that variable alone ("$f", $f, ${f}); nil otherwise.
func (sh *shellCtx) loopItems(w *syntax.Word) []*syntax.Word {
	if sh.loopVars == nil || len(w.Parts) != 1 {
		return nil
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	pe, ok := part.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Length || pe.Excl {
		return nil
	}
	return sh.loopVars[pe.Param.Value]
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

// hasGlob reports whether a word has an unquoted *, ?, or [ closed by a
// ] later in the word (a lone "[", the test command, is no glob).
func hasGlob(w *syntax.Word) bool {
	for i, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			continue
		}
		if strings.ContainsAny(l.Value, "*?") {
			return true
		}
		if j := strings.IndexByte(l.Value, '['); j >= 0 {
			if strings.Contains(l.Value[j+1:], "]") {
				return true
			}
			for _, q := range w.Parts[i+1:] {
				if ql, ok := q.(*syntax.Lit); ok && strings.Contains(ql.Value, "]") {
					return true
				}
			}
		}
	}
	return false
}

// guardedNames are the commands a glob in command position is checked
// against (/bin/r? -rf / runs rm).
var guardedNames = []string{"rm", "rmdir", "shred", "mkfs", "mke2fs", "mkswap", "wipefs", "dd", "shutdown",
	"reboot", "halt", "poweroff", "init", "telinit", "systemctl", "agate", "agate-cli", "agate-hook", "find", "kill", "killall"}

// call analyses one simple command given as words, run by another
// command (a wrapper's, find -exec's): no redirections of its own.
func (sh *shellCtx) call(words []string, lits, globs []bool, _ []redir, stdinCode bool, depth int) {
	sh.callWith(words, lits, globs, nil, nil, stdinCode, depth)
}

// callWith analyses one simple command: its program, read against the
// catalog, and what its redirections and assignments do.
func (sh *shellCtx) callWith(words []string, lits, globs []bool, redirs []redir, assign []Effect, stdinCode bool, depth int) {
	if len(sh.a.cmds) >= maxSimpleCmds {
		sh.fail(errTooMany)
		return
	}
	rt := redirTexts(redirs)
	sc := simpleCmd{text: joinWords(words, rt)}
	sc.plain = sc.text
	if len(redirs) > 0 {
		sc.plain = joinWords(words, nil)
	}
	sc.stripped = sc.text
	sc.effects = append(sc.effects, assign...)
	for _, r := range redirs {
		if r.effect != nil {
			sc.effects = append(sc.effects, *r.effect)
		}
	}
	at := len(sh.a.cmds)
	sh.a.cmds = append(sh.a.cmds, sc)
	effs, m := sh.program(words, lits, globs, stdinCode, depth)
	// Nested commands may have grown the slice: take the element again.
	c := &sh.a.cmds[at]
	c.name, c.args, c.prog, c.prefix = m.name, m.args, m.prog, m.prefix
	c.based = c.stripped
	if m.based != "" {
		c.based = joinWords([]string{m.based}, nil)
		if len(words) > 1 {
			c.based = joinWords(append([]string{m.name}, words[1:]...), rt)
		}
	}
	c.effects = append(c.effects, effs...)
	for _, e := range effs {
		if (e.Kind == EffWrite || e.Kind == EffDelete) && e.Path != "" {
			sh.written[e.Path] = true
		}
	}
}

func strconvQuote(s string) string { return strconv.Quote(s) }

// cmdMeta is what program learns of a simple command beyond its effects.
type cmdMeta struct {
	name   string   // the command word's base name
	args   []string // the words after it
	prog   string   // the catalog's program, if any
	prefix []string
	based  string // set when the command word is a path: its base name
}

// program reads the command words[0] runs and returns what it does.
func (sh *shellCtx) program(words []string, lits, globs []bool, stdinCode bool, depth int) ([]Effect, cmdMeta) {
	w0 := words[0]
	m := cmdMeta{name: w0}
	if !lits[0] || globs[0] {
		// $CMD args, or a glob: the program is not known until it runs.
		effs := []Effect{{Kind: EffExec, What: "the program " + w0 + " is not known until it runs"}}
		if globs[0] {
			for _, name := range guardedNames {
				if wildMatch(path.Base(w0), name) {
					sh.guardrails(name, name, words[1:], lits[1:])
				}
			}
		}
		return effs, m
	}
	name := path.Base(w0)
	m.name, m.args = name, words[1:]
	if w0 != name {
		m.based = name
	}
	if sh.guardrails(w0, name, words[1:], lits[1:]) {
		return nil, m
	}
	switch {
	case sh.funcs[w0]:
		m.prefix = []string{w0}
		return nil, m // the function's body is read where it is written
	case strings.ContainsAny(w0, " \t\n|&;<>()$`"):
		// A program's name with spaces or shell syntax in it: nothing of
		// the project's, and nothing agate can read.
		return []Effect{{Kind: EffExec, What: "runs " + strconvQuote(w0) + ", a program name agate cannot read"}}, m
	case !systemProgram(w0):
		// ./build.sh, bin/tool: a file of the project (or from elsewhere).
		c := &cmdRun{sh: sh, spec: &progSpec{name: w0}, prog: name, word: w0, base: sh.cwd, depth: depth}
		c.script(w0, true)
		m.prefix = []string{w0}
		return c.effects, m
	}
	spec := sh.programs.lookupVersioned(name)
	if spec == nil {
		m.prefix = []string{name}
		return []Effect{{Kind: EffUnknown, What: name + " is not a program agate knows"}}, m
	}
	m.prog = spec.name
	args, alits, aglobs := words[1:], lits[1:], globs[1:]
	var c *cmdRun
	if spec.handler != nil && spec.raw {
		c = &cmdRun{sh: sh, spec: spec, prog: name, word: w0, words: args, lits: alits, globs: aglobs,
			prefix: []string{name}, base: sh.cwd, depth: depth, stdinCode: stdinCode}
		if spec.ask {
			c.unknown("the config says every call of " + name + " asks")
		}
		for _, t := range spec.effects {
			c.template(t)
		}
		spec.handler(c)
	} else {
		c = sh.runProgram(spec, name, w0, args, alits, aglobs, stdinCode, depth)
	}
	m.prefix = c.prefix
	if name == "cd" || name == "pushd" || name == "popd" || name == "chdir" {
		sh.chdir(name, args, alits)
	}
	return c.effects, m
}

// chdir moves the folder later relative paths are taken from; a folder
// not known until it runs makes them unknown.
func (sh *shellCtx) chdir(name string, args []string, lits []bool) {
	if name == "popd" {
		sh.cwd = ""
		return
	}
	target := "~"
	lit := true
	for j, x := range args {
		if !strings.HasPrefix(x, "-") || x == "-" {
			target, lit = x, lits[j]
			break
		}
	}
	switch {
	case !lit || target == "-" || (strings.HasPrefix(target, "~") && target != "~" && !strings.HasPrefix(target, "~/")):
		sh.cwd = ""
	case sh.cwd != "" || strings.HasPrefix(target, "/") || strings.HasPrefix(target, "~"):
		sh.cwd = absPath(target, sh.cwd, sh.home)
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
	if len(w.Parts) == 1 {
		if _, ok := w.Parts[0].(*syntax.ProcSubst); ok {
			// <(cmd), >(cmd): a pipe to or from cmd, which is read where
			// it is written; the program sees a path in /dev/fd.
			return "/dev/fd/63", true
		}
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
