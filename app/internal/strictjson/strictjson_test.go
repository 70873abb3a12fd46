package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		in      string
		dup     bool // a duplicate key
		invalid bool // any other refusal
	}{
		{in: `{"tool":"Bash","args":{"command":"ls"}}`},
		{in: `  {"a":1}  `},
		{in: `[{"a":1},{"a":2}]`},
		{in: `{"a":{"b":1},"b":{"a":1}}`},
		{in: `{"a":[{"x":1,"y":2},{"x":3}],"c":"a"}`},
		{in: `"just a string"`},
		{in: `{"tool":"Bash","tool":"Write"}`, dup: true},
		{in: `{"tool":"Bash","TOOL":"Write"}`, dup: true},
		{in: `{"args":{"command":"ls","Command":"rm -rf ~"}}`, dup: true},
		{in: `{"a":[1,{"k":1,"k":2}]}`, dup: true},
		{in: `{"\u0074ool":"x","tool":"y"}`, dup: true},
		{in: "{\"\u212aey\":1,\"key\":2}", dup: true}, // Kelvin sign folds to k
		{in: `{"a":1}{"a":2}`, invalid: true},
		{in: `{"a":1} x`, invalid: true},
		{in: ``, invalid: true},
		{in: `{"a":`, invalid: true},
	} {
		err := Check([]byte(tt.in))
		switch {
		case tt.dup:
			if !errors.Is(err, ErrDuplicateKey) {
				t.Errorf("%s: got %v, want a duplicate key", tt.in, err)
			}
		case tt.invalid:
			if err == nil || errors.Is(err, ErrDuplicateKey) {
				t.Errorf("%s: got %v, want an error", tt.in, err)
			}
		default:
			if err != nil {
				t.Errorf("%s: %v", tt.in, err)
			}
		}
	}
}

func TestUnmarshalRefusesWhatEncodingJSONAccepts(t *testing.T) {
	var v struct{ Tool string }
	err := Unmarshal([]byte(`{"tool":"Bash","tool":"Write"}`), &v)
	var de *DuplicateKeyError
	if !errors.As(err, &de) || de.Key != "tool" || !strings.Contains(err.Error(), `"tool"`) {
		t.Fatalf("got %v", err)
	}
	if v.Tool != "" {
		t.Fatalf("decoded %q despite the error", v.Tool)
	}
	if err := Unmarshal([]byte(`{"tool":"Bash"}`), &v); err != nil || v.Tool != "Bash" {
		t.Fatalf("got %v, %q", err, v.Tool)
	}
}

// checkTokens is a second, slower implementation of Check on the
// decoder's tokens: the fuzzer holds the two to the same answers.
func checkTokens(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type fr struct {
		object, wantKey bool
		keys            map[string]bool
	}
	var stack []fr
	values := 0
	done := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		} else if n == 0 {
			values++
		}
	}
	for {
		if len(stack) == 0 && values == 1 {
			if _, err := dec.Token(); err != io.EOF {
				return errors.New("trailing data")
			}
			return nil
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, fr{object: true, wantKey: true, keys: map[string]bool{}})
			case '[':
				stack = append(stack, fr{})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				k := foldKey(t)
				if stack[n-1].keys[k] {
					return ErrDuplicateKey
				}
				stack[n-1].keys[k] = true
				stack[n-1].wantKey = false
				continue
			}
			done()
		default:
			done()
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, `[{"x":{"y":[1,2,{"z":null}]}}]`, `{"A":1,"a":2}`, `{"a\"b":1,"a\u0022b":2}`, `{"":{"":[]},"x":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want := Check(data), checkTokens(data)
		if (got == nil) != (want == nil) || json.Valid(data) && errors.Is(got, ErrDuplicateKey) != errors.Is(want, ErrDuplicateKey) {
			t.Fatalf("Check = %v, the token walk = %v", got, want)
		}
	})
}
