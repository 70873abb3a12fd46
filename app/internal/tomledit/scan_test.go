package tomledit

import (
	"reflect"
	"strings"
	"testing"
)

// TestScanTOML: where go-toml's parser says each key's line and value
// are, in the spellings TOML allows.
func TestScanTOML(t *testing.T) {
	type entry struct {
		path, value, line string
	}
	for _, tt := range []struct {
		name string
		in   string
		want []entry
	}{
		{"top level and a table", "a = 1 # one\n[t]\nb = 'x'\n", []entry{
			{"a", "1", "a = 1 # one\n"}, {"t.b", "'x'", "b = 'x'\n"}}},
		{"quoted and dotted keys", "[\"x.y\".z]\n\"k.1\" = true\np . q = 2\n", []entry{
			{"x.y.z.k.1", "true", "\"k.1\" = true\n"}, {"x.y.z.p.q", "2", "p . q = 2\n"}}},
		{"a multi-line string holding brackets and hashes", "w = \"\"\"a ] # [\n\"\"\"\nv = 'x[' # ]\n", []entry{
			{"w", "\"\"\"a ] # [\n\"\"\"", "w = \"\"\"a ] # [\n\"\"\"\n"}, {"v", "'x['", "v = 'x[' # ]\n"}}},
		{"an array over lines with comments", "r = [\n  # c\n  \"a\", # d\n]\n", []entry{
			{"r", "[\n  # c\n  \"a\", # d\n]", "r = [\n  # c\n  \"a\", # d\n]\n"}}},
		{"CRLF, indented, no final newline", "[t]\r\n  k = 1\r\n  m = 2", []entry{
			{"t.k", "1", "  k = 1\r\n"}, {"t.m", "2", "  m = 2"}}},
		{"an array of tables", "[[p]]\nx = 1\n", []entry{{"p.x", "1", "x = 1\n"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Scan(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var got []entry
			for _, e := range doc.Entries {
				got = append(got, entry{strings.Join(e.Path, "."), tt.in[e.ValStart:e.ValEnd], tt.in[e.Start:e.End]})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("entries\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	if _, err := Scan("[t]\nk = = 1\n"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a broken file: %v, want an error naming line 2", err)
	}
}

// TestScanTOMLParts: the key's prefix, an array's elements, the lines
// that hold only a comment, and array tables kept out of Find.
func TestScanTOMLParts(t *testing.T) {
	s := "# top\n[mcp_servers.x]\ninner.command = \"a\" # c\nargs = [ 'b', \"c\" ]\n  # alone\nv = \"# not a comment\"\n[[p]]\nq = 1\n"
	doc, err := Scan(s)
	if err != nil {
		t.Fatal(err)
	}
	cmd := doc.Entries[doc.Find([]string{"mcp_servers", "x", "inner", "command"})]
	if cmd.Prefix != "inner." || cmd.Elems != nil || s[cmd.ValStart:cmd.ValEnd] != `"a"` {
		t.Errorf("command: %+v", cmd)
	}
	args := doc.Entries[doc.Find([]string{"mcp_servers", "x", "args"})]
	var elems []string
	for _, e := range args.Elems {
		elems = append(elems, s[e.Start:e.End])
	}
	if args.Prefix != "" || strings.Join(elems, "|") != `'b'|"c"` {
		t.Errorf("args: %+v, elements %q", args, elems)
	}
	var lines []string
	for i := 0; i < len(s); i = LineEnd(s, i) {
		if doc.CommentLine(i) {
			lines = append(lines, s[i:LineEnd(s, i)])
		}
	}
	if strings.Join(lines, "") != "# top\n  # alone\n" {
		t.Errorf("comment lines %q", lines)
	}
	if doc.Find([]string{"p", "q"}) >= 0 || len(doc.Headers) != 2 || !doc.Headers[1].Array {
		t.Errorf("an array of tables: %+v", doc.Headers)
	}
}
