package keystore

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	v := "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5s"
	sum := sha256.Sum256([]byte(v))
	fp := Fingerprint(v)
	if fp != hex.EncodeToString(sum[:])[:FingerprintLen] || len(fp) != FingerprintLen {
		t.Fatalf("Fingerprint = %q", fp)
	}
	if strings.Contains(v, fp) || Fingerprint(v+"x") == fp {
		t.Fatalf("Fingerprint %q is part of the value or not specific to it", fp)
	}
}

func TestIndexMatches(t *testing.T) {
	openai := "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5s"
	gh := "ghp_16C7e42F292c6912E7710c838347Ae"
	ix := NewIndex(map[string]string{
		"keystore:openai": openai,
		"GITHUB_TOKEN":    gh,
		"keystore:prefix": "sk-proj-", // inside openai's value
		"keystore:inner":  gh[6:24],   // inside gh's value, starting later
	})
	for _, tc := range []struct {
		s      string
		labels []string
	}{
		{"", nil},
		{"please look at the failing test", nil},
		{"use " + openai + " and " + gh + ", then " + openai,
			[]string{"keystore:openai", "keystore:prefix", "GITHUB_TOKEN", "keystore:inner", "keystore:openai", "keystore:prefix"}},
		{"inside: " + gh, []string{"GITHUB_TOKEN", "keystore:inner"}},
		{"only sk-proj-here", []string{"keystore:prefix"}},
		{"split " + openai[:12] + " " + openai[12:], []string{"keystore:prefix"}},
		{"split " + gh[:10] + "\n" + gh[10:], nil},
	} {
		ms := ix.Matches(tc.s)
		var labels []string
		for _, m := range ms {
			labels = append(labels, m.Label)
			v := tc.s[m.Start:m.End]
			if m.Fingerprint != Fingerprint(v) {
				t.Errorf("%q: fingerprint %s is not the matched value's", tc.s, m.Fingerprint)
			}
		}
		if strings.Join(labels, ",") != strings.Join(tc.labels, ",") {
			t.Errorf("Matches(%q) = %v, want %v", tc.s, labels, tc.labels)
		}
	}
	var none *Index
	if ms := none.Matches(openai); len(ms) != 0 {
		t.Errorf("a nil Index matched %v", ms)
	}
}
