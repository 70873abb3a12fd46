package codexrules

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agatehq/agate/policy"
)

var hardDeny = []string{
	"deny bash curl*",          // exported: curl and what follows
	"shell terraform destroy*", // exported, two words
	"deny bash *sudo*",         // a glob inside: skipped
	"bash git push *",          // a star after a space: skipped
	"deny write_file *.env",    // not a shell command: skipped
	"deny bash",                // every command: skipped
}

// expand returns every command a pattern names.
func expand(p [][]string) []string {
	out := []string{""}
	for _, alts := range p {
		var next []string
		for _, o := range out {
			for _, a := range alts {
				next = append(next, strings.TrimSpace(o+" "+a))
			}
		}
		out = next
	}
	return out
}

// TestRulesWithinAgate: every command an exported rule forbids is one
// agate's own policy denies, at the hard_deny or guardrail layer: the
// rules file never blocks what agate lets through.
func TestRulesWithinAgate(t *testing.T) {
	var q []string
	for _, h := range hardDeny {
		q = append(q, `"`+h+`"`)
	}
	cfg, err := policy.Parse("config.toml", []byte("[auto]\nhard_deny = ["+strings.Join(q, ", ")+"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Compile(cfg, policy.Options{Home: "/home/me"})
	if err != nil {
		t.Fatal(err)
	}
	rs := FromConfig(cfg.Auto.HardDeny)
	if len(rs.Rules) < 9 {
		t.Fatalf("rules %d", len(rs.Rules))
	}
	for _, r := range rs.Rules {
		for _, cmd := range expand(r.Pattern) {
			var q []string
			for i, w := range strings.Split(cmd, " ") {
				if i > 0 {
					w = `"` + w + `"`
				}
				q = append(q, w)
			}
			for _, c := range []string{cmd, cmd + " extra", strings.ReplaceAll(cmd, " ", "  "), strings.Join(q, " "), "true && " + cmd} {
				d := pol.Decide(&policy.Request{Tool: "Bash", Agent: "codex", Args: map[string]any{"command": c},
					Cwd: "/home/me/project", Interactive: true})
				if d.Verdict != policy.Deny || (d.Layer != policy.LayerHardDeny && d.Layer != policy.LayerGuardrail) {
					t.Errorf("%s: %q is %s at %s (%s), but the rule forbids it", r.Source, c, d.Verdict, d.Layer, d.Reason)
				}
			}
		}
	}
}

// TestSkipped: an entry no prefix says is listed, with why, in the file
// and in Skipped.
func TestSkipped(t *testing.T) {
	rs := FromConfig(hardDeny)
	skipped := map[string]string{}
	for _, s := range rs.Skipped {
		skipped[s.Source] = s.Why
	}
	for i, h := range hardDeny {
		src := "hard_deny[" + string(rune('0'+i)) + "]: " + h
		_, isSkipped := skipped[src]
		if want := i >= 2; isSkipped != want {
			t.Errorf("%s: skipped %v, want %v", src, isSkipped, want)
		}
	}
	out := string(Render(rs))
	if !isAgates([]byte(out)) {
		t.Error("no header")
	}
	for _, s := range rs.Skipped {
		if !strings.Contains(out, s.Source) {
			t.Errorf("%s not listed in the file", s.Source)
		}
	}
	for _, want := range []string{
		`pattern = ["curl"],`,
		`pattern = ["terraform", "destroy"],`,
		`justification = "agate: hard_deny deny bash curl*",`,
		`match = [["rm", "-rf", "/"]],`,
		`pattern = [["shutdown", "reboot", "halt", "poweroff"]],`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
}

// TestFile: agate writes, syncs and removes only its own file.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	p := Path(dir)
	data := Render(FromConfig(nil))
	if changed, err := Sync(p, data); changed || err != nil {
		t.Errorf("sync of no file: %v %v", changed, err)
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("sync created the file")
	}
	if changed, err := Write(p, data); !changed || err != nil {
		t.Fatalf("write: %v %v", changed, err)
	}
	if changed, err := Write(p, data); changed || err != nil {
		t.Errorf("second write: %v %v", changed, err)
	}
	if changed, err := Sync(p, Render(FromConfig([]string{"bash rm -rf*"}))); !changed || err != nil {
		t.Errorf("sync: %v %v", changed, err)
	}
	if !Installed(p) {
		t.Error("not installed")
	}
	if gone, err := Remove(p); !gone || err != nil {
		t.Errorf("remove: %v %v", gone, err)
	}
	// A file of the person's own stays.
	os.WriteFile(p, []byte("prefix_rule(pattern=[\"ls\"])\n"), 0o600)
	if _, err := Write(p, data); err == nil {
		t.Error("replaced a file agate did not write")
	}
	if gone, _ := Remove(p); gone {
		t.Error("removed a file agate did not write")
	}
	// A link in its place is not followed.
	os.Remove(p)
	target := filepath.Join(dir, "elsewhere")
	os.WriteFile(target, data, 0o600)
	os.Symlink(target, p)
	if _, err := Write(p, data); err == nil {
		t.Error("wrote through a link")
	}
	if gone, _ := Remove(p); gone {
		t.Error("removed through a link")
	}
}

// FuzzFromConfig: any hard_deny entry renders, on lines of its own, and
// an exported rule's words carry no glob.
func FuzzFromConfig(f *testing.F) {
	for _, h := range hardDeny {
		f.Add(h)
	}
	f.Add("bash a\nb*")
	f.Add("bash  a  b*")
	f.Fuzz(func(t *testing.T, entry string) {
		rs := FromConfig([]string{entry})
		out := string(Render(rs))
		for _, line := range strings.Split(out, "\n") {
			if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "prefix_rule(") &&
				!strings.HasPrefix(line, "    ") && line != ")" {
				t.Fatalf("stray line %q in\n%s", line, out)
			}
		}
		for _, r := range rs.Rules {
			for _, alts := range r.Pattern {
				for _, w := range alts {
					if w == "" || strings.ContainsAny(w, "*?[]\n\t \"'$") {
						t.Fatalf("word %q", w)
					}
				}
			}
		}
	})
}

// FuzzQuote: a quoted string reads back as itself by Starlark's escapes
// (\n \t \" \\ \xHH \uHHHH \UHHHHHHHH, which Go's string literals share),
// a character past U+FFFF included.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "a \"b\" \\ c", "tab\tnl\n\x00\x7f", "é ✓ \u2028 \U0001F600", "\U000E0041 tag", "\U000F0000 private"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		q := quote(s)
		if got, err := strconv.Unquote(q); err != nil || got != s {
			t.Fatalf("quote(%q) = %s reads back as %q (%v)", s, q, got, err)
		}
	})
}
