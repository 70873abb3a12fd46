package keystore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestIndex(t *testing.T) {
	ix := NewIndex(map[string]string{
		"keystore:openai": "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5s",
		"GITHUB_TOKEN":    "ghp_16C7e42F292c6912E7710c838347Ae",
		"PIN":             "1234",     // too short to look for
		"keystore:prefix": "sk-proj-", // exactly 8: looked for
	})
	for _, tc := range []struct {
		s     string
		label string // "" when nothing is found
	}{
		{"", ""},
		{"ls -la", ""},
		{"curl -H 'Authorization: Bearer sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5s' https://api.openai.com", "keystore:openai"},
		{"sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5", "keystore:prefix"}, // one character short of openai's value
		{"token=ghp_16C7e42F292c6912E7710c838347Ae&x=1", "GITHUB_TOKEN"},
		{"echo 1234", ""},
		{"sk-proj", ""},
	} {
		label, ok := ix.Find(tc.s)
		if label != tc.label || ok != (tc.label != "") || ix.Contains(tc.s) != ok {
			t.Errorf("Find(%q) = %q, %v; want %q", tc.s, label, ok, tc.label)
		}
	}
	if ix.Len() != 3 {
		t.Errorf("Len() = %d, want 3", ix.Len())
	}
	red := ix.Redact("key sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5s and ghp_16C7e42F292c6912E7710c838347Ae, pin 1234")
	if want := "key [secret keystore:openai] and [secret GITHUB_TOKEN], pin 1234"; red != want {
		t.Errorf("Redact = %q, want %q", red, want)
	}
	var none *Index
	if none.Contains("sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5s") || none.Len() != 0 || none.Redact("x") != "x" {
		t.Error("a nil Index knows something")
	}
	if (&Index{}).Contains("anything at all") {
		t.Error("the zero Index knows something")
	}
	dup := NewIndex(map[string]string{"b": "same-value-twice", "a": "same-value-twice"})
	if l, _ := dup.Find("same-value-twice"); l != "a" || dup.Len() != 1 {
		t.Errorf("duplicate values: label %q, Len %d; want a, 1", l, dup.Len())
	}
}

// benchIndex returns an index of n random 40-character secrets and a 4 KiB
// tool-call argument that holds none of them.
func benchIndex(n int) (*Index, string) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	secrets := map[string]string{}
	for i := range n {
		b := make([]byte, 40)
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		secrets[fmt.Sprintf("keystore:k%d", i)] = "sk-" + string(b)
	}
	var arg strings.Builder
	for arg.Len() < 4096 {
		arg.WriteString("cd /home/me/project && sk-not-a-secret git commit -m 'fix: the build' ")
	}
	return NewIndex(secrets), arg.String()[:4096]
}

// BenchmarkIndexContains is the per-argument cost the policy engine pays:
// 20 secrets against a 4 KiB string that holds none of them (the worst
// case: every secret is looked for across the whole string).
func BenchmarkIndexContains(b *testing.B) {
	ix, arg := benchIndex(20)
	b.SetBytes(int64(len(arg)))
	for b.Loop() {
		if ix.Contains(arg) {
			b.Fatal("found a secret that is not there")
		}
	}
}

// TestIndexEveryOffset plants values of every length from 8 to 20 at
// every offset of strings of every length around them: the q-gram filter
// finds each, as strings.Contains would.
func TestIndexEveryOffset(t *testing.T) {
	const filler = "abcdefghijklmnopqrstuvwxyz0123456789"
	for n := MinIndexLen; n <= 20; n++ {
		value := strings.Repeat("Q", n-1) + "Z"
		ix := NewIndex(map[string]string{"v": value})
		for pre := range 9 {
			for post := range 9 {
				s := filler[:pre] + value + filler[:post]
				if !ix.Contains(s) {
					t.Errorf("len %d at offset %d in %d bytes: not found", n, pre, len(s))
				}
				if ix.Contains(filler[:pre] + value[:n-1] + "Y" + filler[:post]) {
					t.Errorf("len %d at offset %d: found a value one byte off", n, pre)
				}
			}
		}
	}
}

// FuzzIndex checks the q-gram filter against strings.Contains.
func FuzzIndex(f *testing.F) {
	f.Add("Authorization: Bearer sk-proj-0123456789", "sk-proj-0123456789", "ghp_abcdefgh")
	f.Add("aaaaaaaaaaaaaaaaaaaa", "aaaaaaaaa", "baaaaaaaa")
	f.Add("short", "a-secret-value", "another-value")
	f.Fuzz(func(t *testing.T, s, v1, v2 string) {
		ix := NewIndex(map[string]string{"one": v1, "two": v2})
		want := len(v1) >= MinIndexLen && strings.Contains(s, v1) || len(v2) >= MinIndexLen && strings.Contains(s, v2)
		if got := ix.Contains(s); got != want {
			t.Fatalf("Contains = %v, strings.Contains says %v", got, want)
		}
		label, ok := ix.Find(s)
		if ok != want {
			t.Fatalf("Find = %q, %v; want found = %v", label, ok, want)
		}
	})
}

func TestKnown(t *testing.T) {
	ctx := context.Background()
	s, _ := Open(storePath(t), &Memory{})
	mustSet(t, s, map[string]string{"openai": "sk-from-the-store-0123456789"})
	env := map[string]string{"GH": "ghp_from-the-environment-0123"}
	r := &Resolver{Store: s, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	known, err := Known(ctx, s, r, map[string]string{
		"GITHUB_TOKEN":   "${GH}",
		"OPENAI_API_KEY": "keystore:openai",
		"MISSING":        "${NOT_SET}",
	})
	want := map[string]string{
		"keystore:openai": "sk-from-the-store-0123456789",
		"GITHUB_TOKEN":    "ghp_from-the-environment-0123",
		"OPENAI_API_KEY":  "sk-from-the-store-0123456789",
	}
	if !mapsEqual(known, want) {
		t.Errorf("Known = %d values, want %d", len(known), len(want))
	}
	if !errors.Is(err, ErrUnset) || !strings.Contains(err.Error(), "MISSING") {
		t.Errorf("Known error = %v, want the unset MISSING", err)
	}
	if ix := NewIndex(known); !ix.Contains("token ghp_from-the-environment-0123") || ix.Len() != 2 {
		t.Errorf("the index of Known: Len %d", ix.Len())
	}
}
