package policy

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// vectorFile is one file of testdata/decisions: a config and calls with
// the decision each must get.
type vectorFile struct {
	Description string `toml:"description"`
	Config      string `toml:"config"`
	// Tree is the files on disk a glob in a call is expanded against;
	// without it a glob is judged by the names it could match.
	Tree []string `toml:"tree"`
	Call []struct {
		Note        string  `toml:"note"`
		Config      *string `toml:"config"` // overrides the file's
		Agent       string  `toml:"agent"`
		Tool        string  `toml:"tool"`
		Args        string  `toml:"args"`
		Cwd         string  `toml:"cwd"`
		Workspace   string  `toml:"workspace"`   // the project's root, when it is not cwd
		Interactive *bool   `toml:"interactive"` // default true
		Tainted     bool    `toml:"tainted"`
		// Files says what is at paths the call overwrites or deletes:
		// "recoverable", "unrecoverable" or "unknown"; elsewhere nothing.
		Files map[string]string `toml:"files"`
		// Repo is what the daemon would have learnt of the repository
		// the command runs in.
		Repo *struct {
			RunsCode    string   `toml:"runs_code"`
			Hooks       []string `toml:"hooks"`
			Credentials []string `toml:"credentials"`
		} `toml:"repo"`
		Want  string   `toml:"want"`
		Layer string   `toml:"layer"`
		Rule  string   `toml:"rule"`
		Risks []string `toml:"risks"`
	} `toml:"call"`
}

func TestDecisionVectors(t *testing.T) {
	files, err := filepath.Glob("testdata/decisions/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var vf vectorFile
			md, err := toml.DecodeFile(f, &vf)
			if err != nil {
				t.Fatal(err)
			}
			if u := md.Undecoded(); len(u) > 0 {
				t.Fatalf("unknown key %s", u[0])
			}
			asks := 0
			for i, c := range vf.Call {
				cfg := vf.Config
				if c.Config != nil {
					cfg = *c.Config
				}
				p := mustPolicy(t, cfg)
				r := req(t, c.Tool, c.Args)
				r.Agent, r.Tainted = c.Agent, c.Tainted
				if vf.Tree != nil {
					r.Glob = treeGlob(vf.Tree)
				}
				if c.Files != nil {
					r.Files = filesFrom(c.Files)
				}
				if c.Repo != nil {
					rf := RepoFacts{RunsCode: c.Repo.RunsCode, Hooks: c.Repo.Hooks, Credentials: c.Repo.Credentials}
					r.Repo = func(string) RepoFacts { return rf }
				}
				if c.Cwd != "" {
					r.Cwd = c.Cwd
				}
				r.Workspace = c.Workspace
				if c.Interactive != nil {
					r.Interactive = *c.Interactive
				}
				d := p.Decide(r)
				name := c.Note
				if name == "" {
					name = c.Tool + " " + c.Args
				}
				if d.Verdict.String() != c.Want || (c.Layer != "" && string(d.Layer) != c.Layer) {
					t.Errorf("call %d (%s): got %s at %s (%s); want %s at %s", i, name, d.Verdict, d.Layer, d.Reason, c.Want, c.Layer)
				}
				if c.Rule != "" && (d.Rule == nil || d.Rule.Text != c.Rule) {
					t.Errorf("call %d (%s): rule %v, want %q", i, name, d.Rule, c.Rule)
				}
				if c.Risks != nil && !reflect.DeepEqual(d.Risks.List(), c.Risks) {
					t.Errorf("call %d (%s): risks %v, want %v", i, name, d.Risks.List(), c.Risks)
				}
				if d.Verdict == Ask {
					asks++
				}
			}
			if strings.HasPrefix(filepath.Base(f), "session-") {
				t.Logf("%s: %d calls, %d asks", filepath.Base(f), len(vf.Call), asks)
			}
		})
	}
}

func TestVectorFilesAreTOML(t *testing.T) {
	// A vector file with a typo'd key would test nothing: the decode above
	// refuses unknown keys; this checks the folder holds only vectors.
	entries, err := os.ReadDir("testdata/decisions")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".toml") {
			t.Errorf("%s: not a .toml vector file", e.Name())
		}
	}
}
