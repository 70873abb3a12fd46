package policy

import (
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
)

// cmdRun is one simple command being read against its catalog entry.
type cmdRun struct {
	sh      *shellCtx
	spec    *progSpec // the entry; the subcommand's once one is named
	prog    string    // the program's base name
	word    string    // the command word as written
	words   []string  // the words after the command word
	lits    []bool
	globs   []bool
	opts    []optUse
	ops     []operand
	effects []Effect
	prefix  []string
	base    string // the folder relative paths are taken from: the shell's, or -C DIR
	depth   int
	// stdinCode: the command's standard input is code (a here-document
	// or here-string); piped input is not known here.
	stdinCode bool
	stopped   bool   // an unknown subcommand: nothing more is read
	restText  bool   // the words left are another program's arguments
	elsewhere bool   // a handler has said the folder it works in is not the project
	withdrawn uint32 // effect kinds (as bits) options took back from the entry's own
	// remoteKey names the programs a command runs on another host (ssh
	// HOST CMD): a part of its prefix.
	remoteKey string
}

// optUse is one option given.
type optUse struct {
	name   string
	spec   *optSpec
	val    string
	lit    bool
	hasVal bool
}

// operand is one operand given.
type operand struct {
	word string
	lit  bool
	glob bool
	role role
	at   int // its index in words
}

