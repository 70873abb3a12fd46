package keystore

import "testing"

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"":                             "",
		"short":                        "…",
		"elevenchars":                  "…",
		"twelve-chars":                 "…hars",
		"sk-proj-0123456789abcdefa1b2": "…a1b2",
		"pässwörd-über-äöü":            "…-äöü",
	} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}
