package shellquote

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// words are what the quoter meets: plain words, each shell's specials,
// quotes of both kinds, control characters, bytes that are not UTF-8.
var words = []string{
	"", "ls", "/usr/bin/agate-cli", "a b", "it's", `say "hi"`, "$HOME", "`id`", "$(id)", "a;b", "a&&b", "a|b",
	"*.go", "?", "[ab]", "{a,b}", "~", "~/x", "=ls", "=", "a=b", "#c", "a#b", "!", "!!", "^x", "%1",
	"\n", "a\nb", "\t", "\x01", "\x7f", "é", "\xff\xfe", "'", `"`, `\`, `\'`, "-n", "--", "if", "then",
	"日本語", "a\u200bb", "\u202e", "%s", "%%", "*", "a b\nc'd\"e$f`g\\h",
}

// shells are the shells Quote promises, where they are installed.
func shells(t testing.TB) map[string]string {
	found := map[string]string{}
	for _, sh := range []string{"bash", "zsh"} {
		if p, err := exec.LookPath(sh); err == nil {
			found[sh] = p
		}
	}
	if len(found) == 0 {
		t.Skip("neither bash nor zsh is installed")
	}
	return found
}

// readBack runs the quoted word in sh and returns what the shell passed
// as the one argument of printf.
func readBack(t testing.TB, sh, q string) (string, bool) {
	out, err := exec.Command(sh, "-c", `printf '%s\0' `+q).Output()
	if err != nil {
		t.Fatalf("%s -c %q: %v", sh, q, err)
	}
	got, ok := strings.CutSuffix(string(out), "\x00")
	return got, ok && !strings.Contains(got, "\x00")
}

func check(t *testing.T, sh map[string]string, w string) {
	q, err := Quote(w)
	if err != nil {
		if strings.IndexByte(w, 0) < 0 {
			t.Fatalf("Quote(%q): %v", w, err)
		}
		if !errors.Is(err, ErrNUL) {
			t.Fatalf("Quote(%q): %v, want ErrNUL", w, err)
		}
		return
	}
	if strings.HasPrefix(q, "=") || strings.HasPrefix(q, "~") {
		t.Fatalf("Quote(%q) = %s: a bare = or ~ first", w, q)
	}
	for name, path := range sh {
		if got, ok := readBack(t, path, q); !ok || got != w {
			t.Errorf("%s reads Quote(%q) = %s as %q", name, w, q, got)
		}
	}
	if p, err := QuotePOSIX(w); err == nil {
		for name, path := range sh {
			if got, ok := readBack(t, path, p); !ok || got != w {
				t.Errorf("%s reads QuotePOSIX(%q) = %s as %q", name, w, p, got)
			}
		}
		if strings.Contains(p, "$'") {
			t.Errorf("QuotePOSIX(%q) = %s: $'...' is not POSIX", w, p)
		}
	} else if !errors.Is(err, ErrNotPOSIX) && !errors.Is(err, ErrNUL) {
		t.Errorf("QuotePOSIX(%q): %v", w, err)
	}
}

// TestQuote: every word reads back as itself in bash and zsh.
func TestQuote(t *testing.T) {
	sh := shells(t)
	for _, w := range words {
		check(t, sh, w)
	}
	if _, err := Quote("a\x00b"); !errors.Is(err, ErrNUL) {
		t.Errorf("a NUL: %v, want ErrNUL", err)
	}
	if _, err := QuotePOSIX("a\nb"); !errors.Is(err, ErrNotPOSIX) {
		t.Errorf("a newline for sh: %v, want ErrNotPOSIX", err)
	}
	for w, want := range map[string]string{"ls": "ls", "/usr/bin/agate": "/usr/bin/agate", "a b": "'a b'", "=ls": "'=ls'", "it's": `"it's"`} {
		if q, _ := Quote(w); q != want {
			t.Errorf("Quote(%q) = %s, want %s", w, q, want)
		}
	}
}

// TestJoin: a joined line splits back into its words.
func TestJoin(t *testing.T) {
	sh := shells(t)
	line, err := Join(words)
	if err != nil {
		t.Fatal(err)
	}
	for name, path := range sh {
		out, err := exec.Command(path, "-c", `printf '%s\0' `+line).Output()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if strings.Join(got, "|") != strings.Join(words, "|") {
			t.Errorf("%s splits %s\n as %q", name, line, got)
		}
	}
	if _, err := Join([]string{"a", "b\x00"}); !errors.Is(err, ErrNUL) || !strings.Contains(err.Error(), "word 2") {
		t.Errorf("a NUL in word 2: %v", err)
	}
}

// FuzzQuote: any word Quote accepts reads back as itself in bash and
// zsh; QuotePOSIX's too.
func FuzzQuote(f *testing.F) {
	for _, w := range words {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		check(t, shells(t), w)
	})
}

// TestSplit: what Join writes, Split reads back; a line that is not a
// command of plain words is refused, and a backslash outside quotes
// escapes as bash has it.
func TestSplit(t *testing.T) {
	line, err := Join(words)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := Split(line); !ok || !slices.Equal(got, words) {
		t.Errorf("Split(Join(words)) = %q, %v", got, ok)
	}
	if got, ok := Split(`a\ b 'c'\''d' e` + "\\\nf"); !ok || !slices.Equal(got, []string{"a b", "c'd", "ef"}) {
		t.Errorf("escapes: %q, %v", got, ok)
	}
	for _, bad := range []string{"a; b", "a | b", "a > f", "X=1 a", `a "$x"`, "a $(b)", "a `b`", "(a)", "a &", "", "'"} {
		if got, ok := Split(bad); ok {
			t.Errorf("Split(%q) = %q, want refused", bad, got)
		}
	}
}

// FuzzSplit: any words Join writes come back from Split as they were.
func FuzzSplit(f *testing.F) {
	for _, w := range words {
		f.Add(w, "x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		line, err := Join([]string{a, b})
		if err != nil {
			return
		}
		if got, ok := Split(line); !ok || !slices.Equal(got, []string{a, b}) {
			t.Fatalf("Split(%q) = %q, %v; want %q", line, got, ok, []string{a, b})
		}
	})
}
