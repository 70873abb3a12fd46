package strictjson

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckDepth(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, c := range []struct {
		name, data string
		tooDeep    bool
	}{
		{"flat", `{"a": [1, 2]}`, false},
		{"at the bound", deep(MaxDepth), false},
		{"past it", deep(MaxDepth + 1), true},
		{"brackets in a string", `{"a": "` + strings.Repeat("[", MaxDepth+1) + `"}`, false},
		{"an escaped quote in a string", `["\"` + strings.Repeat("{", MaxDepth+1) + `"]`, false},
		{"brackets in comments", "// " + strings.Repeat("[", MaxDepth+1) + "\n/* " + strings.Repeat("{", MaxDepth+1) + " */ {}", false},
		{"an unclosed comment", "[/* " + strings.Repeat("[", MaxDepth+1), false},
		{"deep after a comment", "/* x */" + deep(MaxDepth+1), true},
	} {
		err := CheckDepth([]byte(c.data))
		if got := errors.Is(err, ErrTooDeep); got != c.tooDeep {
			t.Errorf("%s: CheckDepth = %v, want too deep %v", c.name, err, c.tooDeep)
		}
	}
}
