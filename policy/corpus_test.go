package policy

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// The decision corpus (testdata/corpus) is the yardstick agate measures
// itself by: shell commands, each labelled with what a careful person
// wants attended (a person can be asked) and unattended (nobody can), not
// with what agate happens to decide today. About half is everyday
// developer work, about half is dangerous, in the classes below.
//
// TestCorpus decides every command as a Bash call under the default
// config, from the test project, and fails on
//   - a leak: a dangerous command allowed, attended or unattended;
//   - an everyday ask rate over corpusMaxAskRate: everyday commands
//     labelled allow (attended) that do not allow.
// Other differences from the labels (a catastrophic command that asks
// instead of being denied, project code allowed unattended) are counted
// and logged, not failed. `go test -run TestCorpus -v ./policy/` prints
// the rates and every case behind them. A glob in a command is expanded
// against testdata/corpus/tree.txt, and a patch it applies read from
// testdata/corpus/patches, as the daemon expands and reads them on disk.

// corpusDangerous are the dangerous classes, in the order they are reported.
var corpusDangerous = []string{"exec", "read", "write", "upload", "download", "persist", "exfil", "agate", "system", "destroy"}

// corpusMaxAskRate is the share of everyday commands labelled allow that
// may ask before the test fails.
const corpusMaxAskRate = 0.05

// corpusMinCases keeps the corpus from shrinking unnoticed.
const corpusMinCases = 1500

// corpusCase is one labelled command.
type corpusCase struct {
	Cmd        string `toml:"cmd"`
	Class      string `toml:"class"`      // a dangerous class, or everyday/<kind>
	Attended   string `toml:"attended"`   // allow, ask or deny, with a person to ask
	Unattended string `toml:"unattended"` // allow or deny, with nobody to ask
	// Files says what is at paths the command overwrites or deletes:
	// "recoverable", "unrecoverable" or "unknown"; elsewhere nothing.
	Files map[string]string `toml:"files"`
	Note  string            `toml:"note"` // why the label is what it is, where that is not plain

	file string // where it is written, for messages
}

func (c *corpusCase) everyday() bool { return strings.HasPrefix(c.Class, "everyday/") }

// corpusResult is a case and what agate decided for it.
type corpusResult struct {
	*corpusCase
	att, un Decision
}

func (r corpusResult) String() string {
	return fmt.Sprintf("%q [%s]", r.Cmd, r.file)
}

// loadCorpus reads every corpus file strictly: an unknown key, a bad
// class or verdict, or a command written twice is an error.
func loadCorpus(t *testing.T) []*corpusCase {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var all []*corpusCase
	seen := map[string]string{}
	for _, f := range files {
		var cf struct {
			Case []*corpusCase `toml:"case"`
		}
		md, err := toml.DecodeFile(f, &cf)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if u := md.Undecoded(); len(u) > 0 {
			t.Fatalf("%s: unknown key %s", f, u[0])
		}
		if len(cf.Case) == 0 {
			t.Fatalf("%s: no cases", f)
		}
		for i, c := range cf.Case {
			c.file = fmt.Sprintf("%s #%d", filepath.Base(f), i+1)
			if err := checkCorpusCase(c); err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			if prev, ok := seen[c.Cmd]; ok {
				t.Fatalf("%s: %q is already %s", c.file, c.Cmd, prev)
			}
			seen[c.Cmd] = c.file
			all = append(all, c)
		}
	}
	if len(all) < corpusMinCases {
		t.Fatalf("the corpus has %d cases, fewer than %d", len(all), corpusMinCases)
	}
	return all
}

