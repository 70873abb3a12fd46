package keystore

import "unicode/utf8"

// maskMinLen is the shortest value whose tail Mask shows: a shorter one
// would give away too much of itself.
const maskMinLen = 12

// Mask returns a form of value safe to show: an ellipsis and its last four
// characters ("…a1b2"), or just "…" for a value shorter than 12
// characters. The empty string stays empty.
func Mask(value string) string {
	if value == "" {
		return ""
	}
	n := utf8.RuneCountInString(value)
	if n < maskMinLen {
		return "…"
	}
	tail := value
	for range n - 4 {
		_, size := utf8.DecodeRuneInString(tail)
		tail = tail[size:]
	}
	return "…" + tail
}
