package sandbox

import (
	"net/url"
	"slices"
	"strings"
)

// credentialWords are words of a variable name (split at "_") that make it
// a credential wherever they stand: OPENAI_API_KEY, GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, DB_PASS, SSH_AUTH_SOCK.
var credentialWords = map[string]bool{
	"KEY": true, "KEYS": true, "APIKEY": true, "PRIVATEKEY": true, "ACCESSKEY": true,
	"TOKEN": true, "TOKENS": true,
	"SECRET": true, "SECRETS": true,
	"PASS": true, "PASSWD": true, "PASSWORD": true, "PASSWORDS": true, "PASSPHRASE": true,
	"CREDENTIAL": true, "CREDENTIALS": true, "CREDS": true,
	"AUTH": true, "BEARER": true, "COOKIE": true, "COOKIES": true,
	"PAT": true, "DSN": true,
}

// credentialParts are substrings that make a name a credential anywhere in
// it, even glued to other words: MYSQLPASSWORD, GITHUBTOKEN, CLIENTSECRET.
var credentialParts = []string{
	"PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "CREDENTIAL", "APIKEY",
	"PRIVATEKEY", "ACCESSKEY", "AUTHTOKEN", "ACCESSTOKEN",
}

// IsCredentialName reports whether an environment variable's name says it
// holds a credential: a word KEY, TOKEN, SECRET, PASS, PASSWORD,
// CREDENTIAL, AUTH and their kin (OPENAI_API_KEY, GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, DB_PASS, SSH_AUTH_SOCK), a
// name ending in TOKEN or _PWD, or one containing PASSWORD, SECRET or
// CREDENTIAL anywhere. PATH, HOME, PWD, LANG, TERM and USER are not.
func IsCredentialName(name string) bool {
	n := strings.ToUpper(name)
	for _, p := range credentialParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	if strings.HasSuffix(n, "TOKEN") || strings.HasSuffix(n, "_PWD") {
		return true
	}
	for w := range strings.SplitSeq(n, "_") {
		if credentialWords[w] {
			return true
		}
	}
	return false
}

// hasURLPassword reports whether v is a URL with a password in it, as in
// DATABASE_URL=postgres://app:hunter2@db/app.
func hasURLPassword(v string) bool {
	if !strings.Contains(v, "://") || !strings.Contains(v, "@") {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

// ScrubEnv returns environ ("NAME=value" entries) without the credentials:
// the variables named in secretNames, those [IsCredentialName] flags,
// those whose value is a URL with a password in it, and the git config
// pairs that carry one ([GitEnvView]). Everything else (PATH,
// HOME, LANG, TERM, USER, ...) stays, in order. Malformed entries are
// dropped.
func ScrubEnv(environ []string, secretNames []string) []string {
	secret := make(map[string]bool, len(secretNames))
	for _, s := range secretNames {
		secret[s] = true
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		// GIT_CONFIG_KEY_n names a config key, not a key: GitEnvView
		// judges git's config pairs as a whole.
		gitPair := strings.HasPrefix(name, "GIT_CONFIG_KEY_")
		if secret[name] || !gitPair && IsCredentialName(name) || hasURLPassword(value) {
			continue
		}
		out = append(out, kv)
	}
	return GitEnvView(out)
}

// setEnv returns env with name set to value, replacing any earlier entry.
func setEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if n, _, _ := strings.Cut(kv, "="); n != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// keepEnv adds back to scrubbed the variables of env that keep names,
// unless secret names them too.
func keepEnv(scrubbed, env, keep, secret []string) []string {
	if len(keep) == 0 {
		return scrubbed
	}
	have := make(map[string]bool, len(scrubbed))
	for _, kv := range scrubbed {
		k, _, _ := strings.Cut(kv, "=")
		have[k] = true
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !have[k] && slices.Contains(keep, k) && !slices.Contains(secret, k) {
			scrubbed = append(scrubbed, kv)
			have[k] = true
		}
	}
	return scrubbed
}
