package policy

import (
	"strings"
	"testing"
)

func TestFindCredential(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD", true},
		{"export OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123456789", true},
		{"ghp_0123456789abcdefghijABCDEFGHIJ012345", true},
		{"AKIAIOSFODNN7EXAMPLE", true},
		{"xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx", true},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=", true},
		{`"api_key": "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RF"`, true},
		{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", true},
		{"task-list: sk-", false},
		{"risk-free and ask-me", false},
		{"git commit -m 'fix the token parser'", false},
		{"sha512-Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFla", false},
		{"commit 3f786850e387550fdab836ed7e6dc881de23001b", false},
		{"token = \"short\"", false},
		{"password: hunter2", false},
	}
	for _, tt := range tests {
		_, got := findCredential(tt.s)
		if got != tt.want {
			t.Errorf("%q: %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	in := "curl -H 'Authorization: Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345' https://api.github.com"
	out := Redact(in, nil)
	if out == in || !contains(out, "[REDACTED]") || contains(out, "ghp_0123") || !contains(out, "https://api.github.com") {
		t.Fatalf("Redact = %q", out)
	}
	if got := Redact("ls -la", nil); got != "ls -la" {
		t.Fatalf("Redact changed a clean string: %q", got)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// FuzzFindCredential: never panics, and Redact removes what it finds.
func FuzzFindCredential(f *testing.F) {
	f.Add("sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD")
	f.Add("token=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RF")
	f.Add("ls -la")
	f.Fuzz(func(t *testing.T, s string) {
		if _, ok := findCredential(s); ok {
			r := Redact(s, nil)
			if _, still := findCredential(r); still {
				t.Fatalf("Redact(%q) = %q still holds a credential", s, r)
			}
		}
	})
}
