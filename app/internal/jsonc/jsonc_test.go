package jsonc

import (
	"bytes"
	"testing"

	"github.com/tailscale/hujson"
)

// docs are objects laid out as people and programs write them.
var docs = []string{
	`{"a": 1, "b": 2}`,
	"{\n  \"a\": 1,\n  \"b\": 2\n}\n",
	"{\n  \"a\": 1, // one\n  // before b\n  \"b\": 2,\n}",
	"{\r\n\t\"a\": 1,\r\n\r\n\t\"b\": 2\r\n}\r\n",
	"{\"a\":1,\"b\":2 ,}",
	"{\n  \"a\": 1 /* a */,\n  \"b\": [\n    1,\n    2\n  ]\n}",
}

// TestInsertAfterThenRemove: a member inserted after each member, then
// removed, gives back the file byte for byte; the insert is laid out as
// its neighbours, and a plain JSON file stays plain JSON.
func TestInsertAfterThenRemove(t *testing.T) {
	for _, in := range docs {
		for i := range 2 {
			checkInsertRemove(t, in, i)
		}
	}
}

func checkInsertRemove(t *testing.T, in string, i int) {
	t.Helper()
	d, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	root := d.Root()
	if i >= len(root.Object().Members) {
		return
	}
	d.InsertAfter(root, i, "new", Inline(String("x"), String("y")))
	mid, err := d.Pack()
	if err != nil {
		t.Fatalf("%q after member %d: %v", in, i, err)
	}
	v, err := hujson.Parse(mid)
	if err != nil {
		t.Fatalf("%q after member %d: %s does not parse: %v", in, i, mid, err)
	}
	names := v.Value.(*hujson.Object).Members
	if got := string(names[i+1].Name.Value.(hujson.Literal)); got != `"new"` {
		t.Fatalf("%q: member %d is %s in %s", in, i+1, got, mid)
	}
	if !bytes.Contains(mid, []byte(`["x", "y"]`)) {
		t.Errorf("%q: not one line: %s", in, mid)
	}
	d2, err := Parse(mid)
	if err != nil {
		t.Fatal(err)
	}
	d2.Remove(d2.Root(), i+1)
	back, err := d2.Pack()
	if err != nil {
		t.Fatal(err)
	}
	if string(back) != in {
		t.Errorf("insert after member %d, then remove:\n%q\nwas\n%q\nin between\n%q", i, back, in, mid)
	}
}

// TestPrependThenDrop: strings put before an array's elements, then
// dropped, give back the array.
func TestPrependThenDrop(t *testing.T) {
	for _, in := range []string{`{"a": ["p"]}`, "{\"a\": [\n  \"p\", // c\n  \"q\"\n]}", `{"a": [ "p" ,"q"]}`} {
		d, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		a := d.BoxOf(d.Root(), &d.Root().Object().Members[0].Value)
		d.PrependStrings(a, []string{"x", "y"})
		mid, _ := d.Pack()
		if _, err := hujson.Standardize(append([]byte(nil), mid...)); err != nil {
			t.Fatalf("%s: %v", mid, err)
		}
		d.DropFirst(a, 2)
		if back, _ := d.Pack(); string(back) != in {
			t.Errorf("prepend, then drop: %q, was %q (in between %q)", back, in, mid)
		}
	}
}

// FuzzInsertRemove: for any JSON-with-comments object, inserting a member
// and removing it again gives back the text.
func FuzzInsertRemove(f *testing.F) {
	for _, d := range docs {
		f.Add(d, uint8(0))
		f.Add(d, uint8(1))
	}
	f.Fuzz(func(t *testing.T, in string, i uint8) {
		d, err := Parse([]byte(in))
		if err != nil || len(bytes.TrimSpace([]byte(in))) == 0 {
			return
		}
		if _, err := d.Pack(); err != nil {
			return
		}
		checkInsertRemove(t, in, int(i))
	})
}
