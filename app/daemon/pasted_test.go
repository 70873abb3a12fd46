package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/leaks"
	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/keystore"
)

func TestScanPrompt(t *testing.T) {
	openai := "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sQ0pL3kJ6"
	plain := "another-ordinary-looking-string-42"
	dbPass := "hunter2-correct-horse-battery"
	dbURL := "postgres://app:" + dbPass + "@db.internal/app"
	ix := keystore.NewIndex(map[string]string{"keystore:openai": openai, "keystore:deploy": plain,
		"keystore:db": dbPass, "DATABASE_URL": dbURL})
	gh := "ghp_" + strings.Repeat("x1Y", 12)
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----"
	type want struct{ kind, name, value string }
	tests := []struct {
		name   string
		prompt string
		want   []want
	}{
		{"nothing", "", nil},
		{"ordinary prose", "Please refactor the token parser: the secret to good tests is small steps. " +
			"Fix task-abcdefghijklmnopqrstuvwxyz0123456789 and bump AKIA in the docs; the password field is optional.", nil},
		{"a known key, credential-shaped", "here is my key " + openai + ", use it", []want{{"OpenAI API key", "keystore:openai", openai}}},
		{"a known value with no shape", "deploy with " + plain + " please", []want{{leaks.KindKnown, "keystore:deploy", plain}}},
		{"a known value twice, once", openai + " and again " + openai, []want{{"OpenAI API key", "keystore:openai", openai}}},
		{"a known value inside another", "connect to " + dbURL, []want{{leaks.KindKnown, "DATABASE_URL", dbURL}, {leaks.KindKnown, "keystore:db", dbPass}}},
		{"a known value split by a space", "deploy with " + plain[:16] + " " + plain[16:], nil},
		{"a known value split by a line break", "key:\n" + openai[:14] + "\n" + openai[14:], nil},
		{"an unknown token at a sentence's end", "try " + gh + ".", []want{{"GitHub token", "", gh}}},
		{"two kinds", "aws AKIAIOSFODNN7EXAMPLE and " + gh, []want{{"AWS access key", "", "AKIAIOSFODNN7EXAMPLE"}, {"GitHub token", "", gh}}},
		{"a private key", "my key:\n" + pem + "\nthanks", []want{{"private key", "", pem}}},
		{"an assignment", "export API_KEY=Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3", []want{{"credential assigned to API_KEY", "", "Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3"}}},
		{"a bearer token", "curl -H 'Authorization: Bearer Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3'", []want{{"bearer token", "", "Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3"}}},
	}
	// Each provider shape policy knows.
	for _, k := range []struct{ kind, value string }{
		{"Anthropic API key", "sk-ant-api03-" + strings.Repeat("aB3", 12)},
		{"OpenAI API key", "sk-proj-" + strings.Repeat("aB3", 12)},
		{"API key (sk-...)", "sk-" + strings.Repeat("aB3", 11)},
		{"GitHub token", "github_pat_" + strings.Repeat("aB3", 17)},
		{"GitHub OAuth token", "gho_" + strings.Repeat("aB3", 11)},
		{"GitHub refresh token", "ghr_" + strings.Repeat("aB3", 11)},
		{"GitLab token", "glpat-" + strings.Repeat("aB3", 7)},
		{"AWS access key", "ASIA" + strings.Repeat("A1", 8)},
		{"Slack token", "xoxb-" + strings.Repeat("12a", 7)},
		{"Google API key", "AIza" + strings.Repeat("aB3", 12)},
		{"Hugging Face token", "hf_" + strings.Repeat("aB3", 11)},
		{"npm token", "npm_" + strings.Repeat("aB3", 12)},
		{"PyPI token", "pypi-" + strings.Repeat("aB3", 19)},
		{"Stripe key", "sk_live_" + strings.Repeat("aB3", 6)},
		{"SendGrid key", "SG." + strings.Repeat("aB3", 19)},
	} {
		tests = append(tests, struct {
			name   string
			prompt string
			want   []want
		}{k.kind, "I pasted " + k.value + " by mistake", []want{{k.kind, "", k.value}}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scanPrompt(tt.prompt, ix)
			if len(got) != len(tt.want) {
				t.Fatalf("found %+v, want %+v", got, tt.want)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Kind != w.kind || g.Name != w.name || g.Fingerprint != keystore.Fingerprint(w.value) {
					t.Errorf("found %+v, want %s %q with the fingerprint of %q", g, w.kind, w.name, w.value)
				}
			}
		})
	}
	if got := scanPrompt("use "+openai, nil); len(got) != 1 || got[0].Name != "" {
		t.Errorf("with no known secrets: %+v", got)
	}
	// A known value inside a longer credential does not name it: both are
	// recorded, each by its own fingerprint.
	other := "sk-proj-" + strings.Repeat("aB3", 12)
	got := scanPrompt("a new key: "+other, keystore.NewIndex(map[string]string{"keystore:prefix": "sk-proj-"}))
	if len(got) != 2 || got[0].Name != "" || got[0].Fingerprint != keystore.Fingerprint(other) ||
		got[1].Name != "keystore:prefix" || got[1].Kind != leaks.KindKnown {
		t.Errorf("a known value inside another credential: %+v", got)
	}
}

