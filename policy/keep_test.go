package policy

import (
	"slices"
	"strings"
	"testing"
)

// keepAll is Request.Keep that keeps anything, recording what it was
// asked about.
func keepAll(asked *[]string) func(string, string) KeepAnswer {
	return func(p, root string) KeepAnswer {
		*asked = append(*asked, p+" in "+root)
		return KeepAnswer{OK: true}
	}
}

// TestKeepBeforeDestroy: what git cannot give back, in the project, is
// kept rather than asked about; what cannot be kept asks, saying why; a
// path outside the project and the trusted dirs is never offered for
// keeping; a file the session made itself needs no copy.
func TestKeepBeforeDestroy(t *testing.T) {
	p := mustPolicy(t, `[auto]
trusted_dirs = ["/home/u/scratch"]
`)
	pe := mustPolicy(t, `[auto]
mode = "accept_edits"
auto_approve = []
`)
	lost := map[string]string{
		testCwd + "/notes.txt": "unrecoverable", testCwd + "/out": "unrecoverable", testCwd + "/out/a.txt": "unrecoverable",
		"/home/u/other.txt": "unrecoverable", "/home/u/scratch/x.log": "unrecoverable", testCwd + "/main.go": "recoverable", testCwd + "/gone.txt": "absent",
	}
	cases := []struct {
		name    string
		pol     *Policy
		tool    string
		args    string
		keep    func(string) KeepAnswer // nil: keepAll
		want    Verdict
		kept    []KeepTarget
		reason  string
		noAsked bool
	}{
		{name: "rm of an untracked file is kept", tool: "Bash", args: `{"command":"rm notes.txt"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd}}, reason: "nothing is lost: agate keeps a copy of " + testCwd + "/notes.txt"},
		{name: "rm -rf of a folder is kept whole", tool: "Bash", args: `{"command":"rm -rf out"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/out", Root: testCwd}}},
		{name: "an overwrite by redirection keeps a real copy", tool: "Bash", args: `{"command":"echo hi > notes.txt"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd, InPlace: true}}},
		{name: "a write in place before the delete keeps a real copy", tool: "Bash", args: `{"command":"truncate -s 0 out/a.txt && rm -rf out"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/out/a.txt", Root: testCwd, InPlace: true}, {Path: testCwd + "/out", Root: testCwd, InPlace: true}}},
		{name: "Write over an untracked file is kept", tool: "Write", args: `{"file_path":"` + testCwd + `/notes.txt","content":"x"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd, InPlace: true}}},
		{name: "accept_edits: Write over an untracked file is kept", pol: pe, tool: "Write", args: `{"file_path":"` + testCwd + `/notes.txt","content":"x"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd, InPlace: true}}},
		{name: "Edit of an untracked file keeps a copy", tool: "Edit", args: `{"file_path":"` + testCwd + `/notes.txt","old_string":"a","new_string":"b"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd, InPlace: true}}},
		{name: "Edit: sed -i of an untracked file keeps a copy", tool: "Bash", args: `{"command":"sed -i d notes.txt"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd, InPlace: true}}},
		{name: "Edit: sed -i of a tracked file needs none", tool: "Bash", args: `{"command":"sed -i d main.go"}`, want: Allow, noAsked: true},
		{name: "Edit: patch of an untracked file keeps a copy", tool: "Bash", args: `{"command":"patch -s -R notes.txt fix.diff"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd, InPlace: true}}},
		{name: "Edit: sed -i of a glob keeps a copy of each untracked file it names", tool: "Bash", args: `{"command":"sed -i d *.txt"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd, InPlace: true}}},
		{name: "rm of a glob keeps each file it names", tool: "Bash", args: `{"command":"rm -f *.txt"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd}}},
		{name: "shred writes each file in place before it removes it: the copy is a real one", tool: "Bash", args: `{"command":"shred -u notes.txt"}`, want: Allow,
			kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd, InPlace: true}}},
		{name: "a glob after shopt -s dotglob names what Glob does not: it asks", tool: "Bash", args: `{"command":"shopt -s dotglob; rm -f *.txt"}`, want: Ask},
		{name: "...so does one after GLOBIGNORE", tool: "Bash", args: `{"command":"GLOBIGNORE=.; rm -f *.txt"}`, want: Ask},
		{name: "...and one in bash -O nocaseglob", tool: "Bash", args: `{"command":"bash -O nocaseglob -c 'rm -f *.TXT'"}`, want: Ask},
		{name: "a trusted dir is a root", tool: "Bash", args: `{"command":"rm /home/u/scratch/x.log"}`, want: Allow,
			kept: []KeepTarget{{Path: "/home/u/scratch/x.log", Root: "/home/u/scratch"}}},
		{name: "outside the project nothing is kept", tool: "Bash", args: `{"command":"rm /home/u/other.txt"}`, want: Ask, noAsked: true},
		{name: "a tracked file needs no copy", tool: "Bash", args: `{"command":"rm main.go"}`, want: Allow, noAsked: true},
		{name: "too large to keep asks, saying why", tool: "Bash", args: `{"command":"rm -rf out"}`,
			keep: func(string) KeepAnswer { return KeepAnswer{Why: "it is 3.0 GiB, more than [undo] max_call_mb"} }, want: Ask,
			reason: "which git cannot give back (untracked, or with uncommitted changes), and agate cannot keep a copy: it is 3.0 GiB, more than [undo] max_call_mb"},
		{name: "the session's own file needs no copy", tool: "Bash", args: `{"command":"rm notes.txt"}`,
			keep: func(string) KeepAnswer { return KeepAnswer{OK: true, Owned: true} }, want: Allow,
			reason: "this session made itself, unchanged since"},
		{name: "what can be kept is kept once a person allows what cannot", tool: "Bash", args: `{"command":"rm -rf notes.txt out"}`,
			keep: func(p string) KeepAnswer {
				if strings.HasSuffix(p, "/out") {
					return KeepAnswer{Why: "it holds more than 20000 files"}
				}
				return KeepAnswer{OK: true}
			}, want: Ask, kept: []KeepTarget{{Path: testCwd + "/notes.txt", Root: testCwd}},
			reason: "deletes " + testCwd + "/out, which git cannot give back"},
		{name: "a guardrail is not kept through", tool: "Bash", args: `{"command":"rm -rf ~"}`, want: Deny, noAsked: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pol := tc.pol
			if pol == nil {
				pol = p
			}
			r := req(t, tc.tool, tc.args)
			r.Files = filesFrom(lost)
			r.Glob = func(p string) ([]string, bool) {
				if p == testCwd+"/*.txt" {
					return []string{testCwd + "/notes.txt", testCwd + "/gone.txt"}, true
				}
				return nil, false
			}
			var asked []string
			r.Keep = keepAll(&asked)
			if tc.keep != nil {
				r.Keep = func(q, root string) KeepAnswer { asked = append(asked, q+" in "+root); return tc.keep(q) }
			}
			d := pol.Decide(r)
			if d.Verdict != tc.want {
				t.Fatalf("%s: got %s (%s), want %s", tc.args, d.Verdict, d.Reason, tc.want)
			}
			if !slices.Equal(d.Keep, tc.kept) {
				t.Errorf("Keep = %+v, want %+v", d.Keep, tc.kept)
			}
			if tc.reason != "" && !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("reason %q lacks %q", d.Reason, tc.reason)
			}
			if tc.noAsked && len(asked) > 0 {
				t.Errorf("Keep was asked about %v", asked)
			}
			for _, k := range d.Keep {
				if !slices.Contains(asked, k.Path+" in "+k.Root) {
					t.Errorf("Keep was not asked about %s in %s (asked %v)", k.Path, k.Root, asked)
				}
			}
			// Without Keep the same call asks as it did before keeping.
			r.Keep = nil
			if tc.want == Allow && len(tc.kept) > 0 && !strings.HasPrefix(tc.name, "Edit") {
				if d2 := pol.Decide(r); d2.Verdict == Allow || len(d2.Keep) > 0 {
					t.Errorf("without Keep: %s (%s), Keep %v", d2.Verdict, d2.Reason, d2.Keep)
				}
			}
		})
	}
}

// TestGlobBeyondALink: a glob whose folders or matches lie beyond a link
// out of the project is judged as what the OS reaches, not as the
// names in the project it is written with.
func TestGlobBeyondALink(t *testing.T) {
	p := mustPolicy(t, "")
	link, outside := testCwd+"/link", "/home/u/outside"
	resolve := func(q string) string {
		if q == link || strings.HasPrefix(q, link+"/") {
			return outside + strings.TrimPrefix(q, link)
		}
		return q
	}
	files := filesFrom(map[string]string{
		outside + "/a": "unrecoverable", outside + "/sub": "unrecoverable",
		link + "/sub":          "recoverable", // (what git status says of a path beyond a link: nothing)
		testCwd + "/notes.txt": "unrecoverable",
	})
	glob := func(g string) ([]string, bool) {
		switch g {
		case outside + "/*":
			return []string{outside + "/a"}, true
		case testCwd + "/lin[k]/sub":
			return []string{link + "/sub"}, true
		case testCwd + "/*.txt":
			return []string{testCwd + "/notes.txt"}, true
		}
		return nil, false
	}
	for _, tc := range []struct {
		cmd  string
		want Verdict
		path string
	}{
		{"rm -rf link/*", Ask, outside + "/a"},
		{"rm -rf lin[k]/sub", Ask, outside + "/sub"},
		{"rm -f *.txt", Allow, ""},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			r := req(t, "Bash", `{"command":"`+tc.cmd+`"}`)
			r.Files, r.Glob, r.Resolve = files, glob, resolve
			var asked []string
			r.Keep = keepAll(&asked)
			d := p.Decide(r)
			if d.Verdict != tc.want {
				t.Fatalf("got %s (%s), want %s", d.Verdict, d.Reason, tc.want)
			}
			if tc.path != "" && !strings.Contains(d.Reason, tc.path) {
				t.Errorf("reason %q does not name %s", d.Reason, tc.path)
			}
			for _, a := range asked {
				if strings.HasPrefix(a, outside) {
					t.Errorf("offered %s for keeping", a)
				}
			}
		})
	}
}
