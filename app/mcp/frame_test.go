package mcp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// splitLines is the reference: lines of at most max bytes ("-" for one
// that is too long), "\r\n" and a last line without "\n" included.
func splitLines(in string, max int) []string {
	var out []string
	for len(in) > 0 {
		line := in
		if i := strings.IndexByte(in, '\n'); i >= 0 {
			line, in = in[:i], in[i+1:]
		} else {
			in = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if len(line) > max {
			line = "-"
		}
		out = append(out, line)
	}
	return out
}

func readAll(t testing.TB, r io.Reader, max int) []string {
	lr := newLineReader(r, max)
	var out []string
	for {
		line, err := lr.next()
		var tooLong *TooLongError
		switch {
		case errors.As(err, &tooLong):
			out = append(out, "-")
			continue
		case errors.Is(err, io.EOF):
			return out
		case err != nil:
			t.Fatalf("next: %v", err)
		}
		out = append(out, string(line))
	}
}

var frameTests = []string{
	"",
	"a\nb\n",
	"a\r\nb",
	"\n\n",
	"short\n" + strings.Repeat("x", 200) + "\nafter\n",
	strings.Repeat("y", 100) + "\n" + strings.Repeat("z", 101) + "\n" + strings.Repeat("w", 101),
	strings.Repeat("v", 100) + "\r\n",
	strings.Repeat("u", 101) + "\r\n",
}

func TestLineReader(t *testing.T) {
	for _, in := range frameTests {
		want := splitLines(in, 100)
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(in),
			"one byte": iotest.OneByteReader(strings.NewReader(in)),
		} {
			got := readAll(t, r, 100)
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s %.40q: got %q, want %q", name, in, got, want)
			}
		}
	}
}

func TestLineReaderLarge(t *testing.T) {
	// Lines past the reader's own buffer, and one past the bound that is
	// skipped without being held.
	big := strings.Repeat("a", 3<<20)
	in := big + "\n" + strings.Repeat("b", 9<<20) + "\nend\n"
	got := readAll(t, strings.NewReader(in), 8<<20)
	if len(got) != 3 || got[0] != big || got[1] != "-" || got[2] != "end" {
		t.Errorf("got %d lines", len(got))
	}
	lr := newLineReader(strings.NewReader(strings.Repeat("c", 100)+"\n"), 10)
	_, err := lr.next()
	var tooLong *TooLongError
	if !errors.As(err, &tooLong) || tooLong.Size != 100 || tooLong.Max != 10 {
		t.Errorf("err = %v", err)
	}
}

func FuzzLineReader(f *testing.F) {
	for _, in := range frameTests {
		f.Add(in, 100)
	}
	f.Fuzz(func(t *testing.T, in string, max int) {
		if max <= 0 || max > 1<<20 {
			return
		}
		want := splitLines(in, max)
		got := readAll(t, iotest.HalfReader(strings.NewReader(in)), max)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

func TestLineWriter(t *testing.T) {
	var b bytes.Buffer
	w := newLineWriter(&b, nil)
	w.write([]byte(`{"a":1}`))
	w.write([]byte(`{}`))
	if b.String() != "{\"a\":1}\n{}\n" {
		t.Errorf("got %q", b.String())
	}
	failed := 0
	w = newLineWriter(errWriter{}, func(error) { failed++ })
	if w.write([]byte("x")) == nil || w.write([]byte("y")) == nil || failed != 1 {
		t.Errorf("a failed writer: failed %d times", failed)
	}
}

type errWriter struct{}

func (errWriter) Write(p []byte) (int, error) { return 0, errors.New("broken pipe") }