// A prompt carrying secrets reaches the daemon through the runs route: the
// run starts at once, the leaks are recorded by kind, name and fingerprint
// (in the record, the audit log, the status), no value and no prompt text
// is written anywhere, and a rotation clears them.
func TestPastedSecretsThroughTheAPI(t *testing.T) {
	t.Setenv("AGATE_PASSPHRASE", "correct horse battery staple")
	p := apptest.Paths(t, "")
	store, err := keystore.Open(p.KeyStore(), &keystore.Passphrase{Ask: keystore.EnvPrompt(nil)})
	if err != nil {
		t.Fatal(err)
	}
	openai := "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sQ0pL3kJ6"
	if err := store.Set(context.Background(), "openai", openai); err != nil {
		t.Fatal(err)
	}
	d, c := startDaemon(t, p)
	d.refreshSecrets(context.Background())
	ctx := context.Background()

	gh := "ghp_" + strings.Repeat("x1Y", 12)
	prompt := "zebra quartz: deploy with " + openai + " and push with " + gh
	start := time.Now()
	if err := c.StartRun(ctx, &api.TaintRequest{Agent: "claude-code", Session: "s1", Run: "r1", Prompt: prompt}); err != nil {
		t.Fatal(err)
	}
	t.Logf("the run started in %v", time.Since(start))
	if err := c.StartRun(ctx, &api.TaintRequest{Agent: "gemini", Session: "s2", Prompt: "nothing secret here, fix the token parser"}); err != nil {
		t.Fatal(err)
	}

	var st *api.Status
	for deadline := time.Now().Add(10 * time.Second); ; {
		if st, err = c.Status(ctx); err != nil {
			t.Fatal(err)
		}
		if len(st.Leaks) >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(st.Leaks) != 2 || st.LeaksError != "" {
		t.Fatalf("status leaks %+v (%s), want 2", st.Leaks, st.LeaksError)
	}
	byFP := map[string]api.Leak{}
	for _, l := range st.Leaks {
		byFP[l.Fingerprint] = l
	}
	if l := byFP[keystore.Fingerprint(openai)]; l.Name != "keystore:openai" || l.Kind != "OpenAI API key" ||
		l.Where != "pasted into claude-code's chat, session s1" {
		t.Errorf("the key store's key: %+v", l)
	}
	if l := byFP[keystore.Fingerprint(gh)]; l.Name != "" || l.Kind != "GitHub token" || l.Agent != "claude-code" {
		t.Errorf("the GitHub token: %+v", l)
	}

	// No value, no part of the prompt, in any file of the state folder.
	files := 0
	filepath.WalkDir(p.State, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		files++
		for _, bad := range []string{openai, gh, openai[8:30], gh[4:30], "zebra quartz", "token parser"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s holds %q", path, bad)
			}
		}
		return nil
	})
	audit, _ := os.ReadFile(p.AuditLog())
	if n := strings.Count(string(audit), `"event":"secret.leaked"`); n != 2 {
		t.Errorf("%d secret.leaked lines in the audit log, want 2:\n%s", n, audit)
	}
	if !strings.Contains(string(audit), keystore.Fingerprint(gh)) {
		t.Errorf("the audit log does not name the token by its fingerprint:\n%s", audit)
	}

	// Rotated, by name and by fingerprint.
	res, err := c.Rotated(ctx, "openai")
	if err != nil || len(res.Cleared) != 1 || res.Cleared[0].Name != "keystore:openai" {
		t.Fatalf("Rotated(openai) = %+v, %v", res, err)
	}
	if res, err := c.Rotated(ctx, keystore.Fingerprint(gh)); err != nil || len(res.Cleared) != 1 {
		t.Fatalf("Rotated(fingerprint) = %+v, %v", res, err)
	}
	if res, err := c.Rotated(ctx, "openai"); err != nil || len(res.Cleared) != 0 {
		t.Fatalf("Rotated twice = %+v, %v", res, err)
	}
	if st, err := c.Status(ctx); err != nil || len(st.Leaks) != 0 {
		t.Fatalf("status after rotation: %+v, %v", st.Leaks, err)
	}
	audit, _ = os.ReadFile(p.AuditLog())
	if n := strings.Count(string(audit), `"event":"secret.rotated"`); n != 2 {
		t.Errorf("%d secret.rotated lines, want 2", n)
	}
	if err := c.StartRun(ctx, &api.TaintRequest{Agent: "a", Session: "s"}); err != nil {
		t.Fatal(err)
	}
}

