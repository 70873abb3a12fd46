package policy

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// ProgramSpec is one program of agate's catalog of programs, as its TOML
// writes it: what the program does, by subcommand, option and operand.
// The built-in catalog is policy/programs/*.toml; [programs.NAME] in
// config.toml adds a program or replaces one whole; a project's
// .agate.toml may only set ask = true (see WithOverlay).
//
// A program the catalog does not know, and an option or subcommand of a
// known program that its entry does not list, has the effect unknown: it
// asks, and with nobody to ask it is denied.
type ProgramSpec struct {
	Summary string   `toml:"summary"` // what it is, for people
	Aliases []string `toml:"aliases"` // other names it runs under (python3.12, nodejs)
	// Effects are what every call does, beyond its operands: "network",
	// "network:registry.npmjs.org", "write:.", "project", "exec",
	// "secret", "system", "elevated", "persist", "unknown", "none".
	Effects []string `toml:"effects"`
	// Args are the roles of the operands, in order; "ROLE..." takes any
	// number (at most one such): ["read..."], ["read...", "write"],
	// ["text", "read..."], ["command..."].
	Args []string `toml:"args"`
	// Opts are the options: "NAMES[=ROLE|?=ROLE][!EFFECT,...]", as
	// "-o|--output=write", "--color?=text", "-i!args:write", "-W*".
	Opts []string `toml:"opts"`
	// Posix says options end at the first operand (python, ssh, sudo).
	Posix bool `toml:"posix"`
	// Key is how many operands (after the subcommands) belong to the
	// command's prefix: what a person's grant names ("ssh HOST", "make
	// TARGET"). Default 0.
	Key int `toml:"key"`
	// Handler names Go code for what data cannot say: find's
	// expressions, sed's and awk's scripts, dd's operands, tar's letters.
	Handler string `toml:"handler"`
	// Versioned says the program also runs under its name with a version
	// after it: python3.12, gcc-12, pip3.11.
	Versioned bool `toml:"versioned"`
	// Ask makes every call of the program ask (a project's overlay may
	// set only this).
	Ask bool `toml:"ask"`
	// Sub are the subcommands; with any, the first operand must name one.
	Sub map[string]ProgramSpec `toml:"sub"`
	// Scripts says an operand that names no subcommand runs the
	// project's script of that name (yarn build, pnpm lint): the
	// project's own code.
	Scripts bool `toml:"scripts"`
	// Examples are [command, effects] pairs checked when the catalog is
	// tested: the effects as "read:a, write:b" (paths relative to /w, the
	// folder the example runs in), or "none".
	Examples [][]string `toml:"examples"`
}

// role is what an operand or an option's value is.
type role uint8

const (
	roleText    role = iota // harmless text: a pattern, a message, a name
	roleRead                // a path read
	roleList                // a path whose names and metadata are read, not its content (ls, stat)
	roleWrite               // a path written
	roleAppend              // a path appended to
	roleEdit                // a file changed in place (sed -i, gofmt -w): nothing is lost that an edit would not lose
	roleCreate              // a folder made
	roleDelete              // a path removed
	roleDir                 // the folder the program works in (-C); listed
	roleHost                // a host connected to ([user@]host[:port])
	roleURL                 // a URL fetched
	roleUpload              // a path (or @path) whose content is sent
	roleData                // data sent (curl -d 'x'; @file reads and sends the file)
	roleCode                // a shell command string, read in turn
	roleCommand             // the rest of the words are a command, read in turn
	roleProgram             // a program and its arguments in one word (rsync -e "ssh -p 2")
	roleScript              // a file of code that runs
	roleInline              // code in another language (python -c)
	roleEnv                 // NAME=VALUE
	roleRemote              // the rest of the words run on the host (ssh)
	roleXsrc                // a source that may be remote (host:path)
	roleXdst                // a destination that may be remote
	roleModule              // a module that runs (python -m)
	roleSignal              // a process to signal (kill)
	roleConfig              // NAME=VALUE configuration (git -c)
	roleUnknown             // anything: agate cannot say
)