// has reports whether the command was given one of the options names.
func (c *cmdRun) has(names ...string) bool {
	for _, o := range c.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

// optVal returns the value of the last of the named options given.
func (c *cmdRun) optVal(names ...string) (string, bool) {
	v, found := "", false
	for _, o := range c.opts {
		for _, n := range names {
			if o.name == n && o.hasVal {
				v, found = o.val, true
			}
		}
	}
	return v, found
}

func (c *cmdRun) add(e Effect) {
	c.sh.throughLinks(&e)
	c.effects = append(c.effects, e)
}

func (c *cmdRun) unknown(what string) { c.add(Effect{Kind: EffUnknown, What: what}) }

// abs makes a path from the command absolute against the folder it runs
// in; "" when that is not known.
func (c *cmdRun) abs(p string) string {
	if c.base != c.sh.cwd {
		saved := c.sh.cwd
		c.sh.cwd = c.base
		defer func() { c.sh.cwd = saved }()
	}
	return c.sh.abs(p)
}

// pathEffect records a read, write or delete of word.
func (c *cmdRun) pathEffect(k EffectKind, word string, lit bool, e Effect) {
	e.Kind = k
	if lit {
		if rest, ok := strings.CutPrefix(word, "$HOME"); ok {
			word = "~" + rest
		}
		e.Path = c.abs(word)
	} else if rest, ok := strings.CutPrefix(word, "$HOME"); ok && !strings.ContainsAny(rest, "$`") {
		e.Path = c.abs("~" + rest)
	}
	if e.Path == "" && e.What == "" {
		e.What = "a path not known until it runs: " + word
	}
	c.add(e)
	if k == EffRead && lit && !e.Names {
		// git show HEAD:.env, scp host:path: the part after a colon too.
		if i := strings.IndexByte(word, ':'); i > 0 && i < len(word)-1 && !strings.Contains(word[:i], "/") {
			if p := c.abs(word[i+1:]); p != "" {
				c.add(Effect{Kind: EffRead, Path: p})
			}
		}
	}
}

// runProgram reads a simple command whose program the catalog knows.
func (sh *shellCtx) runProgram(spec *progSpec, prog, word string, words []string, lits, globs []bool, stdinCode bool, depth int) *cmdRun {
	c := &cmdRun{sh: sh, spec: spec, prog: prog, word: word, words: words, lits: lits, globs: globs,
		prefix: []string{prog}, base: sh.cwd, depth: depth, stdinCode: stdinCode}
	if spec.ask {
		c.unknown("the config says every call of " + prog + " asks")
	}
	c.read()
	c.projectElsewhere()
	return c
}

// projectElsewhere: a program that runs the project's code runs the build
// files, scripts and config of the folder it works in (a Makefile,
// package.json, conftest.py). When that folder is not in the project,
// the code is not the project's: code agate cannot read. (A script named
// by its path is judged by that path instead.)
func (c *cmdRun) projectElsewhere() {
	if c.elsewhere || c.base != "" && c.sh.inProject(c.base) {
		return
	}
	for _, e := range c.effects {
		if e.Kind == EffProject && e.Path == "" {
			where := c.base
			if where == "" {
				where = "a folder not known until it runs"
			}
			c.add(Effect{Kind: EffExec, What: c.prog + " runs the build files of " + where + ", which is not the project"})
			return
		}
	}
}

// read goes through the words: options, subcommands, operands.
func (c *cmdRun) read() {
	optsDone := false
	subChosen := c.spec.sub == nil
	rest := -1 // index where a role that takes the rest begins
	for i := 0; i < len(c.words); i++ {
		w := c.words[i]
		if !optsDone && c.lits[i] && w == "--" {
			optsDone = true
			continue
		}
		if !optsDone && c.lits[i] && len(w) > 1 && (w[0] == '-' || w[0] == '+' && c.plusOpt(w)) {
			i = c.option(i)
			if c.stopped {
				return
			}
			if c.restText {
				break
			}
			continue
		}
		if !subChosen {
			if !c.lits[i] {
				c.unknown(c.spec.name + " runs a subcommand not known until it runs")
				c.stopped = true
				return
			}
			sub := c.spec.sub[w]
			if sub == nil && c.spec.scripts {
				c.prefix = append(c.prefix, w)
				c.add(Effect{Kind: EffProject, What: c.spec.name + " runs the project's script " + w})
				c.stopped = true
				return
			}
			if sub == nil {
				c.unknown(c.spec.name + " " + w + " is not a subcommand agate knows")
				c.prefix = append(c.prefix, w)
				c.stopped = true
				return
			}
			c.spec = sub
			c.prefix = append(c.prefix, w)
			subChosen = sub.sub == nil
			if sub.raw {
				// The subcommand reads its words itself (git bisect run CMD).
				c.words, c.lits, c.globs = c.words[i+1:], c.lits[i+1:], c.globs[i+1:]
				c.templates(sub)
				sub.handler(c)
				c.stopped = true
				return
			}
			continue
		}
		c.ops = append(c.ops, operand{word: w, lit: c.lits[i], glob: c.globs[i], at: i})
		if c.spec.posix {
			optsDone = true
		}
		// A role that takes the rest of the words ends the reading here.
		if rs := c.spec.args; rs.hasRep && rs.rep.rest() && len(c.ops) > len(rs.head) {
			rest = i
			c.ops = c.ops[:len(c.ops)-1]
			break
		}
	}
	if !subChosen && len(c.ops) == 0 && c.spec.sub != nil && c.spec.parent == nil && len(c.words) > 0 {
		// Options only, no subcommand: `git --version`.
	}
	c.operands(rest)
	c.templates(c.spec)
	for n := 0; n < c.spec.key && n < len(c.ops); n++ {
		c.prefix = append(c.prefix, c.ops[n].word)
	}
	if c.remoteKey != "" {
		c.prefix = append(c.prefix, c.remoteKey) // what runs there (ssh HOST uname)
	}
	if c.spec.handler != nil {
		c.spec.handler(c)
	}
}

// plusOpt reports whether a word starting with + is one of the program's
// options (set +e, less +F).
func (c *cmdRun) plusOpt(w string) bool {
	for p := c.spec; p != nil; p = p.parent {
		for n := range p.exact {
			if strings.HasPrefix(n, "+") {
				return true
			}
		}
		for _, o := range p.prefixes {
			if strings.HasPrefix(o.names[0], "+") {
				return true
			}
		}
	}
	return false
}

// option reads the option at words[i] and returns the index of its last
// word.
func (c *cmdRun) option(i int) int {
	w := c.words[i]
	take := func(o *optSpec, name, val string, hasVal bool) int {
		lit := true
		if !hasVal && o.arg == argRequired {
			if i+1 >= len(c.words) {
				c.unknown("option " + name + " of " + c.spec.name + " without its value")
				return i
			}
			i++
			val, lit, hasVal = c.words[i], c.lits[i], true
		}
		if hasVal && o.arg == argNone {
			c.unknown("option " + name + " of " + c.spec.name + " takes no value")
			return i
		}
		c.opts = append(c.opts, optUse{name: name, spec: o, val: val, lit: lit, hasVal: hasVal})
		for _, k := range o.withdraw {
			c.withdrawn |= 1 << k
		}
		for _, t := range o.effects {
			c.template(t)
		}
		switch {
		case hasVal && o.role == roleModule:
			c.module(val, lit, i+1)
		case hasVal:
			c.value(o.role, val, lit, name)
		}
		if o.rest {
			// python3 -m MODULE ARGS, -c CODE ARGS: the rest is the code's.
			c.restText = true
		}
		return i
	}
	if strings.HasPrefix(w, "--") {
		name, val, hasVal := strings.Cut(w, "=")
		o := c.spec.lookupOpt(name)
		if o == nil {
			c.unknown("option " + name + " of " + c.specName() + " is not one agate knows")
			return i
		}
		return take(o, name, val, hasVal)
	}
	// A whole word first: -name, -exec, -std=c99; then a pattern: -Wall.
	if o := c.spec.exactOpt(w); o != nil {
		return take(o, w, "", false)
	}
	if name, val, ok := strings.Cut(w, "="); ok {
		if o := c.spec.exactOpt(name); o != nil && o.arg != argNone {
			return take(o, name, val, true)
		}
	}
	if o := c.spec.lookupOpt(w); o != nil && o.arg == argNone {
		return take(o, w, "", false)
	}
	if o := c.spec.numOpt(); o != nil && w[0] == '-' && allDigits(w[1:]) {
		return take(o, "-NUM", "", false)
	}
	if w[0] == '+' {
		c.unknown("option " + w + " of " + c.specName() + " is not one agate knows")
		return i
	}
	// A cluster of short options: -rf, -n5, -ofile.
	for j := 1; j < len(w); j++ {
		name := "-" + w[j:j+1]
		o := c.spec.lookupOpt(name)
		if o == nil {
			c.unknown("option " + name + " of " + c.specName() + " is not one agate knows")
			return i
		}
		if o.arg != argNone {
			if j+1 < len(w) {
				return take(o, name, w[j+1:], true)
			}
			return take(o, name, "", false)
		}
		take(o, name, "", false)
	}
	return i
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// operands gives each operand its role and records what it does; rest is
// the index where a role that takes the rest of the words begins, or -1.
func (c *cmdRun) operands(rest int) {
	var roles []role
	if r := c.argsRole(); r != nil {
		roles = make([]role, len(c.ops))
		for i := range roles {
			roles[i] = *r
		}
	} else {
		var extra int
		rs := c.spec.args
		if rest >= 0 {
			rs.hasRep = false // the rest role is taken below
		}
		roles, extra = rs.assign(len(c.ops))
		if extra > 0 && rest < 0 {
			c.unknown(c.spec.name + " is given more operands than agate knows it to take")
		}
	}
	for i := range c.ops {
		c.ops[i].role = roles[i]
		c.value(roles[i], c.ops[i].word, c.ops[i].lit, "")
	}
	if rest >= 0 {
		c.restRole(c.spec.args.rep, rest)
	}
}

// specName is the entry's name as the command spelled its program: an
// alias's own name ("opencode run", not the "claude run" of the entry it
// shares), a subcommand's after it.
func (c *cmdRun) specName() string {
	root, rest, _ := strings.Cut(c.spec.name, " ")
	if c.prog == "" || c.prog == root {
		return c.spec.name
	}
	if rest == "" {
		return c.prog
	}
	return c.prog + " " + rest
}

// argsRole is the role an option given gives every operand, if any.
func (c *cmdRun) argsRole() *role {
	var r *role
	for _, o := range c.opts {
		if o.spec.argsRole != nil {
			r = o.spec.argsRole
		}
	}
	return r
}

// restRole reads words[from:] as what role takes: a command, or words
// run on a remote host.
func (c *cmdRun) restRole(r role, from int) {
	words, lits, globs := c.words[from:], c.lits[from:], c.globs[from:]
	switch r {
	case roleCommand:
		c.sh.call(words, lits, globs, nil, c.stdinCode, c.depth)
	case roleRemote:
		host := ""
		for _, e := range c.effects {
			if e.Kind == EffNetwork && e.Host != "" {
				host = e.Host
			}
		}
		c.add(Effect{Kind: EffNetwork, Host: host, What: "runs `" + strings.Join(words, " ") + "` there"})
		c.remoteCommand(words, lits, host)
	}
}

// remoteCommand judges the command ssh runs on host as a command on a
// machine agate does not know (judgeRemote): one whose every part only
// reads stays a read; anything else, or what cannot be read, changes
// host. The programs it runs join the command's prefix (remoteKey), so
// that what a person's answer remembers names them, not only the host.
func (c *cmdRun) remoteCommand(words []string, lits []bool, host string) {
	if len(words) == 0 {
		return
	}
	where := host
	if where == "" {
		where = "the host"
	}
	key, readOnly, why := c.judgeRemote(words, lits)
	c.remoteKey = key
	if !readOnly {
		// First, so that the reason a person reads is what runs there.
		c.effects = append([]Effect{{Kind: EffSystem, Host: host, What: why + " may change " + where}}, c.effects...)
	}
}

// judgeRemote reads words as a shell command run on a machine agate does
// not know (another host, a container): the programs it runs, joined
// ("uname", "ls,grep"; "?" when it is not known until it runs), whether
// every part of it only reads by the catalog, and how to name it.
func (c *cmdRun) judgeRemote(words []string, lits []bool) (key string, readOnly bool, named string) {
	script := strings.Join(words, " ")
	for _, l := range lits {
		if !l {
			return "?", false, "what it runs there, not known until it runs,"
		}
	}
	a := analyseShellWith(shellEnv{programs: c.sh.programs, cwd: "/", home: "/nonexistent"}, script)
	var names []string
	readOnly = a.err == nil && a.guard == ""
	for _, sc := range a.cmds {
		if !slices.Contains(names, sc.name) {
			names = append(names, sc.name)
		}
		for _, e := range sc.effects {
			if e.Kind != EffNone && e.Kind != EffRead {
				readOnly = false
			}
		}
	}
	if len(names) == 0 {
		return "?", false, "`" + script + "`"
	}
	return strings.Join(names, ","), readOnly, "`" + script + "`"
}

// value records what one operand or option value of role r does.
func (c *cmdRun) value(r role, v string, lit bool, opt string) {
	switch r {
	case roleText:
	case roleRead:
		c.pathEffect(EffRead, v, lit, Effect{})
	case roleList:
		c.pathEffect(EffRead, v, lit, Effect{Names: true})
	case roleWrite:
		c.writePath(v, lit, Effect{})
	case roleAppend:
		c.writePath(v, lit, Effect{Append: true})
	case roleEdit:
		c.writePath(v, lit, Effect{Edit: true})
	case roleCreate:
		c.writePath(v, lit, Effect{Create: true})
	case roleDelete:
		c.pathEffect(EffDelete, v, lit, Effect{})
	case roleDir:
		c.pathEffect(EffRead, v, lit, Effect{Names: true})
		if lit {
			if p := c.abs(v); p != "" {
				c.base = p
				return
			}
		}
		c.base = ""
	case roleHost:
		if !lit {
			c.add(Effect{Kind: EffNetwork, What: "a host not known until it runs"})
			return
		}
		c.add(Effect{Kind: EffNetwork, Host: hostOf(v)})
	case roleURL:
		h := ""
		if lit {
			h = urlHost(v)
		}
		c.add(Effect{Kind: EffNetwork, Host: h})
	case roleUpload:
		f := strings.TrimPrefix(v, "@")
		if f != "-" {
			c.pathEffect(EffRead, f, lit, Effect{})
		}
		c.add(Effect{Kind: EffUpload})
	case roleData:
		if f, ok := strings.CutPrefix(v, "@"); ok && f != "-" {
			c.pathEffect(EffRead, f, lit, Effect{})
		}
		c.add(Effect{Kind: EffUpload})
	case roleCode:
		if !lit {
			c.add(Effect{Kind: EffExec, What: "a command not known until it runs"})
			return
		}
		c.sh.parse(v, c.depth+1)
	case roleProgram:
		if !lit {
			c.add(Effect{Kind: EffExec, What: "a program not known until it runs"})
			return
		}
		// A command line the program's own words are added to.
		c.sh.parse(v+` "$ARGS"`, c.depth+1)
	case roleScript:
		c.script(v, lit)
	case roleInline:
		c.add(Effect{Kind: EffExec, What: "inline code for " + c.prog})
	case roleEnv:
		name, _, _ := strings.Cut(v, "=")
		if !lit || dangerousVar(name) {
			c.add(Effect{Kind: EffExec, What: varWhy(name)})
		}
	case roleXsrc, roleXdst:
		if host, p, ok := remotePath(v); ok && lit {
			c.add(Effect{Kind: EffNetwork, Host: host})
			if r == roleXdst {
				c.add(Effect{Kind: EffUpload, Host: host})
			}
			_ = p
			return
		}
		if r == roleXsrc {
			c.pathEffect(EffRead, v, lit, Effect{})
		} else {
			c.writePath(v, lit, Effect{})
		}
	case roleModule:
		c.module(v, lit, len(c.words))
	case roleSignal:
		// Read by the kill handler.
	case roleConfig:
		// Read by the handler that knows the program's configuration.
		if c.spec.handler == nil {
			c.unknown("configuration " + v + " for " + c.prog)
		}
	case roleUnknown:
		what := v
		if opt != "" {
			what = opt + " " + v
		}
		c.unknown(c.specName() + " " + what + ": agate cannot tell what it does")
	default:
		c.unknown("operand " + v + " of " + c.specName())
	}
}

// writePath records a write, with the guardrail for disk devices.
func (c *cmdRun) writePath(v string, lit bool, e Effect) {
	if lit && isDiskDevice(v) {
		c.sh.guard(c.prog + " writes onto the disk device " + v)
		return
	}
	if lit && (v == "/dev/null" || v == "/dev/stdout" || v == "/dev/stderr" || v == "-" || strings.HasPrefix(v, "/dev/fd/")) {
		return
	}
	if lit && (v == "/proc/sysrq-trigger" || strings.HasPrefix(v, "/proc/sys/kernel/sysrq")) {
		c.sh.guard(c.prog + " writes " + v + ": the kernel's emergency keys reboot, crash or stop the host")
		return
	}
	c.pathEffect(EffWrite, v, lit, e)
}

// script records a script that runs: the project's own code when it is
// a file of the project that this command did not just write, else code
// agate cannot read.
func (c *cmdRun) script(v string, lit bool) {
	if !lit || v == "-" || v == "/dev/stdin" || strings.HasPrefix(v, "/dev/fd/") || strings.HasPrefix(v, "/proc/") {
		c.add(Effect{Kind: EffExec, What: c.prog + " runs code from " + v})
		return
	}
	if strings.Contains(v, "://") {
		c.add(Effect{Kind: EffNetwork, Host: urlHost(v)})
		c.add(Effect{Kind: EffExec, What: c.prog + " runs code it fetches from " + v})
		return
	}
	if reg, ok := packageSpecifiers[strings.SplitN(v, ":", 2)[0]]; ok && strings.Contains(v, ":") {
		c.add(Effect{Kind: EffNetwork, Host: reg})
		c.add(Effect{Kind: EffExec, What: c.prog + " runs the package " + v + " from " + reg})
		return
	}
	p := c.abs(v)
	c.pathEffect(EffRead, v, lit, Effect{})
	if p != "" && c.sh.inProject(p) && !c.sh.wrote(p) {
		c.add(Effect{Kind: EffProject, Path: p, What: c.prog + " " + v})
		return
	}
	c.add(Effect{Kind: EffExec, What: c.prog + " runs " + v + ", which is not the project's own file"})
}

// packageSpecifiers are the registry schemes a runtime resolves a script
// word through (deno's npm: and jsr:), with the registry's host.
var packageSpecifiers = map[string]string{"npm": "registry.npmjs.org", "jsr": "jsr.io"}

// templates records the effects spec and its parents declare, but for
// the kinds an option took back.
func (c *cmdRun) templates(spec *progSpec) {
	for p := spec; p != nil; p = p.parent {
		for _, t := range p.effects {
			if c.withdrawn&(1<<t.kind) == 0 {
				c.template(t)
			}
		}
	}
}

// template records an effect an entry declares.
func (c *cmdRun) template(t effTmpl) {
	switch t.kind {
	case EffRead, EffWrite, EffDelete:
		e := Effect{Kind: t.kind, Edit: t.flavour == "edit", Create: t.flavour == "create", Append: t.flavour == "append"}
		if t.target != "" {
			e.Path = c.abs(t.target)
		}
		if e.Path == "" {
			e.What = c.spec.name + " " + t.kind.String() + "s where it likes"
		}
		c.add(e)
	case EffNetwork, EffUpload:
		c.add(Effect{Kind: t.kind, Host: t.target})
	case EffProject:
		c.add(Effect{Kind: EffProject, What: strings.Join(c.prefix, " ")})
	default:
		what := t.what
		if what == "" {
			what = c.spec.name
		}
		c.add(Effect{Kind: t.kind, What: what})
	}
}

// hostOf is the host in [user@]host[:port].
func hostOf(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, ']'); i > 0 {
			return strings.ToLower(s[1:i])
		}
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(strings.TrimSuffix(s, "."))
}

// urlHost is the host of a URL; a word without a scheme is taken as
// host/path, as curl and wget take it.
func urlHost(s string) string {
	t := s
	if !strings.Contains(t, "://") {
		t = "http://" + t
	}
	u, err := url.Parse(t)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
}

// remotePath splits host:path, the remote form of scp and rsync.
func remotePath(s string) (host, p string, ok bool) {
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") {
		return "", "", false
	}
	if strings.Contains(s, "://") {
		if h := urlHost(s); h != "" {
			return h, "", true
		}
		return "", "", false
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 || strings.Contains(s[:i], "/") {
		return "", "", false
	}
	return hostOf(s[:i]), s[i+1:], true
}

// pythonModules says what `python -m MODULE` does, for the modules agents
// run; any other module is code of the project or its environment.
var pythonModules = map[string]Effect{
	"ensurepip":   {Kind: EffNetwork, What: "ensurepip"},
	"http.server": {Kind: EffNetwork, What: "serves files over HTTP"}, "this": {Kind: EffNone}, "site": {Kind: EffNone},
	"smtpd": {Kind: EffNetwork}, "ftplib": {Kind: EffNetwork}, "webbrowser": {Kind: EffExec, What: "opens a browser"},
	"pdb": {Kind: EffExec, What: "a debugger"}, "code": {Kind: EffExec, What: "an interactive interpreter"},
	"tarfile": {Kind: EffWrite}, "zipfile": {Kind: EffWrite},
	"twine": {Kind: EffUpload, What: "twine uploads packages"},
}

// pythonModulePrograms are the modules whose command line is a program's
// of the catalog: `python3 -m pip list` is read as `pip list`.
var pythonModulePrograms = map[string]string{
	"pip": "pip", "pip3": "pip", "pipx": "pipx", "uv": "uv", "pytest": "pytest", "twine": "twine", "black": "black",
	"mypy": "mypy", "ruff": "ruff", "isort": "isort", "flake8": "flake8", "pylint": "pylint", "coverage": "coverage",
	"uvicorn": "uvicorn", "gunicorn": "gunicorn", "flask": "flask", "tox": "tox", "nox": "nox", "poetry": "poetry",
	"pdm": "pdm", "hatch": "hatch", "mkdocs": "mkdocs", "pre_commit": "pre-commit", "django": "django-admin",
	"venv": "virtualenv", "virtualenv": "virtualenv", "build": "pyproject-build", "pyflakes": "pyflakes",
	"pycodestyle": "pycodestyle", "bandit": "bandit", "sphinx": "sphinx-build", "jupyter": "jupyter", "ipython": "ipython",
}

// pythonModuleSpecs are the modules of the standard library whose words
// name files, read as the catalog reads a program: `python3 -m json.tool
// IN OUT` reads IN and writes OUT, `-m base64 FILE` prints FILE, and
// compileall and py_compile write byte code beside the files they are
// given (compileall with no folder: every folder on sys.path).
var pythonModuleSpecs = sync.OnceValue(func() map[string]*progSpec {
	specs := map[string]ProgramSpec{
		"json.tool": {Args: []string{"read", "write"}, Opts: []string{"--sort-keys", "--indent=num", "--tab", "--no-indent",
			"--compact", "--json-lines", "--no-ensure-ascii", "-h", "--help"}},
		"base64":     {Args: []string{"read"}, Opts: []string{"-e", "-d", "-u", "-t", "-h"}},
		"py_compile": {Args: []string{"edit..."}, Opts: []string{"-q", "--quiet", "-h", "--help"}},
		"compileall": {Args: []string{"edit..."}, Opts: []string{"-l", "-r=num", "-f", "-q", "-b", "-d=text", "-s=text", "-p=text",
			"-x=pattern", "-i=read", "-j=num", "-o=num", "-e=text", "--hardlink-dupes", "--invalidation-mode=text", "-h", "--help"}},
	}
	out := map[string]*progSpec{}
	for name, s := range specs {
		ps, err := s.compile("python -m "+name, nil)
		if err != nil {
			panic(err)
		}
		out[name] = ps
	}
	return out
})

// module records `-m MODULE`; the words from index from on are its.
func (c *cmdRun) module(v string, lit bool, from int) {
	if !lit {
		c.add(Effect{Kind: EffExec, What: "a module not known until it runs"})
		return
	}
	c.prefix = append(c.prefix, "-m", v)
	if c.shadowed(v) {
		top, _, _ := strings.Cut(v, ".")
		c.add(Effect{Kind: EffProject, What: c.prog + " -m " + v + " may run " + top + " from the folder it starts in"})
	}
	if prog, ok := pythonModulePrograms[v]; ok && c.depth < maxShellDepth {
		if spec := c.sh.programs.lookupVersioned(prog); spec != nil {
			words, lits, globs := c.words[from:], c.lits[from:], c.globs[from:]
			sub := c.sh.runProgram(spec, prog, prog, words, lits, globs, c.stdinCode, c.depth+1)
			for _, e := range sub.effects {
				c.add(e)
			}
			c.prefix = append(c.prefix, sub.prefix[1:]...)
			return
		}
	}
	if spec := pythonModuleSpecs()[v]; spec != nil && c.depth < maxShellDepth {
		words, lits, globs := c.words[from:], c.lits[from:], c.globs[from:]
		sub := c.sh.runProgram(spec, c.prog, c.prog, words, lits, globs, c.stdinCode, c.depth+1)
		for _, e := range sub.effects {
			c.add(e)
		}
		if v == "compileall" && len(sub.ops) == 0 && !sub.has("-i") {
			c.add(Effect{Kind: EffWrite, What: "python -m compileall writes byte code in every folder on sys.path"})
		}
		return
	}
	if e, ok := pythonModules[v]; ok {
		if e.Kind == EffWrite {
			// venv, tarfile: they write where they are told, in the project.
			if len(c.ops) > 0 {
				return // the operand's role says where
			}
			c.add(Effect{Kind: EffWrite, What: "python -m " + v})
			return
		}
		if e.Kind != EffNone {
			if e.What == "" {
				e.What = "python -m " + v
			}
			c.add(e)
		}
		return
	}
	c.add(Effect{Kind: EffProject, What: c.prog + " -m " + v})
}

// shadowed reports whether `python -m MODULE` may run a file of the
// folder it starts in instead of the module agate knows: Python puts that
// folder first on sys.path (unless -I or -P), so a project's json/ or
// pip.py is what runs. Where nobody can tell what is there (no file facts,
// a folder not known until the command runs), it may be.
func (c *cmdRun) shadowed(v string) bool {
	_, known := pythonModulePrograms[v]
	if !known {
		_, known = pythonModules[v]
	}
	if !known && pythonModuleSpecs()[v] == nil {
		return false // runs as the project's code anyway
	}
	if c.has("-I", "-P") {
		return false
	}
	dir := c.sh.cwd
	if dir == "" || c.sh.files == nil {
		return true
	}
	top, _, _ := strings.Cut(v, ".")
	for _, p := range []string{top + ".py", top + ".pyc", top} {
		p = path.Join(dir, p)
		if c.sh.written[p] || c.sh.files(p) != FileAbsent {
			return true
		}
	}
	return false
}
