package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agatehq/agate/policy"
)

// handEdited is a config a person has worked on: comments everywhere,
// arrays over several lines with comments inside, odd spacing.
const handEdited = `# my agate config
[auto]
mode   =   "ask"    # what I usually want
auto_approve = ["fs", "code"]
rules = [
  # shell
  "deny shell rm*",          # any rm
  'ask shell *sudo*',
  # web
  "allow web",
]
trusted_dirs = []

[approvals]
timeout = "120s"

# agents below
[agents.claude-code]
mode = "accept_edits"
`

func TestApplyConfigEdits(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		edits []Edit
		want  string
	}{
		{
			name:  "scalar replaced, comment after it kept",
			in:    handEdited,
			edits: []Edit{SetKey("auto", "mode", "plan")},
			want:  strings.Replace(handEdited, `mode   =   "ask"    # what`, `mode   =   "plan"    # what`, 1),
		},
		{
			name:  "bool added to an existing table after its last key",
			in:    handEdited,
			edits: []Edit{SetKey("approvals", "allow_yolo", false)},
			want:  strings.Replace(handEdited, "timeout = \"120s\"\n", "timeout = \"120s\"\nallow_yolo = false\n", 1),
		},
		{
			name:  "table created at the end",
			in:    handEdited,
			edits: []Edit{SetKey("hooks", "on_daemon_down", "ask")},
			want:  handEdited + "\n[hooks]\non_daemon_down = \"ask\"\n",
		},
		{
			name:  "key removed, comments around it kept",
			in:    handEdited,
			edits: []Edit{RemoveKey("agents.claude-code", "mode")},
			want:  strings.TrimSuffix(handEdited, "mode = \"accept_edits\"\n"),
		},
		{
			name:  "removing a key that is not there changes nothing",
			in:    handEdited,
			edits: []Edit{RemoveKey("auto", "hard_deny")},
			want:  handEdited,
		},
		{
			name:  "rule appended to a multi-line array with comments",
			in:    handEdited,
			edits: []Edit{SetKey("auto", "rules", []string{"deny shell rm*", "ask shell *sudo*", "allow web", "deny fs *.env"})},
			want: strings.Replace(handEdited, `  "allow web",
]`, `  "allow web",
  "deny fs *.env",
]`, 1),
		},
		{
			name:  "rules reordered: comments travel with their rule",
			in:    handEdited,
			edits: []Edit{SetKey("auto", "rules", []string{"allow web", "deny shell rm*", "ask shell *sudo*"})},
			want: strings.Replace(handEdited, `rules = [
  # shell
  "deny shell rm*",          # any rm
  'ask shell *sudo*',
  # web
  "allow web",
]`, `rules = [
  # web
  "allow web",
  # shell
  "deny shell rm*",          # any rm
  'ask shell *sudo*',
]`, 1),
		},
		{
			name:  "rule removed: its comment line goes to the next rule",
			in:    handEdited,
			edits: []Edit{SetKey("auto", "rules", []string{"ask shell *sudo*", "allow web"})},
			want: strings.Replace(handEdited, `rules = [
  # shell
  "deny shell rm*",          # any rm
  'ask shell *sudo*',`, `rules = [
  # shell
  'ask shell *sudo*',`, 1),
		},
		{
			name:  "single-line array stays on one line",
			in:    handEdited,
			edits: []Edit{SetKey("auto", "auto_approve", []string{"fs", "code", "git"})},
			want:  strings.Replace(handEdited, `["fs", "code"]`, `["fs", "code", "git"]`, 1),
		},
		{
			name:  "empty array",
			in:    handEdited,
			edits: []Edit{SetKey("auto", "trusted_dirs", []string{"/home/me/my \"quoted\" dir", `C:\x`})},
			want:  strings.Replace(handEdited, `trusted_dirs = []`, `trusted_dirs = ["/home/me/my \"quoted\" dir", "C:\\x"]`, 1),
		},
		{
			name:  "an agent's table made with a quoted name",
			in:    "[auto]\nmode = \"ask\"\n",
			edits: []Edit{{Table: []string{"agents", "my agent.v2"}, Key: "mode", Value: "plan"}},
			want:  "[auto]\nmode = \"ask\"\n\n[agents.\"my agent.v2\"]\nmode = \"plan\"\n",
		},
		{
			name:  "a table made by dotted keys grows in the same style",
			in:    "[agents]\nclaude-code.mode = \"plan\"\n\n[audit]\nkeep = 5\n",
			edits: []Edit{SetKey("agents.claude-code", "trust_untrusted_content", true)},
			want:  "[agents]\nclaude-code.mode = \"plan\"\nclaude-code.trust_untrusted_content = true\n\n[audit]\nkeep = 5\n",
		},
		{
			name:  "a key added to a table with no keys goes after its header",
			in:    "[auto] # the policy\n# nothing yet\n\n[audit]\nkeep = 5",
			edits: []Edit{SetKey("auto", "mode", "plan"), SetKey("audit", "max_size_mb", 3)},
			want:  "[auto] # the policy\nmode = \"plan\"\n# nothing yet\n\n[audit]\nkeep = 5\nmax_size_mb = 3\n",
		},
		{
			name:  "CRLF files stay CRLF",
			in:    "[auto]\r\nrules = [\r\n  \"allow web\",\r\n]\r\n",
			edits: []Edit{SetKey("auto", "rules", []string{"allow web", "deny fs *.env"})},
			want:  "[auto]\r\nrules = [\r\n  \"allow web\",\r\n  \"deny fs *.env\",\r\n]\r\n",
		},
		{
			name:  "a duration is written as a string",
			in:    handEdited,
			edits: []Edit{SetKey("approvals", "timeout", 90*time.Second)},
			want:  strings.Replace(handEdited, `timeout = "120s"`, `timeout = "1m30s"`, 1),
		},
		{
			name: "multi-line strings and brackets inside strings do not confuse it",
			in:   "[sandbox]\nwrapper = \"\"\"a ] # [\n\"\"\"\nimage = 'x[' # ]\n",
			edits: []Edit{SetKey("sandbox", "image", "y"),
				SetKey("sandbox", "runtime", "runc")},
			want: "[sandbox]\nwrapper = \"\"\"a ] # [\n\"\"\"\nimage = \"y\" # ]\nruntime = \"runc\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyEdits([]byte(tt.in), tt.edits)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestEditConfigTextRefusesInvalid(t *testing.T) {
	tests := []struct {
		name  string
		edits []Edit
		want  string // in the error: the file, line and key
	}{
		{"bad rule", []Edit{SetKey("auto", "rules", []string{"allow web", "permit shell ls"})}, "config.toml:9: auto.rules[1]"},
		{"bad mode", []Edit{SetKey("auto", "mode", "sometimes")}, "config.toml:3: auto.mode"},
		{"unknown key", []Edit{SetKey("auto", "hard_deyn", []string{"x"})}, "auto.hard_deyn: unknown key"},
		{"wrong type", []Edit{SetKey("approvals", "max_pending", "lots")}, "config.toml"},
		{"yolo forbidden", []Edit{SetKey("approvals", "allow_yolo", false), SetKey("auto", "mode", "yolo")}, "auto.mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := EditText("config.toml", []byte(handEdited), tt.edits...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestEditConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")

	// A missing file starts from the commented defaults.
	if err := EditFile(path, SetKey("auto", "mode", "plan")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(policy.DefaultConfigText), `mode = "ask"`, `mode = "plan"`, 1); string(data) != want {
		t.Errorf("first edit wrote:\n%s", data)
	}

	// The mode of the file is kept.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := EditFile(path, SetKey("tools", "sandbox", true)); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", st.Mode().Perm())
	}

	// A broken file is not touched.
	broken := []byte("[auto]\nmode = \"ask\"\nhard_deyn = []\n")
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	err = EditFile(path, SetKey("auto", "mode", "plan"))
	if !errors.Is(err, ErrBroken) || !strings.Contains(err.Error(), path+":3: auto.hard_deyn") {
		t.Fatalf("err = %v, want ErrBroken naming %s:3: auto.hard_deyn", err, path)
	}
	if data, _ := os.ReadFile(path); string(data) != string(broken) {
		t.Errorf("the broken file was rewritten:\n%s", data)
	}

	// An edit that would not parse is not written either.
	good := []byte(handEdited)
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := EditFile(path, SetKey("auto", "mode", "nope")); err == nil {
		t.Fatal("a bad mode was accepted")
	}
	if data, _ := os.ReadFile(path); string(data) != handEdited {
		t.Errorf("a refused edit changed the file:\n%s", data)
	}

	// Preview changes nothing on disk.
	out, cfg, err := PreviewEdits(path, SetKey("auto", "mode", "plan"))
	if err != nil || cfg.Auto.Mode != "plan" || !strings.Contains(string(out), `"plan"`) {
		t.Fatalf("preview: %v, %v", err, cfg)
	}
	if data, _ := os.ReadFile(path); string(data) != handEdited {
		t.Errorf("preview wrote the file")
	}

	// Through a symlink, the target is edited and the link stays.
	link := filepath.Join(dir, "link.toml")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := EditFile(link, SetKey("auto", "mode", "plan")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced")
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"plan"`) {
		t.Errorf("the target was not edited")
	}
}

// commentLines are the lines of s that hold only a comment.
func commentLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// keepsAll reports whether every line of a is in b, as many times (the
// order may change: a reordered rule takes its comment along).
func keepsAll(a, b []string) bool {
	n := map[string]int{}
	for _, x := range b {
		n[x]++
	}
	for _, x := range a {
		if n[x]--; n[x] < 0 {
			return false
		}
	}
	return true
}

// fuzzKeys are the keys the fuzz test edits.
var fuzzKeys = [][]string{
	{"auto", "mode"}, {"auto", "rules"}, {"auto", "auto_approve"}, {"auto", "trusted_dirs"},
	{"auto", "hard_deny"}, {"tools", "sandbox"}, {"tools", "computer"}, {"approvals", "timeout"},
	{"approvals", "max_pending"}, {"hooks", "on_daemon_down"}, {"sandbox", "launcher"},
	{"sandbox", "writable"}, {"secrets", "env", "OPENAI_API_KEY"}, {"audit", "keep"},
	{"agents", "", "mode"}, {"agents", "", "auto_approve"}, {"catalog", "", "risk"}, {"new", "table", "key"},
}

// FuzzEditConfig applies random edits to the default config and to a
// hand-edited one. Whatever the values, the result must be TOML that
// decodes to exactly the old document with the edit applied, and every
// comment line must still be there.
func FuzzEditConfig(f *testing.F) {
	f.Add(false, uint8(0), uint8(0), "plan", "x")
	f.Add(false, uint8(1), uint8(3), "deny shell rm*", "allow web")
	f.Add(true, uint8(1), uint8(3), "allow web", "deny shell rm*")
	f.Add(true, uint8(1), uint8(4), "", "")
	f.Add(false, uint8(14), uint8(0), "plan", "my agent.v2")
	f.Add(false, uint8(5), uint8(1), "", "")
	f.Add(true, uint8(12), uint8(2), "keystore:openai", "")
	f.Add(false, uint8(17), uint8(5), "a\"b\\c\nd\x01é", "")
	f.Add(true, uint8(15), uint8(3), "'x'", "# not a comment")
	f.Fuzz(func(t *testing.T, handEdit bool, keyIdx, op uint8, s1, s2 string) {
		base := string(policy.DefaultConfigText)
		if handEdit {
			base = handEdited
		}
		k := append([]string{}, fuzzKeys[int(keyIdx)%len(fuzzKeys)]...)
		for i := range k {
			if k[i] == "" {
				k[i] = s2
			}
		}
		e := Edit{Table: k[:len(k)-1], Key: k[len(k)-1]}
		switch op % 6 {
		case 0:
			e.Value = s1
		case 1:
			e.Value = len(s1)%2 == 0
		case 2:
			e.Value = int64(len(s1))
		case 3:
			e.Value = []string{s1, s2}
		case 4:
			e.Value = []string{}
		case 5:
			e.Remove = true
		}
		out, err := applyEdits([]byte(base), []Edit{e})
		if err != nil {
			// Only a value that TOML cannot hold, or a key that is not there
			// to add to, may be refused.
			if e.Key == "" || strings.Contains(err.Error(), "UTF-8") || strings.Contains(err.Error(), "inline table") {
				return
			}
			t.Fatalf("edit %v refused: %v", e, err)
		}
		var got, want map[string]any
		if _, err := toml.Decode(string(out), &got); err != nil {
			t.Fatalf("edit %+v gave text that does not decode: %v\n%s", e, err, out)
		}
		if _, err := toml.Decode(base, &want); err != nil {
			t.Fatal(err)
		}
		applyToMap(want, e)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("edit %+v:\ngot  %v\nwant %v\ntext:\n%s", e, got, want, out)
		}
		if !keepsAll(commentLines(base), commentLines(string(out))) {
			t.Fatalf("edit %+v lost a comment line:\n%s", e, out)
		}
	})
}

// applyToMap is what an edit does to the decoded document.
func applyToMap(m map[string]any, e Edit) {
	t := m
	for _, p := range e.Table {
		next, ok := t[p].(map[string]any)
		if !ok {
			if e.Remove {
				return
			}
			next = map[string]any{}
			t[p] = next
		}
		t = next
	}
	if e.Remove {
		delete(t, e.Key)
		return
	}
	switch v := e.Value.(type) {
	case []string:
		list := make([]any, len(v))
		for i, x := range v {
			list[i] = x
		}
		t[e.Key] = list
	default:
		t[e.Key] = v
	}
}