var roleNames = map[string]role{
	"text": roleText, "num": roleText, "pattern": roleText, "name": roleText, "read": roleRead, "list": roleList,
	"write": roleWrite, "append": roleAppend, "edit": roleEdit, "create": roleCreate, "delete": roleDelete,
	"dir": roleDir, "host": roleHost, "url": roleURL, "upload": roleUpload, "data": roleData,
	"code": roleCode, "command": roleCommand, "program": roleProgram, "script": roleScript,
	"inline": roleInline, "env": roleEnv, "remote": roleRemote, "xsrc": roleXsrc, "xdst": roleXdst,
	"module": roleModule, "signal": roleSignal, "config": roleConfig, "unknown": roleUnknown,
}

// rest reports whether a role takes every word after it.
func (r role) rest() bool { return r == roleCommand || r == roleRemote }

func parseRole(s string) (role, error) {
	if r, ok := roleNames[s]; ok {
		return r, nil
	}
	names := make([]string, 0, len(roleNames))
	for n := range roleNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return 0, fmt.Errorf("unknown role %q (want one of %s)", s, strings.Join(names, ", "))
}

// effTmpl is an effect a catalog entry declares: its kind and, for paths
// and hosts, what it names (".", "~/.npmrc", "registry.npmjs.org").
type effTmpl struct {
	kind    EffectKind
	target  string // a path for read/write/delete, a host for network/upload
	what    string // words for the other kinds
	flavour string // for a write: "edit", "create" or "append"
}

func parseEffTmpl(s string) (effTmpl, error) {
	name, arg, _ := strings.Cut(s, ":")
	switch name {
	case "edit", "create", "append":
		// Writes that lose nothing: in place, a new folder, an append.
		return effTmpl{kind: EffWrite, target: arg, flavour: name}, nil
	}
	k, ok := parseEffectKind(name)
	if !ok {
		return effTmpl{}, fmt.Errorf("unknown effect %q (want one of %s)", name, strings.Join(effectNames[:], ", "))
	}
	t := effTmpl{kind: k}
	switch k {
	case EffRead, EffWrite, EffDelete, EffNetwork, EffUpload:
		t.target = arg
	default:
		t.what = arg
	}
	return t, nil
}

// argKind says whether an option takes a value.
type argKind uint8

const (
	argNone     argKind = iota
	argRequired         // the next word, or attached: -oFILE, --out=FILE
	argOptional         // attached only: --color=auto, -i.bak
)

// optSpec is one option of a program.
type optSpec struct {
	names   []string
	arg     argKind
	role    role
	effects []effTmpl
	// argsRole, when set, is the role every operand takes when the option
	// is given (sed -i makes its files written; cp -t makes them read).
	argsRole *role
	// rest says the option ends the reading: the words after it are the
	// arguments of the code it names (python3 -c CODE ARGS, -m MODULE ARGS).
	rest bool
	// withdraw are effect kinds the option takes back from what the entry
	// itself declares (mvn -o: no network); never from what operands or
	// other options do.
	withdraw []EffectKind
}

// parseOptSpec reads "NAMES[=ROLE|?=ROLE][!EFFECT,...]".
func parseOptSpec(s string) (*optSpec, error) {
	o := &optSpec{}
	head, effs, hasEffs := strings.Cut(s, "!")
	names, r, hasRole := head, "", false
	if i := strings.Index(head, "?="); i > 0 {
		names, r, hasRole, o.arg = head[:i], head[i+2:], true, argOptional
	} else if i := strings.Index(head, "="); i > 0 {
		names, r, hasRole, o.arg = head[:i], head[i+1:], true, argRequired
	}
	for _, n := range strings.Split(names, "|") {
		if len(n) < 2 || (n[0] != '-' && n[0] != '+') || strings.ContainsAny(n, " \t=") {
			return nil, fmt.Errorf("option %q: %q is not an option name (-x, --name, -name, +x)", s, n)
		}
		if i := strings.IndexByte(n, '*'); i >= 0 && i != len(n)-1 {
			return nil, fmt.Errorf("option %q: a * may only end a name", s)
		}
		o.names = append(o.names, n)
	}
	if hasRole {
		rr, err := parseRole(r)
		if err != nil {
			return nil, fmt.Errorf("option %q: %w", s, err)
		}
		o.role = rr
		if rr.rest() {
			return nil, fmt.Errorf("option %q: role %s takes the rest of the words and cannot be an option's value", s, r)
		}
	}
	if hasEffs {
		for _, e := range strings.Split(effs, ",") {
			e = strings.TrimSpace(e)
			if e == "rest" {
				o.rest = true
				continue
			}
			if k, ok := strings.CutPrefix(e, "-"); ok {
				kind, known := parseEffectKind(k)
				if !known || kind == EffNone || kind == EffUnknown {
					return nil, fmt.Errorf("option %q: !-%s: want the kind of an effect the entry declares (%s)", s, k, strings.Join(effectNames[:], ", "))
				}
				o.withdraw = append(o.withdraw, kind)
				continue
			}
			if a, ok := strings.CutPrefix(e, "args:"); ok {
				rr, err := parseRole(a)
				if err != nil {
					return nil, fmt.Errorf("option %q: %w", s, err)
				}
				o.argsRole = &rr
				continue
			}
			t, err := parseEffTmpl(e)
			if err != nil {
				return nil, fmt.Errorf("option %q: %w", s, err)
			}
			o.effects = append(o.effects, t)
		}
	}
	return o, nil
}

