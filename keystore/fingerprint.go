package keystore

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
)

// FingerprintLen is the length of a Fingerprint, in hex digits.
const FingerprintLen = 12

// Fingerprint names a secret value without holding it: the first 12 hex
// digits of the SHA-256 of the value. It is neither the value nor a part
// of it, so it may be shown, logged and stored; a person can compute it
// to tell which of their keys it is (`printf %s "$KEY" | sha256sum`).
func Fingerprint(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])[:FingerprintLen]
}

// Match is one known secret value found in a text: its label, its
// Fingerprint, and where it is (s[Start:End]).
type Match struct {
	Label       string
	Fingerprint string
	Start, End  int
}

// Matches returns every occurrence of a known secret value in s, in order
// of where it starts, the longer first of two that start at one place. A
// value inside another's occurrence, or overlapping it, is returned too: a
// password pasted as part of a database URL is pasted all the same.
// The values are matched exactly: a value split by a space or a line
// break, or wrapped in base64, is not found.
func (ix *Index) Matches(s string) []Match {
	type at struct{ needle, start int }
	seen := map[at]bool{}
	var found []at
	ix.scan(s, func(i, p int) bool {
		if k := (at{i, p}); !seen[k] {
			seen[k] = true
			found = append(found, k)
		}
		return true
	})
	sort.Slice(found, func(a, b int) bool {
		if found[a].start != found[b].start {
			return found[a].start < found[b].start
		}
		return len(ix.needles[found[a].needle].value) > len(ix.needles[found[b].needle].value)
	})
	out := make([]Match, 0, len(found))
	for _, f := range found {
		n := ix.needles[f.needle]
		out = append(out, Match{Label: n.label, Fingerprint: Fingerprint(n.value), Start: f.start, End: f.start + len(n.value)})
	}
	return out
}
