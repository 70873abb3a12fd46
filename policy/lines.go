package policy

import "strings"

// locator finds the line of a key, or of one element of an array value, in
// a TOML document. The TOML decoder does not expose positions, and an error
// that names its line is the difference between a fix and a hunt.
//
// It is a small scanner, not a validating parser: the document has already
// been decoded when it is asked, so it only needs to follow the structure.
// A key it cannot find is line 0, which errors print without a line.
type locator struct {
	data []byte
	pos  int
	line int

	// what to find
	key   string // dotted key, as Key.String() spells it
	index int    // element wanted, or -1 for the key itself
	found int
}

// findLine returns the line of key (index < 0) or of its index'th array
// element, or 0.
func findLine(data []byte, key []string, index int) int {
	l := &locator{data: data, line: 1, key: joinKey(key), index: index}
	l.document()
	return l.found
}

func joinKey(k []string) string {
	var b strings.Builder
	for i, p := range k {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func (l *locator) peek(off int) byte {
	if l.pos+off < len(l.data) {
		return l.data[l.pos+off]
	}
	return 0
}

func (l *locator) advance() {
	if l.pos < len(l.data) {
		if l.data[l.pos] == '\n' {
			l.line++
		}
		l.pos++
	}
}

func (l *locator) hasPrefix(s string) bool {
	return strings.HasPrefix(string(l.data[l.pos:min(len(l.data), l.pos+len(s))]), s)
}

// skipSpace skips blanks, and newlines and comments too when nl is set.
func (l *locator) skipSpace(nl bool) {
	for l.pos < len(l.data) && l.found == 0 {
		switch c := l.data[l.pos]; {
		case c == ' ' || c == '\t' || c == '\r':
			l.advance()
		case c == '\n' && nl:
			l.advance()
		case c == '#' && nl:
			for l.pos < len(l.data) && l.data[l.pos] != '\n' {
				l.advance()
			}
		default:
			return
		}
	}
}

func (l *locator) skipLine() {
	for l.pos < len(l.data) && l.data[l.pos] != '\n' {
		l.advance()
	}
}

func (l *locator) document() {
	var table []string
	for l.pos < len(l.data) && l.found == 0 {
		l.skipSpace(true)
		if l.pos >= len(l.data) {
			return
		}
		if l.data[l.pos] == '[' {
			l.advance()
			if l.peek(0) == '[' {
				l.advance()
			}
			start := l.line
			table = l.keyPath(']')
			if l.index < 0 && joinKey(table) == l.key {
				l.found = start
				return
			}
			l.skipLine()
			continue
		}
		start := l.line
		k := append(append([]string(nil), table...), l.keyPath('=')...)
		if l.peek(0) == '=' {
			l.advance()
		}
		full := joinKey(k)
		if full == l.key && l.index < 0 {
			l.found = start
			return
		}
		l.skipSpace(false)
		l.value(full == l.key)
		l.skipLine()
	}
}

// keyPath reads a dotted key up to the stop byte (not consumed).
func (l *locator) keyPath(stop byte) []string {
	var parts []string
	var cur strings.Builder
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		switch {
		case c == stop || c == '\n':
			parts = append(parts, strings.TrimSpace(cur.String()))
			return parts
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
			l.advance()
		case c == '"' || c == '\'':
			l.advance()
			for l.pos < len(l.data) && l.data[l.pos] != c && l.data[l.pos] != '\n' {
				if c == '"' && l.data[l.pos] == '\\' {
					l.advance()
				}
				cur.WriteByte(l.data[l.pos])
				l.advance()
			}
			l.advance()
		default:
			cur.WriteByte(c)
			l.advance()
		}
	}
	return append(parts, strings.TrimSpace(cur.String()))
}

// value skips one value; when want is set and the value is an array, it
// records the line of the wanted element.
func (l *locator) value(want bool) {
	switch {
	case l.hasPrefix(`"""`), l.hasPrefix(`'''`):
		q := string(l.data[l.pos : l.pos+3])
		l.pos += 3
		for l.pos < len(l.data) && !l.hasPrefix(q) {
			if q == `"""` && l.data[l.pos] == '\\' {
				l.advance()
			}
			l.advance()
		}
		l.pos += 3
	case l.peek(0) == '"' || l.peek(0) == '\'':
		q := l.data[l.pos]
		l.advance()
		for l.pos < len(l.data) && l.data[l.pos] != q && l.data[l.pos] != '\n' {
			if q == '"' && l.data[l.pos] == '\\' {
				l.advance()
			}
			l.advance()
		}
		l.advance()
	case l.peek(0) == '[':
		l.advance()
		for i := 0; l.pos < len(l.data); i++ {
			l.skipSpace(true)
			if l.peek(0) == ']' {
				l.advance()
				return
			}
			if want && i == l.index {
				l.found = l.line
				return
			}
			l.value(false)
			l.skipSpace(true)
			if l.peek(0) == ',' {
				l.advance()
			} else if l.peek(0) != ']' {
				return // not TOML we understand; give up quietly
			}
		}
	case l.peek(0) == '{':
		l.advance()
		for l.pos < len(l.data) && l.peek(0) != '}' {
			if c := l.peek(0); c == '"' || c == '\'' || c == '[' || c == '{' {
				l.value(false)
				continue
			}
			l.advance()
		}
		l.advance()
	default:
		for l.pos < len(l.data) {
			switch l.data[l.pos] {
			case ',', ']', '}', '\n', '#':
				return
			}
			l.advance()
		}
	}
}