// roleSeq is the roles of a program's operands: head, then any number of
// rep, then tail.
type roleSeq struct {
	head, tail []role
	rep        role
	hasRep     bool
}

func parseRoleSeq(list []string) (roleSeq, error) {
	var rs roleSeq
	for i, s := range list {
		name, many := strings.CutSuffix(s, "...")
		r, err := parseRole(name)
		if err != nil {
			return rs, err
		}
		switch {
		case many && rs.hasRep:
			return rs, errors.New("args: only one role may repeat")
		case many:
			rs.rep, rs.hasRep = r, true
		case r.rest():
			return rs, fmt.Errorf("args: role %s takes the rest of the words, so it is written %q", name, name+"...")
		case rs.hasRep:
			rs.tail = append(rs.tail, r)
		default:
			rs.head = append(rs.head, r)
		}
		if rs.hasRep && rs.rep.rest() && i != len(list)-1 {
			return rs, fmt.Errorf("args: %s... takes the rest of the words and must come last", name)
		}
	}
	return rs, nil
}

// assign gives each of n operands its role; extra is how many are past
// what the program takes.
func (rs roleSeq) assign(n int) (roles []role, extra int) {
	roles = make([]role, n)
	h := min(n, len(rs.head))
	copy(roles, rs.head[:h])
	left := n - h
	t := min(left, len(rs.tail))
	copy(roles[n-t:], rs.tail[len(rs.tail)-t:])
	mid := left - t
	for i := h; i < h+mid; i++ {
		if rs.hasRep {
			roles[i] = rs.rep
		} else {
			roles[i] = roleUnknown
			extra++
		}
	}
	return roles, extra
}

// progSpec is a checked ProgramSpec.
type progSpec struct {
	name      string // as the catalog keys it ("git", or "git status" for a subcommand)
	summary   string
	effects   []effTmpl
	args      roleSeq
	exact     map[string]*optSpec
	prefixes  []*optSpec // names ending in *, longest first
	num       *optSpec   // -NUM (head -5)
	posix     bool
	key       int
	handler   handler
	raw       bool // the handler reads the words itself
	ask       bool
	versioned bool
	scripts   bool
	sub       map[string]*progSpec
	parent    *progSpec
}

// exactOpt finds an option by its exact name, in the program and then in
// the program its subcommand belongs to.
func (ps *progSpec) exactOpt(name string) *optSpec {
	for p := ps; p != nil; p = p.parent {
		if o := p.exact[name]; o != nil {
			return o
		}
	}
	return nil
}

// lookupOpt finds an option by its exact name, then by a name pattern
// (-W*), in the program and then in the program its subcommand belongs
// to.
func (ps *progSpec) lookupOpt(name string) *optSpec {
	if o := ps.exactOpt(name); o != nil {
		return o
	}
	for p := ps; p != nil; p = p.parent {
		for _, o := range p.prefixes {
			for _, n := range o.names {
				if pre, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(name, pre) && len(name) > len(pre) {
					return o
				}
			}
		}
	}
	return nil
}

// numOpt finds -NUM in the program or its parents.
func (ps *progSpec) numOpt() *optSpec {
	for p := ps; p != nil; p = p.parent {
		if p.num != nil {
			return p.num
		}
	}
	return nil
}