// benchPrompt is a 4 KiB prompt of ordinary prose with a token in it.
func benchPrompt() string {
	var b strings.Builder
	for b.Len() < 4<<10 {
		b.WriteString("Please fix the failing test in the parser, then run make test and tell me what changed. ")
	}
	b.WriteString("Use ghp_" + strings.Repeat("x1Y", 12) + " to push.")
	return b.String()
}

// BenchmarkScanPrompt is the scan of a 4 KiB prompt against 20 known
// secrets: what the daemon spends per prompt, after the hook's answer.
func BenchmarkScanPrompt(b *testing.B) {
	known := map[string]string{}
	for i := range 20 {
		known[fmt.Sprintf("keystore:k%d", i)] = fmt.Sprintf("secret-value-%02d-Zq9fK2mXc8LrT4vW", i)
	}
	ix := keystore.NewIndex(known)
	prompt := benchPrompt()
	b.SetBytes(int64(len(prompt)))
	for b.Loop() {
		if len(scanPrompt(prompt, ix)) != 1 {
			b.Fatal("the token was not found")
		}
	}
}

// BenchmarkStartRun is a new run through the socket, as the prompt hook
// sends it: with no prompt; with a 4 KiB prompt, without and with a token,
// one at a time (the scan and its record happen after the answer, and are
// waited for outside the timer); and the same back to back, a flood that
// fills the background queue, so scans run inline.
func BenchmarkStartRun(b *testing.B) {
	for _, tc := range []struct {
		name, prompt string
		wait         bool
	}{
		{"no-prompt", "", true},
		{"prompt-4KiB-none", strings.ReplaceAll(benchPrompt(), "ghp_", "see "), true},
		{"prompt-4KiB-token", benchPrompt(), true},
		{"prompt-4KiB-token-flood", benchPrompt(), false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := apptest.Paths(b, "")
			d, c := startDaemon(b, p)
			req := &api.TaintRequest{Agent: "claude-code", Session: "s1", Prompt: tc.prompt}
			for b.Loop() {
				if err := c.StartRun(context.Background(), req); err != nil {
					b.Fatal(err)
				}
				if tc.wait {
					b.StopTimer()
					for d.pasted.waiting.Load() > 0 {
						time.Sleep(50 * time.Microsecond)
					}
					b.StartTimer()
				}
			}
		})
	}
}

// FuzzScanPrompt: any prompt scans without a panic, and what it finds is
// named by fingerprints, each once, never by text of the prompt.
func FuzzScanPrompt(f *testing.F) {
	f.Add("use sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sQ0pL3kJ6.")
	f.Add("API_KEY=Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3 token:'Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3==' Bearer Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3")
	f.Add("-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END")
	f.Add("another-ordinary-looking-string-42 split another-ordinary looking-string-42")
	ix := keystore.NewIndex(map[string]string{"keystore:deploy": "another-ordinary-looking-string-42", "keystore:prefix": "sk-proj-"})
	f.Fuzz(func(t *testing.T, prompt string) {
		seen := map[string]bool{}
		for _, p := range scanPrompt(prompt, ix) {
			if len(p.Fingerprint) != keystore.FingerprintLen || seen[p.Fingerprint] || p.Kind == "" {
				t.Fatalf("%q: found %+v", prompt, p)
			}
			seen[p.Fingerprint] = true
		}
	})
}
