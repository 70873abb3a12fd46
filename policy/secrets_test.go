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

func TestFindCredentials(t *testing.T) {
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----"
	tests := []struct {
		text  string
		kinds []string
	}{
		{"please use sk-proj-" + strings.Repeat("aB3", 15) + " for the tests", []string{"OpenAI API key"}},
		{"two: ghp_" + strings.Repeat("x1Y", 13) + " and AKIA" + "IOSFODNN7EXAMPLE1234", []string{"GitHub token", "AWS access key"}},
		{"my key is\n" + key + "\nthanks", []string{"private key"}},
		{"export API_KEY=Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3", []string{"credential assigned to API_KEY"}},
		{"the task-abcdefghijklmnopqrstuvwxyz0123456789 id is not a key", nil},
		{"nothing here, just sk- words", nil},
	}
	for _, tt := range tests {
		got := FindCredentials(tt.text)
		var kinds []string
		for _, c := range got {
			kinds = append(kinds, c.Kind)
			if c.Start < 0 || c.End > len(tt.text) || c.Start >= c.End {
				t.Fatalf("%q: bad span %+v", tt.text, c)
			}
			if _, ok := FindCredential(tt.text[c.Start:c.End]); !ok && !strings.HasPrefix(c.Kind, "credential assigned") {
				t.Errorf("%q: the span %q is not a credential", tt.text, tt.text[c.Start:c.End])
			}
		}
		if strings.Join(kinds, ",") != strings.Join(tt.kinds, ",") {
			t.Errorf("%q: kinds %v, want %v", tt.text, kinds, tt.kinds)
		}
	}
}

func FuzzFindCredentials(f *testing.F) {
	f.Add("sk-proj-" + strings.Repeat("aB3", 15))
	f.Add("-----BEGIN RSA PRIVATE KEY-----\nx\n-----END")
	f.Add("token: Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3 ghp_")
	f.Fuzz(func(t *testing.T, s string) {
		last := 0
		for _, c := range FindCredentials(s) {
			if c.Start < last || c.End > len(s) || c.Start >= c.End {
				t.Fatalf("%q: span %+v after %d", s, c, last)
			}
			last = c.End
		}
		if _, ok := FindCredential(s); ok != (len(FindCredentials(s)) > 0) && !strings.Contains(s, "PRIVATE KEY") {
			// FindCredential and FindCredentials agree on whether s holds one.
			t.Fatalf("%q: FindCredential %v, FindCredentials %v", s, ok, FindCredentials(s))
		}
	})
}
