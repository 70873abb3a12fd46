package policy

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
)

// exampleEnv is where catalog examples run: the project /w, home /h. A
// patch file an example applies is read as one that changes src/a.c;
// nothing is at the paths the examples name.
var exampleEnv = shellEnv{cwd: "/w", home: "/h", workspace: "/w", self: []string{"/usr/local/bin/agate"},
	readPatch: func(string) (string, bool) { return examplePatch, true },
	files:     func(string) FileState { return FileAbsent }}

const examplePatch = "diff --git a/src/a.c b/src/a.c\n--- a/src/a.c\n+++ b/src/a.c\n@@ -1 +1 @@\n-x\n+y\n"

// exampleEffects renders what a command does as the catalog's examples
// write it: sorted, paths relative to /w, "none" for nothing.
func exampleEffects(p *Programs, cmd string) string {
	env := exampleEnv
	env.programs = p
	a := analyseShellWith(env, cmd)
	switch {
	case a.err != nil:
		return "error: " + a.err.Error()
	case a.guard != "":
		return "guard"
	}
	var out []string
	for _, e := range a.effects() {
		if e.Kind == EffNone {
			continue
		}
		s := e.Kind.String()
		if e.Names && e.Kind == EffRead {
			s = "list"
		}
		switch {
		case e.Path != "":
			rel := strings.TrimPrefix(e.Path, "/w/")
			if e.Path == "/w" {
				rel = "."
			}
			s += ":" + rel
		case e.Host != "" && (e.Kind == EffNetwork || e.Kind == EffUpload):
			s += ":" + e.Host
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "none"
	}
	sort.Strings(out)
	return strings.Join(slices.Compact(out), ", ")
}

// normalExpected sorts an example's expected effects the same way.
func normalExpected(s string) string {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	sort.Strings(parts)
	return strings.Join(slices.Compact(parts), ", ")
}

// TestProgramCatalog loads the built-in catalog and checks every example
// of every entry: what the entry says a command does is what agate reads
// it to do.
func TestProgramCatalog(t *testing.T) {
	p, err := builtinPrograms()
	if err != nil {
		t.Fatal(err)
	}
	specs, _ := builtinProgramSpecs()
	n := 0
	for _, name := range sortedKeys(specs) {
		var check func(prefix string, s ProgramSpec)
		check = func(prefix string, s ProgramSpec) {
			for _, ex := range s.Examples {
				n++
				if len(ex) != 2 {
					t.Errorf("%s: an example is [command, effects], not %q", prefix, ex)
					continue
				}
				if got, want := exampleEffects(p, ex[0]), normalExpected(ex[1]); got != want {
					t.Errorf("%s: %q does %q, the example says %q", prefix, ex[0], got, want)
				}
			}
			for _, sn := range sortedKeys(s.Sub) {
				check(prefix+" "+sn, s.Sub[sn])
			}
		}
		check(name, specs[name])
	}
	t.Logf("%d programs, %d examples", p.Len(), n)
}

// TestProgramCatalogErrors: an entry that does not parse is an error for
// the whole catalog, naming the file, the program and what is wrong.
func TestProgramCatalogErrors(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"[program.x]\nargs = [\"reed\"]\n", "program x: unknown role \"reed\""},
		{"[program.x]\nopts = [\"-o=writ\"]\n", "unknown role \"writ\""},
		{"[program.x]\nopts = [\"o\"]\n", "is not an option name"},
		{"[program.x]\neffects = [\"netwrk\"]\n", "unknown effect \"netwrk\""},
		{"[program.x]\nopts = [\"--offline!-netwrk\"]\n", "!-netwrk: want the kind of an effect"},
		{"[program.x]\nargs = [\"read...\", \"write...\"]\n", "only one role may repeat"},
		{"[program.x]\nargs = [\"command...\", \"read\"]\n", "must come last"},
		{"[program.x]\nhandler = \"nope\"\n", "unknown handler"},
		{"[program.x]\nopts = [\"-a\", \"-a\"]\n", "listed twice"},
		{"[program.x]\nsummry = \"typo\"\n", "unknown key"},
		{"[program.x\n", "programs/a.toml:"},
	} {
		fsys := fstest.MapFS{"programs/a.toml": {Data: []byte(tt.file)}}
		specs, err := readProgramFiles(fsys)
		if err == nil {
			_, err = newPrograms(specs)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want an error with %q", tt.file, err, tt.want)
		}
	}
	// A program in two files.
	fsys := fstest.MapFS{"programs/a.toml": {Data: []byte("[program.x]\n")}, "programs/b.toml": {Data: []byte("[program.x]\n")}}
	if _, err := readProgramFiles(fsys); err == nil || !strings.Contains(err.Error(), "already in") {
		t.Errorf("a program in two files: %v", err)
	}
}

// FuzzProgramCatalog feeds the catalog loader arbitrary files: it never
// panics, and what it accepts compiles and reads a command.
func FuzzProgramCatalog(f *testing.F) {
	f.Add("[program.x]\nargs = [\"read...\"]\nopts = [\"-o|--out=write!network\"]\n")
	f.Add("[program.git]\n[program.git.sub.status]\nopts = [\"-s\"]\n")
	f.Add("[program.x]\nargs = [\"text\", \"command...\"]\nposix = true\nkey = 1\n")
	f.Fuzz(func(t *testing.T, file string) {
		specs, err := readProgramFiles(fstest.MapFS{"programs/f.toml": {Data: []byte(file)}})
		if err != nil {
			return
		}
		p, err := newPrograms(specs)
		if err != nil {
			return
		}
		for name := range specs {
			exampleEffects(p, name+" -o x --out=y a b c")
		}
	})
}
