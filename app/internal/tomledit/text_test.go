package tomledit

import (
	"testing"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
)

var cases = []string{"", "plain", `a "quoted" \ back`, "tab\tnl\ncr\rbs\bff\f", "\x00\x01\x1f\x7f", "é ✓ \u2028 \U0001F600", "'single'", `C:\Tools\x.exe`}

// TestString: what String writes reads back, by go-toml's rules, as s.
func TestString(t *testing.T) {
	for _, s := range cases {
		var doc map[string]string
		if err := toml.Unmarshal([]byte("k = "+String(s)+"\n"), &doc); err != nil || doc["k"] != s {
			t.Errorf("%q: %q read back as %q (%v)", s, String(s), doc["k"], err)
		}
	}
}

func TestKey(t *testing.T) {
	for k, want := range map[string]string{"": `""`, "codex": "codex", "a-b_C9": "a-b_C9", "a.b": `"a.b"`, "é": `"é"`, "a\x07": `"a\u0007"`} {
		if got := Key(k); got != want {
			t.Errorf("Key(%q) = %s, want %s", k, got, want)
		}
		var doc map[string]int
		if err := toml.Unmarshal([]byte(Key(k)+" = 1\n"), &doc); err != nil || doc[k] != 1 {
			t.Errorf("Key(%q) = %s does not read back (%v)", k, Key(k), err)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		var doc map[string]string
		if err := toml.Unmarshal([]byte("k = "+String(s)+"\n"), &doc); err != nil || doc["k"] != s {
			t.Fatalf("%q: %q read back as %q (%v)", s, String(s), doc["k"], err)
		}
		var keys map[string]int
		if err := toml.Unmarshal([]byte(Key(s)+" = 1\n"), &keys); err != nil || keys[s] != 1 {
			t.Fatalf("Key(%q) = %s does not read back (%v)", s, Key(s), err)
		}
	})
}
