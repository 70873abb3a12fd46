package strictjson

import (
	"bytes"
	"errors"
)

// MaxDepth is how deeply CheckDepth lets arrays and objects nest: a
// recursive parser (hujson's recurses once per level) is safe below it.
const MaxDepth = 10000

// ErrTooDeep is the error of CheckDepth.
var ErrTooDeep = errors.New("arrays and objects nest too deeply")

// CheckDepth refuses JSON, or JSON with comments (JSONC), whose arrays
// and objects nest deeper than MaxDepth, looking past strings and
// comments. It does not check that data is JSON at all.
func CheckDepth(data []byte) error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			if j := bytes.Index(data[i+2:], []byte("*/")); j >= 0 {
				i += j + 3
			} else {
				i = len(data)
			}
		case c == '[' || c == '{':
			if depth++; depth > MaxDepth {
				return ErrTooDeep
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}
