package sandbox

import (
	"slices"
	"testing"
)

func TestIsCredentialName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		// Credentials, by the brief's patterns and real names.
		{"OPENAI_API_KEY", true},
		{"ANTHROPIC_API_KEY", true},
		{"GITHUB_TOKEN", true},
		{"GH_TOKEN", true},
		{"HF_TOKEN", true},
		{"NPM_TOKEN", true},
		{"AWS_ACCESS_KEY_ID", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"AWS_SESSION_TOKEN", true},
		{"AZURE_CLIENT_SECRET", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"OP_SERVICE_ACCOUNT_TOKEN", true},
		{"VAULT_TOKEN", true},
		{"DB_PASS", true},
		{"DB_PWD", true},
		{"PGPASSWORD", true},
		{"MYSQL_ROOT_PASSWORD", true},
		{"SMTP_PASSWD", true},
		{"GPG_PASSPHRASE", true},
		{"SSH_AUTH_SOCK", true},
		{"SENTRY_DSN", true},
		{"GH_PAT", true},
		{"STRIPE_SECRET", true},
		{"CLIENTSECRET", true},
		{"GITHUBTOKEN", true},
		{"openai_api_key", true},
		{"SLACK_BOT_TOKEN", true},
		{"SIGNING_KEYS", true},
		{"DOCKER_AUTH_CONFIG", true},
		// Not credentials: what a working shell needs.
		{"PATH", false},
		{"HOME", false},
		{"PWD", false},
		{"OLDPWD", false},
		{"LANG", false},
		{"LC_ALL", false},
		{"TERM", false},
		{"COLORTERM", false},
		{"USER", false},
		{"SHELL", false},
		{"EDITOR", false},
		{"TZ", false},
		{"XDG_RUNTIME_DIR", false},
		{"XDG_SESSION_ID", false},
		{"TOKENIZERS_PARALLELISM", false},
		{"KEYTIMEOUT", false},
		{"GOPATH", false},
		{"PASSAGE_DIR", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsCredentialName(tt.name); got != tt.want {
				t.Errorf("IsCredentialName(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func TestScrubEnv(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		secrets []string
		want    []string
	}{
		{
			name:    "keeps the shell's variables in order",
			environ: []string{"PATH=/usr/bin:/bin", "HOME=/home/a", "LANG=C.UTF-8", "TERM=xterm", "USER=a"},
			want:    []string{"PATH=/usr/bin:/bin", "HOME=/home/a", "LANG=C.UTF-8", "TERM=xterm", "USER=a"},
		},
		{
			name:    "drops credential-looking names",
			environ: []string{"PATH=/bin", "FOO_TOKEN=x", "OPENAI_API_KEY=sk", "MY_PASSWORD=p", "X=1"},
			want:    []string{"PATH=/bin", "X=1"},
		},
		{
			name:    "drops the config's secrets whatever their names",
			environ: []string{"PATH=/bin", "OPENROUTER=sk", "TELEGRAM=123:AA", "OTHER=1"},
			secrets: []string{"OPENROUTER", "TELEGRAM"},
			want:    []string{"PATH=/bin", "OTHER=1"},
		},
		{
			name:    "drops URLs with a password",
			environ: []string{"DATABASE_URL=postgres://app:hunter2@db/app", "HOMEPAGE=https://example.com/a@b", "PROXY=http://user@proxy:3128"},
			want:    []string{"HOMEPAGE=https://example.com/a@b", "PROXY=http://user@proxy:3128"},
		},
		{
			name:    "drops malformed entries and keeps empty values",
			environ: []string{"NOEQUALS", "=x", "EMPTY="},
			want:    []string{"EMPTY="},
		},
		{
			name:    "secret names match exactly",
			environ: []string{"Api=1", "API=2"},
			secrets: []string{"API"},
			want:    []string{"Api=1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ScrubEnv(tt.environ, tt.secrets)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ScrubEnv = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSetEnv(t *testing.T) {
	got := setEnv([]string{"A=1", "B=2", "A=3"}, "A", "4")
	if want := []string{"B=2", "A=4"}; !slices.Equal(got, want) {
		t.Errorf("setEnv = %q, want %q", got, want)
	}
}

func FuzzScrubEnv(f *testing.F) {
	for _, s := range []string{"PATH=/bin", "FOO_TOKEN=x", "DATABASE_URL=postgres://a:b@c/d", "=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, kv string) {
		out := ScrubEnv([]string{kv}, nil)
		if len(out) > 1 {
			t.Fatalf("one entry in, %d out", len(out))
		}
		if len(out) == 1 && out[0] != kv {
			t.Fatalf("entry changed: %q -> %q", kv, out[0])
		}
	})
}

func TestKeepEnv(t *testing.T) {
	env := []string{"PATH=/bin", "GITHUB_TOKEN=ghp_x", "OPENAI_API_KEY=sk", "NAMED=v", "HOME=/h"}
	scrubbed := ScrubEnv(env, []string{"NAMED"})
	got := keepEnv(scrubbed, env, []string{"GITHUB_TOKEN", "NAMED", "ABSENT"}, []string{"NAMED"})
	want := []string{"PATH=/bin", "HOME=/h", "GITHUB_TOKEN=ghp_x"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q: the kept credential back, the config's own secret not", got, want)
	}
}

// TestScrubEnvGitConfigPairs: a git config pair passes whole (its KEY_n
// names a config key, not a credential), one that carries a token goes
// whole, and the count follows.
func TestScrubEnvGitConfigPairs(t *testing.T) {
	got := ScrubEnv([]string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*",
		"GIT_CONFIG_KEY_1=http.extraheader", "GIT_CONFIG_VALUE_1=AUTHORIZATION: bearer x"}, nil)
	want := []string{"GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*", "GIT_CONFIG_COUNT=1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
