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
// of where it starts; of values that start at one place, the longest, and
// none inside an earlier match.
// The values are matched exactly: a value split by a space or a line
// break, or wrapped in base64, is not found.
func (ix *Index) Matches(s string) []Match {
	byStart := map[int]int{} // start -> needle
	ix.scan(s, func(i, p int) bool {
		if j, ok := byStart[p]; !ok || len(ix.needles[i].value) > len(ix.needles[j].value) {
			byStart[p] = i
		}
		return true
	})
	starts := make([]int, 0, len(byStart))
	for p := range byStart {
		starts = append(starts, p)
	}
	sort.Ints(starts)
	var out []Match
	end := 0
	for _, p := range starts {
		if p < end {
			continue
		}
		v := ix.needles[byStart[p]].value
		out = append(out, Match{Label: ix.needles[byStart[p]].label, Fingerprint: Fingerprint(v), Start: p, End: p + len(v)})
		end = p + len(v)
	}
	return out
}
