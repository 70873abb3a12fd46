package policy

import "strings"

// FindCredential reports the kind of the first credential-shaped string in
// s: a provider key (sk-..., ghp_..., AKIA..., xox...), a private key, or a
// long high-entropy token assigned to a credential-looking name.
func FindCredential(s string) (kind string, ok bool) { return findCredential(s) }

// Redact returns s with every credential-shaped token, and every value
// known holds, replaced by "[REDACTED]". It is what the audit log and the
// event stream show of a call's arguments. When known can cut its values
// out of a string itself (a Redact method), only those are cut; otherwise a
// string that contains one is replaced whole.
func Redact(s string, known KnownSecrets) string {
	if known != nil && known.Contains(s) {
		r, ok := known.(interface{ Redact(string) string })
		if !ok {
			return "[REDACTED]"
		}
		s = r.Redact(s)
	}
	if _, ok := findCredential(s); !ok {
		return s
	}
	// Replace token by token: a run of token characters that is itself
	// credential-shaped, or that follows a credential-looking name.
	var b strings.Builder
	i := 0
	for i < len(s) {
		n := tokenLen(s[i:])
		if n == 0 || s[i] == '=' {
			b.WriteByte(s[i])
			i++
			continue
		}
		tok := s[i : i+n]
		if _, bad := findCredential(tok); bad || (len(tok) >= 20 && highEntropy(tok) && credentialName(s[:i])) {
			b.WriteString("[REDACTED]")
		} else {
			b.WriteString(tok)
		}
		i += n
	}
	return b.String()
}

// secretKeyNames are argument names whose values are never logged.
var secretKeyNames = []string{"password", "passwd", "secret", "token", "api_key", "apikey", "credential", "private_key", "authorization"}

// IsSecretKey reports whether an argument named k holds a secret by its
// name alone.
func IsSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, n := range secretKeyNames {
		if strings.Contains(k, n) {
			return true
		}
	}
	return false
}

// Credential is a credential-shaped string found in a text: its kind, and
// where it is (s[Start:End]).
type Credential struct {
	Kind       string
	Start, End int
}

// FindCredentials returns every credential-shaped string in s, in order:
// provider keys, private key blocks, and long high-entropy tokens after a
// credential-looking name. It is what the prompt hooks look for in a
// person's chat message (a credential pasted into a chat is compromised).
func FindCredentials(s string) []Credential {
	var out []Credential
	i := 0
	for i < len(s) {
		if strings.HasPrefix(s[i:], "-----BEGIN") && strings.Contains(s[i:min(len(s), i+64)], "PRIVATE KEY") {
			end := len(s)
			if j := strings.Index(s[i:], "-----END"); j >= 0 {
				end = i + j + len("-----END")
				if k := strings.Index(s[end:], "-----"); k >= 0 {
					end += k + len("-----")
				}
			}
			out = append(out, Credential{Kind: "private key", Start: i, End: end})
			i = end
			continue
		}
		n := tokenLen(s[i:])
		if n == 0 || s[i] == '=' {
			i++
			continue
		}
		tok := s[i : i+n]
		if kind, ok := findCredential(tok); ok && (i == 0 || !isTokenByte(s[i-1])) {
			out = append(out, Credential{Kind: kind, Start: i, End: i + n})
		} else if len(tok) >= 20 && highEntropy(tok) {
			if name, ok := assignedTo(s[:i]); ok {
				out = append(out, Credential{Kind: "credential assigned to " + name, Start: i, End: i + n})
			} else if strings.HasSuffix(s[:i], "Bearer ") {
				out = append(out, Credential{Kind: "bearer token", Start: i, End: i + n})
			}
		}
		i += n
	}
	return out
}

// assignedTo reports whether before ends with a credential-looking name
// and "=" or ":" (quotes and spaces aside), and the name.
func assignedTo(before string) (string, bool) {
	t := strings.TrimRight(before, " \t\"'")
	if t == "" || (t[len(t)-1] != '=' && t[len(t)-1] != ':') {
		return "", false
	}
	t = t[:len(t)-1]
	if !credentialName(t) {
		return "", false
	}
	return lastWord(t), true
}