func (s ProgramSpec) compile(name string, parent *progSpec) (*progSpec, error) {
	ps := &progSpec{name: name, summary: s.Summary, exact: map[string]*optSpec{}, posix: s.Posix, key: s.Key,
		ask: s.Ask, versioned: s.Versioned, scripts: s.Scripts, parent: parent}
	if s.Key < 0 {
		return nil, errors.New("key must not be negative")
	}
	for _, e := range s.Effects {
		t, err := parseEffTmpl(e)
		if err != nil {
			return nil, err
		}
		if t.kind != EffNone {
			ps.effects = append(ps.effects, t)
		}
	}
	var err error
	if ps.args, err = parseRoleSeq(s.Args); err != nil {
		return nil, err
	}
	for _, spec := range s.Opts {
		o, err := parseOptSpec(spec)
		if err != nil {
			return nil, err
		}
		for _, n := range o.names {
			switch {
			case n == "-NUM":
				ps.num = o
			case strings.HasSuffix(n, "*"):
				ps.prefixes = append(ps.prefixes, o)
			default:
				if _, dup := ps.exact[n]; dup {
					return nil, fmt.Errorf("option %s is listed twice", n)
				}
				ps.exact[n] = o
			}
		}
	}
	sort.SliceStable(ps.prefixes, func(i, j int) bool { return len(ps.prefixes[i].names[0]) > len(ps.prefixes[j].names[0]) })
	if s.Handler != "" {
		h, ok := handlers[s.Handler]
		if !ok {
			return nil, fmt.Errorf("unknown handler %q", s.Handler)
		}
		ps.handler, ps.raw = h, rawHandlers[s.Handler]
	} else if parent != nil && parent.handler != nil && !parent.raw {
		// A subcommand is read by its program's handler too (git's).
		ps.handler = parent.handler
	}
	if len(s.Sub) > 0 {
		ps.sub = map[string]*progSpec{}
		for _, sn := range sortedKeys(s.Sub) {
			sub, err := s.Sub[sn].compile(name+" "+sn, ps)
			if err != nil {
				return nil, fmt.Errorf("subcommand %s: %w", sn, err)
			}
			for _, n := range append([]string{sn}, s.Sub[sn].Aliases...) {
				if _, dup := ps.sub[n]; dup {
					return nil, fmt.Errorf("subcommand %s is listed twice", n)
				}
				ps.sub[n] = sub
			}
		}
	}
	return ps, nil
}

// Programs is a checked catalog of programs, immutable once built.
type Programs struct {
	byName map[string]*progSpec
	specs  map[string]ProgramSpec // as written, for the examples
}

// lookup returns the entry for a program's base name.
func (c *Programs) lookup(name string) *progSpec {
	if c == nil {
		return nil
	}
	return c.byName[name]
}

// lookupVersioned returns the entry for a program's base name, or for the
// name without a version suffix: python3.12 is python3, gcc-12 is gcc,
// pip3.11 is pip3.
func (c *Programs) lookupVersioned(name string) *progSpec {
	if ps := c.lookup(name); ps != nil {
		return ps
	}
	n := name
	for {
		i := len(n)
		for i > 0 && (n[i-1] >= '0' && n[i-1] <= '9' || n[i-1] == '.') {
			i--
		}
		if i == len(n) || i == 0 {
			return nil
		}
		if n[i-1] == '-' || n[i-1] == '_' {
			i--
		}
		n = n[:i]
		if ps := c.lookup(n); ps != nil && ps.versioned {
			return ps
		}
	}
}

// Len returns how many programs the catalog knows (aliases not counted).
func (c *Programs) Len() int { return len(c.specs) }

// Known reports whether the catalog has an entry for a program's name.
func (c *Programs) Known(name string) bool { return c.lookup(name) != nil }

//go:embed programs/*.toml
var programFiles embed.FS

// builtinProgramSpecs reads the embedded catalog once, on first use.
var builtinProgramSpecs = sync.OnceValues(func() (map[string]ProgramSpec, error) {
	return readProgramFiles(programFiles)
})