func checkCorpusCase(c *corpusCase) error {
	if strings.TrimSpace(c.Cmd) == "" {
		return fmt.Errorf("empty cmd")
	}
	for _, v := range []string{c.Attended, c.Unattended} {
		if _, err := ParseVerdict(v); err != nil || v == "" {
			return fmt.Errorf("%q: verdict %q: want allow, ask or deny", c.Cmd, v)
		}
	}
	if c.Unattended == "ask" {
		return fmt.Errorf("%q: unattended %q: with nobody to ask, an ask is a deny", c.Cmd, c.Unattended)
	}
	switch {
	case c.everyday():
		if c.Class == "everyday/" {
			return fmt.Errorf("%q: class %q: want everyday/<kind>", c.Cmd, c.Class)
		}
	case slices.Contains(corpusDangerous, c.Class):
		if c.Attended == "allow" || c.Unattended != "deny" {
			return fmt.Errorf("%q: a dangerous case asks or denies attended and denies unattended, not %s/%s", c.Cmd, c.Attended, c.Unattended)
		}
	default:
		return fmt.Errorf("%q: class %q: want one of %s or everyday/<kind>", c.Cmd, c.Class, strings.Join(corpusDangerous, ", "))
	}
	for p, s := range c.Files {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("%q: files: %q is not absolute", c.Cmd, p)
		}
		switch s {
		case "recoverable", "unrecoverable", "unknown":
		default:
			return fmt.Errorf("%q: files: %q: want recoverable, unrecoverable or unknown", c.Cmd, s)
		}
	}
	return nil
}

// decideCorpus decides each case attended and unattended.
func decideCorpus(t *testing.T, cases []*corpusCase) []corpusResult {
	t.Helper()
	p := mustPolicy(t, string(DefaultConfigText))
	glob := treeGlob(loadTree(t, "testdata/corpus/tree.txt"))
	out := make([]corpusResult, 0, len(cases))
	for _, c := range cases {
		files := absentFiles
		if c.Files != nil {
			files = filesFrom(c.Files)
		}
		decide := func(interactive bool) Decision {
			return p.Decide(&Request{
				Tool:        "Bash",
				Args:        map[string]any{"command": c.Cmd},
				Agent:       "claude-code",
				Cwd:         testCwd,
				Interactive: interactive,
				Files:       files,
				Glob:        glob,
				ReadPatch:   corpusPatch,
			})
		}
		out = append(out, corpusResult{corpusCase: c, att: decide(true), un: decide(false)})
	}
	return out
}

// corpusPatch reads a patch file the corpus applies: the one of that
// name in testdata/corpus/patches (fix.patch in the project is
// patches/fix.patch), as the daemon reads the file on disk.
func corpusPatch(p string) (string, bool) {
	b, err := os.ReadFile(filepath.Join("testdata/corpus/patches", path.Base(p)))
	return string(b), err == nil
}

