package policy

import (
	"math"
	"strings"
)

// credentialPrefixes are the fixed prefixes of well-known provider keys,
// with the shortest plausible length of the whole key.
var credentialPrefixes = []struct {
	prefix string
	min    int
	kind   string
}{
	{"sk-ant-", 40, "Anthropic API key"},
	{"sk-proj-", 40, "OpenAI API key"},
	{"sk-", 32, "API key (sk-...)"},
	{"ghp_", 36, "GitHub token"},
	{"gho_", 36, "GitHub OAuth token"},
	{"ghu_", 36, "GitHub token"},
	{"ghs_", 36, "GitHub token"},
	{"ghr_", 36, "GitHub refresh token"},
	{"github_pat_", 60, "GitHub token"},
	{"glpat-", 26, "GitLab token"},
	{"AKIA", 20, "AWS access key"},
	{"ASIA", 20, "AWS access key"},
	{"xoxb-", 24, "Slack token"},
	{"xoxp-", 24, "Slack token"},
	{"xoxa-", 24, "Slack token"},
	{"xoxs-", 24, "Slack token"},
	{"xapp-", 24, "Slack token"},
	{"AIza", 39, "Google API key"},
	{"hf_", 34, "Hugging Face token"},
	{"npm_", 40, "npm token"},
	{"pypi-", 60, "PyPI token"},
	{"sk_live_", 24, "Stripe key"},
	{"rk_live_", 24, "Stripe key"},
	{"SG.", 60, "SendGrid key"},
	{"-----BEGIN", 30, "private key"},
}

// prefixByLead groups credentialPrefixes by their first byte.
var prefixByLead = func() (t [256][]int) {
	for i, p := range credentialPrefixes {
		t[p.prefix[0]] = append(t[p.prefix[0]], i)
	}
	return t
}()

// credentialNames are words that, written before "=" or ":", say the value
// after them is a credential.
var credentialNames = []string{"api_key", "apikey", "api-key", "token", "secret", "password", "passwd", "auth", "bearer", "credential", "private_key", "access_key"}

// findCredential reports the kind of the first credential-shaped string in
// s: a provider key (sk-..., ghp_..., AKIA..., xox...), a private key, or a
// long high-entropy token assigned to a credential-looking name
// (API_KEY=..., "token": "...", Bearer ...).
func findCredential(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case 's', 'g', 'A', 'x', 'h', 'n', 'p', 'r', 'S', '-':
			for _, k := range prefixByLead[c] {
				p := &credentialPrefixes[k]
				if !strings.HasPrefix(s[i:], p.prefix) {
					continue
				}
				if i > 0 && isTokenByte(s[i-1]) && p.prefix != "-----BEGIN" {
					continue // inside a longer word: "task-..." is not "sk-"
				}
				if p.prefix == "-----BEGIN" {
					if strings.Contains(s[i:min(len(s), i+64)], "PRIVATE KEY") {
						return p.kind, true
					}
					continue
				}
				n := tokenLen(s[i:])
				if n >= p.min && hasDigit(s[i+len(p.prefix):i+n]) {
					return p.kind, true
				}
			}
		case '=', ':':
			if credentialName(s[:i]) {
				v := strings.TrimLeft(s[i+1:], " \t\"'=:")
				if n := tokenLen(v); n >= 20 && highEntropy(v[:n]) {
					return "credential assigned to " + lastWord(s[:i]), true
				}
			}
		case 'B':
			if strings.HasPrefix(s[i:], "Bearer ") {
				v := s[i+7:]
				if n := tokenLen(v); n >= 20 && highEntropy(v[:n]) {
					return "bearer token", true
				}
			}
		}
	}
	return "", false
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// tokenLen is the length of the run of token characters starting s.
func tokenLen(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if isTokenByte(c) || c == '.' || c == '/' || c == '+' || c == '=' {
			n++
			continue
		}
		break
	}
	return n
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// credentialName reports whether the text before a "=" or ":" ends with a
// credential-looking name.
func credentialName(before string) bool {
	w := strings.ToLower(lastWord(before))
	if w == "" {
		return false
	}
	for _, n := range credentialNames {
		if strings.HasSuffix(w, n) {
			return true
		}
	}
	return false
}

// lastWord returns the name-like word at the end of s, ignoring quotes and
// spaces before the separator.
func lastWord(s string) string {
	s = strings.TrimRight(s, " \t\"':=")
	i := len(s)
	for i > 0 && (isTokenByte(s[i-1]) || s[i-1] == '.') {
		i--
	}
	return s[i:]
}

// highEntropy reports whether a token looks random: at least three kinds
// of character and more than 3.5 bits of entropy per character.
func highEntropy(s string) bool {
	var upper, lower, digit bool
	var counts [256]int
	for i := 0; i < len(s); i++ {
		c := s[i]
		counts[c]++
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	kinds := 0
	for _, k := range []bool{upper, lower, digit} {
		if k {
			kinds++
		}
	}
	if kinds < 3 {
		return false
	}
	h := 0.0
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h > 3.5
}
