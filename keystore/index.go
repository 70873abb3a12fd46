package keystore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// MinIndexLen is the shortest value an Index looks for: shorter ones
// ("yes", a PIN) would match everywhere.
const MinIndexLen = 8

// Index answers whether a string carries one of the known secret values.
// The policy engine asks it about every argument of every tool call. It is
// immutable once built and safe for concurrent use; build a new one when
// the secrets change. The zero value and nil know no secret.
//
// It is a q-gram filter: every occurrence of a value of 8 bytes or more
// covers a 4-byte block starting at a multiple of 4 in the searched
// string, at one of the value's first four offsets. So the search reads
// one block in four through a 64 Kibit bitmap of the values' 4-grams, and
// compares a value only where its gram matched: a 4 KiB argument costs
// about a thousand bitmap probes, whatever the number of secrets.
type Index struct {
	needles []needle
	grams   map[uint32][]gramRef // 4-gram → where it starts a value's first four offsets
	filter  *[1 << 10]uint64     // bitmap of hashGram of every key of grams
	redact  *strings.Replacer
}

type needle struct {
	label string
	value string
}

// gramRef is a 4-gram found at offset off (0 to 3) of needles[i].
type gramRef struct {
	i   int32
	off int32
}

// NewIndex builds an Index of secrets, label to value. The label names a
// secret in reports and redactions: agate uses "keystore:NAME" for sealed
// secrets and the variable name for the others, never the value. Values
// shorter than MinIndexLen are left out, as are exact duplicates (the
// first label in sorted order is kept).
func NewIndex(secrets map[string]string) *Index {
	labels := make([]string, 0, len(secrets))
	for l := range secrets {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	ix := &Index{grams: map[uint32][]gramRef{}, filter: new([1 << 10]uint64)}
	seen := map[string]bool{}
	for _, l := range labels {
		v := secrets[l]
		if len(v) < MinIndexLen || seen[v] {
			continue
		}
		seen[v] = true
		ix.needles = append(ix.needles, needle{label: l, value: v})
	}
	// Longest first: Redact then replaces a value before any shorter one
	// it contains.
	sort.SliceStable(ix.needles, func(i, j int) bool { return len(ix.needles[i].value) > len(ix.needles[j].value) })
	pairs := make([]string, 0, 2*len(ix.needles))
	for i, n := range ix.needles {
		for off := range 4 {
			g := gramAt(n.value, off)
			ix.grams[g] = append(ix.grams[g], gramRef{i: int32(i), off: int32(off)})
			h := hashGram(g)
			ix.filter[h>>6] |= 1 << (h & 63)
		}
		pairs = append(pairs, n.value, "[secret "+n.label+"]")
	}
	ix.redact = strings.NewReplacer(pairs...)
	return ix
}

// gramAt reads the 4 bytes of s at i as a little-endian number.
func gramAt(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// hashGram maps a gram to a bit of the filter (16 bits).
func hashGram(g uint32) uint32 { return (g * 0x9E3779B1) >> 16 }

// Len returns the number of values the index looks for.
func (ix *Index) Len() int {
	if ix == nil {
		return 0
	}
	return len(ix.needles)
}

// Contains reports whether s contains any known secret value.
func (ix *Index) Contains(s string) bool {
	found := false
	ix.scan(s, func(int, int) bool { found = true; return false })
	return found
}

// Find returns the label of a known secret value s contains; of several,
// the longest value's.
func (ix *Index) Find(s string) (label string, ok bool) {
	best := -1
	ix.scan(s, func(i, _ int) bool {
		if best < 0 || len(ix.needles[i].value) > len(ix.needles[best].value) {
			best = i
		}
		return true
	})
	if best < 0 {
		return "", false
	}
	return ix.needles[best].label, true
}

// scan calls found with the index of each value s contains and where it
// starts (possibly more than once) until found returns false.
func (ix *Index) scan(s string, found func(i, start int) bool) {
	if ix == nil || len(ix.needles) == 0 || len(s) < MinIndexLen {
		return
	}
	for j := 0; j+4 <= len(s); j += 4 {
		g := gramAt(s, j)
		h := hashGram(g)
		if ix.filter[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, r := range ix.grams[g] {
			v := ix.needles[r.i].value
			p := j - int(r.off)
			if p >= 0 && p+len(v) <= len(s) && s[p:p+len(v)] == v {
				if !found(int(r.i), p) {
					return
				}
			}
		}
	}
}

// Redact returns s with every known secret value replaced by "[secret
// LABEL]", for the audit log.
func (ix *Index) Redact(s string) string {
	if ix == nil || ix.redact == nil || len(s) < MinIndexLen {
		return s
	}
	return ix.redact.Replace(s)
}

// Known gathers the secret values agate knows, labelled for NewIndex:
// every entry of store as "keystore:NAME", and the value of every
// reference of refs ([secrets] env: variable → reference) by its variable
// name. What cannot be had (a locked store, an unset variable, a failing
// vault) is left out and reported in the joined error; what could be had
// is returned all the same. store and r may be nil.
func Known(ctx context.Context, store *Store, r *Resolver, refs map[string]string) (map[string]string, error) {
	known := map[string]string{}
	var errs []error
	if store != nil {
		vals, err := store.Values(ctx)
		if err != nil {
			errs = append(errs, err)
		}
		for name, v := range vals {
			known["keystore:"+name] = v
		}
	}
	if r != nil {
		vars := make([]string, 0, len(refs))
		for k := range refs {
			vars = append(vars, k)
		}
		sort.Strings(vars)
		for _, k := range vars {
			v, ok, err := r.Resolve(ctx, refs[k])
			if !ok {
				errs = append(errs, fmt.Errorf("%s: %w", k, err))
				continue
			}
			known[k] = v
		}
	}
	return known, errors.Join(errs...)
}