// loadTree reads a list of files, one absolute path a line, # comments.
func loadTree(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if !path.IsAbs(l) {
			t.Fatalf("%s:%d: %q is not absolute", name, i+1, l)
		}
		out = append(out, l)
	}
	return out
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func TestCorpus(t *testing.T) {
	results := decideCorpus(t, loadCorpus(t))

	byClass := map[string][]corpusResult{}
	var classes []string
	for _, r := range results {
		if _, ok := byClass[r.Class]; !ok {
			classes = append(classes, r.Class)
		}
		byClass[r.Class] = append(byClass[r.Class], r)
	}
	slices.Sort(classes)

	var dangerous, leaks, everyday, wantAllow, asks int
	mismatches := map[string][]corpusResult{}
	for _, r := range results {
		leak := !r.everyday() && (r.att.Verdict == Allow || r.un.Verdict == Allow)
		ask := r.everyday() && r.Attended == "allow" && r.att.Verdict != Allow
		if r.everyday() {
			everyday++
			if r.Attended == "allow" {
				wantAllow++
			}
			if ask {
				asks++
			}
		} else {
			dangerous++
			if leak {
				leaks++
			}
		}
		if !leak && !ask && (r.att.Verdict.String() != r.Attended || r.un.Verdict.String() != r.Unattended) {
			mismatches[r.Class] = append(mismatches[r.Class], r)
		}
	}

	t.Logf("corpus: %d commands, %d everyday, %d dangerous", len(results), everyday, dangerous)
	t.Logf("leak rate: %d of %d dangerous commands allowed (%.1f%%)", leaks, dangerous, pct(leaks, dangerous))
	t.Logf("everyday ask rate (attended): %d of %d everyday commands labelled allow did not allow (%.1f%%; at most %.0f%%)",
		asks, wantAllow, pct(asks, wantAllow), 100*corpusMaxAskRate)
	nmis := 0
	for _, c := range classes {
		nmis += len(mismatches[c])
	}
	t.Logf("other mismatches against the labels: %d", nmis)

	for _, class := range corpusDangerous {
		rs := byClass[class]
		t.Run(class, func(t *testing.T) {
			if len(rs) == 0 {
				t.Fatalf("no %s cases", class)
			}
			var list []string
			for _, r := range rs {
				if line := leakLine(r); line != "" {
					list = append(list, line)
				}
			}
			t.Logf("%s: %d cases, %d leaks", class, len(rs), len(list))
			if len(list) > 0 {
				t.Errorf("%d leaks: dangerous commands allowed:\n%s", len(list), strings.Join(list, "\n"))
			}
		})
	}

	t.Run("everyday", func(t *testing.T) {
		var list []string
		for _, class := range classes {
			if !strings.HasPrefix(class, "everyday/") {
				continue
			}
			n, a := 0, 0
			for _, r := range byClass[class] {
				if r.Attended != "allow" {
					continue
				}
				n++
				if r.att.Verdict != Allow {
					a++
					list = append(list, fmt.Sprintf("  %s: %s (%s): %s", r, r.att.Verdict, r.att.Layer, r.att.Reason))
				}
			}
			t.Logf("%s: %d cases, %d ask attended (%.1f%%)", class, len(byClass[class]), a, pct(a, n))
		}
		if pct(asks, wantAllow) > 100*corpusMaxAskRate {
			t.Errorf("everyday ask rate %.1f%% is over %.0f%%: %d everyday commands do not allow attended:\n%s",
				pct(asks, wantAllow), 100*corpusMaxAskRate, asks, strings.Join(list, "\n"))
		} else if len(list) > 0 {
			t.Logf("everyday commands that do not allow attended:\n%s", strings.Join(list, "\n"))
		}
	})

	// Mismatches that are neither leaks nor everyday asks: logged, so the
	// README can say how close the labels are; listed with -v.
	for _, class := range classes {
		ms := mismatches[class]
		if len(ms) == 0 {
			continue
		}
		t.Logf("mismatches in %s: %d of %d", class, len(ms), len(byClass[class]))
		if testing.Verbose() {
			for _, r := range ms {
				t.Logf("  %s: want %s/%s, got %s/%s: %s", r, r.Attended, r.Unattended, r.att.Verdict, r.un.Verdict, mismatchReason(r))
			}
		}
	}
}

// leakLine says how a dangerous case was allowed, "" when it was not.
func leakLine(r corpusResult) string {
	a, u := r.att.Verdict == Allow, r.un.Verdict == Allow
	switch {
	case a && u && r.att.Reason == r.un.Reason:
		return fmt.Sprintf("  %s: allowed attended and unattended (%s): %s", r, r.att.Layer, r.att.Reason)
	case a && u:
		return fmt.Sprintf("  %s: allowed attended (%s): %s; unattended (%s): %s", r, r.att.Layer, r.att.Reason, r.un.Layer, r.un.Reason)
	case a:
		return fmt.Sprintf("  %s: allowed attended (%s): %s", r, r.att.Layer, r.att.Reason)
	case u:
		return fmt.Sprintf("  %s: allowed unattended (%s): %s", r, r.un.Layer, r.un.Reason)
	}
	return ""
}

// mismatchReason is the reason of the decision that differs from the label.
func mismatchReason(r corpusResult) string {
	if r.att.Verdict.String() != r.Attended {
		return r.att.Reason
	}
	return r.un.Reason
}
