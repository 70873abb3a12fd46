package keystore

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzParseFile: the store file parser never panics, and what it accepts
// it writes back to a file it reads the same. Seeds: testdata/fuzz and the
// test vector.
func FuzzParseFile(f *testing.F) {
	if v, err := os.ReadFile(filepath.Join("testdata", "store-v1.json")); err == nil {
		f.Add(v)
	}
	f.Add([]byte(`{"version":1,"entries":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fd, err := parseFile(data)
		if err != nil {
			if fd != nil {
				t.Fatal("a file and an error")
			}
			return
		}
		if fd.Master == nil && len(fd.Entries) > 0 {
			t.Fatal("entries with no master key record")
		}
		for name := range fd.Entries {
			if checkName(name) != nil {
				t.Fatalf("accepted the name %q", name)
			}
		}
		again, err := parseFile(fd.marshal())
		if err != nil {
			t.Fatalf("the file written back does not parse: %v", err)
		}
		if !mapsEqual(again.Entries, fd.Entries) || (again.Master == nil) != (fd.Master == nil) ||
			fd.Master != nil && (again.Master.Backend != fd.Master.Backend || again.Master.KeyID != fd.Master.KeyID ||
				!bytes.Equal(compactJSON(again.Master.State), compactJSON(fd.Master.State))) {
			t.Fatal("the file written back reads differently")
		}
	})
}

// FuzzParseRef: the reference parser never panics; what it accepts is a
// reference by IsReference, and an exec: command's words, quoted again,
// split back to the same words.
func FuzzParseRef(f *testing.F) {
	for _, tc := range refCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			return
		}
		if !IsReference(s) {
			t.Fatalf("ParseRef accepted %q, which IsReference denies", s)
		}
		_ = r.String()
		if r.Kind != RefExec {
			return
		}
		if len(r.Argv) == 0 {
			t.Fatal("an exec: reference with no words")
		}
		quoted := make([]string, len(r.Argv))
		for i, w := range r.Argv {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		again, err := splitWords(strings.Join(quoted, " "))
		if err != nil || !slices.Equal(again, r.Argv) {
			t.Fatalf("words %q quoted again split to %q, %v", r.Argv, again, err)
		}
	})
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if len(b) == 0 {
		return nil
	}
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}
