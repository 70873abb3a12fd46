// Package tomledit is agate's one format-keeping TOML editor: it finds
// where each table, key and value of a file is with go-toml's parser
// (Scan), sets and removes keys in place keeping every comment and the
// keys an edit does not name (Set, Remove), and writes TOML text as
// agate's editors put it into a file: a string as a basic string, a key
// bare where it can be (String, Key, Value). config.toml, grants.toml,
// Codex's config.toml (its hooks and its MCP servers) are edited with it;
// a caller checks the whole result with a full parser before it writes
// it. It imports nothing of agate's.
package tomledit

import (
	"fmt"
	"strings"
)

// String quotes s as a TOML basic string: '"' and '\\' escaped, the
// control characters as \b \t \n \f \r or \uXXXX (U+007F included),
// everything else as it is. s must be valid UTF-8 (a caller that may
// get other bytes checks with utf8.ValidString): an invalid byte is
// written as U+FFFD, which is not what s held.
func String(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Key writes k as a key: bare when it is one (A-Z a-z 0-9 _ -, not
// empty), else quoted as String quotes it.
func Key(k string) string {
	if k == "" {
		return `""`
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return String(k)
		}
	}
	return k
}
