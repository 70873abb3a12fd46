package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/agatehq/agate/app/internal/tomledit"
	"github.com/agatehq/agate/policy"
)

// lineComments are the comments of a TOML document alone on their line,
// as its parser finds them (a "#" inside a string is not one).
func lineComments(s string) []string {
	var p unstable.Parser
	p.KeepComments = true
	p.Reset([]byte(s))
	var out []string
	var visit func(n *unstable.Node)
	visit = func(n *unstable.Node) {
		for ; n != nil && n.Valid(); n = n.Next() {
			if n.Kind == unstable.Comment {
				at := int(n.Raw.Offset)
				if strings.TrimLeft(s[tomledit.LineStart(s, at):at], " \t") == "" {
					out = append(out, string(n.Data))
				}
			}
			if n.Kind != unstable.Key {
				visit(n.Child())
			}
		}
	}
	for p.NextExpression() {
		visit(p.Expression())
	}
	return out
}

// FuzzEditAnyConfig: for any TOML document the policy's parser reads, an
// edit is refused, or gives text that the policy's parser refuses (and
// EditFile then does not write), or gives text that decodes to exactly
// the old document with the edit applied and keeps every comment line.
// Whatever the document, locating an edit never panics.
func FuzzEditAnyConfig(f *testing.F) {
	for _, s := range []string{handEdited, string(policy.DefaultConfigText), "",
		"[auto]\r\nrules = [\r\n  \"allow web\", # w\r\n]\r\n",
		"[agents]\nclaude-code.mode = \"plan\"\n\n[audit]\nkeep = 5\n",
		"[auto] # the policy\n# nothing yet\n\n[audit]\nkeep = 5",
		"[sandbox]\nwrapper = \"\"\"a ] # [\n# not a comment\n\"\"\"\nimage = 'x[' # ]\n",
		"[\"auto\"]\n'mode' = \"ask\"\n[secrets.env]\nOPENAI_API_KEY = {ref = 'x'}\n",
		"[[catalog.x]]\nrisk = 1\n[catalog.x.y]\nz = [1, [2, 3]]\n",
	} {
		f.Add(s, uint8(0), uint8(0), "plan", "x")
		f.Add(s, uint8(1), uint8(3), "deny shell rm*", "# c")
		f.Add(s, uint8(16), uint8(5), "", "x")
	}
	f.Fuzz(func(t *testing.T, doc string, keyIdx, op uint8, s1, s2 string) {
		var want map[string]any
		if _, err := toml.Decode(doc, &want); err != nil {
			return
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
		// What applyToMap models: tables all the way down, no array of
		// tables on the edit's path.
		m := want
		for _, p := range e.Table {
			v, ok := m[p]
			if !ok {
				break
			}
			if m, ok = v.(map[string]any); !ok {
				return
			}
		}
		out, err := applyEdits([]byte(doc), []Edit{e})
		if err != nil {
			return
		}
		var got map[string]any
		if _, err := toml.Decode(string(out), &got); err != nil {
			return // the check before writing refuses it
		}
		applyToMap(want, e)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("edit %+v of\n%s\ngave\n%s\ngot  %v\nwant %v", e, doc, out, got, want)
		}
		if !keepsAll(lineComments(doc), lineComments(string(out))) {
			t.Fatalf("edit %+v lost a comment line:\n%s\nfrom\n%s", e, out, doc)
		}
	})
}