// readProgramFiles reads every programs/*.toml file of fsys: a program
// named twice, a key no entry has, or a file that does not parse is an
// error for the whole catalog.
func readProgramFiles(fsys fs.FS) (map[string]ProgramSpec, error) {
	files, err := fs.Glob(fsys, "programs/*.toml")
	if err != nil {
		return nil, err
	}
	all := map[string]ProgramSpec{}
	from := map[string]string{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		var file struct {
			Program map[string]ProgramSpec `toml:"program"`
		}
		md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&file)
		if err != nil {
			var pe toml.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %s", f, pe.Position.Line, pe.Message)
			}
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if u := md.Undecoded(); len(u) > 0 {
			return nil, fmt.Errorf("%s: %s: unknown key", f, u[0])
		}
		for name, spec := range file.Program {
			if prev, dup := from[name]; dup {
				return nil, fmt.Errorf("%s: program %s is already in %s", f, name, prev)
			}
			from[name] = f
			all[name] = spec
		}
	}
	return all, nil
}

// builtinPrograms is the embedded catalog alone, compiled once.
var builtinPrograms = sync.OnceValues(func() (*Programs, error) {
	specs, err := builtinProgramSpecs()
	if err != nil {
		return nil, fmt.Errorf("built-in programs: %w", err)
	}
	return newPrograms(specs)
})

// newPrograms compiles specs into a catalog.
func newPrograms(specs map[string]ProgramSpec) (*Programs, error) {
	c := &Programs{byName: map[string]*progSpec{}, specs: specs}
	var errs []error
	for _, name := range sortedKeys(specs) {
		if name == "" || strings.ContainsAny(name, "/ \t") {
			errs = append(errs, fmt.Errorf("program %q: not a program's base name", name))
			continue
		}
		ps, err := specs[name].compile(name, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("program %s: %w", name, err))
			continue
		}
		for _, n := range append([]string{name}, specs[name].Aliases...) {
			if prev, dup := c.byName[n]; dup && prev.name != name {
				errs = append(errs, fmt.Errorf("program %s: the name %s is already %s's", name, n, prev.name))
				continue
			}
			c.byName[n] = ps
		}
	}
	if len(errs) > 0 {
		// Every problem at once: nothing of a broken catalog is used.
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// withPrograms returns the built-in catalog with extra entries added or
// replacing built-in ones whole ([programs.NAME] in config.toml).
func withPrograms(extra map[string]ProgramSpec) (*Programs, error) {
	if len(extra) == 0 {
		return builtinPrograms()
	}
	builtin, err := builtinProgramSpecs()
	if err != nil {
		return nil, err
	}
	specs := make(map[string]ProgramSpec, len(builtin)+len(extra))
	for k, v := range builtin {
		specs[k] = v
	}
	for k, v := range extra {
		// A replaced program's aliases go with it.
		specs[k] = v
	}
	return newPrograms(specs)
}

// stricter returns c with every program named in asks made to ask on
// every call: what a project's overlay may do to the catalog.
func (c *Programs) stricter(asks []string) *Programs {
	if len(asks) == 0 {
		return c
	}
	out := &Programs{byName: make(map[string]*progSpec, len(c.byName)), specs: c.specs}
	for k, v := range c.byName {
		out.byName[k] = v
	}
	for _, name := range asks {
		if ps := out.byName[name]; ps != nil {
			cp := *ps
			cp.ask = true
			out.byName[name] = &cp
		} else {
			out.byName[name] = &progSpec{name: name, ask: true, exact: map[string]*optSpec{}}
		}
	}
	return out
}

// systemDirs are the folders a program may be run from and still be the
// catalog's program: /usr/bin/git is git, ./git is the project's.
var systemDirs = map[string]bool{
	"/bin": true, "/sbin": true, "/usr/bin": true, "/usr/sbin": true, "/usr/local/bin": true,
	"/usr/local/sbin": true, "/opt/homebrew/bin": true, "/opt/homebrew/sbin": true, "/usr/libexec": true,
	"/usr/lib/git-core": true, "/snap/bin": true, "/run/current-system/sw/bin": true,
}

// systemProgram reports whether a command word runs the catalog's program
// of its base name: a bare name, or a path in a system folder.
func systemProgram(word string) bool {
	if !strings.Contains(word, "/") {
		return true
	}
	return systemDirs[path.Dir(path.Clean(word))]
}
