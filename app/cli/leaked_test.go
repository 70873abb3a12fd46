package cli

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon/daemontest"
	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/files/leaks"
	"github.com/agatehq/agate/keystore"
)

// Secrets pasted into a chat (recorded by the daemon) are named by doctor,
// status and keys list with how to rotate them, and cleared by `keys
// rotated` (with or without a daemon) and by `keys set` of a new value.
func TestPastedLeaks(t *testing.T) {
	openai := "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sQ0pL3kJ6"
	gh := "ghp_" + strings.Repeat("x1Y", 12)
	w := newKeysWorld(t, "", map[string]string{"openai": openai})
	rec := leaks.Open(w.paths.State)
	at := time.Now().Add(-time.Hour)
	seed := func() {
		t.Helper()
		if _, err := rec.Add(context.Background(), []api.Leak{
			leaks.Seen(keystore.Fingerprint(openai), "OpenAI API key", "keystore:openai", "claude-code", "s1", at),
			leaks.Seen(keystore.Fingerprint(gh), "GitHub token", "", "gemini", "s2", at),
		}); err != nil {
			t.Fatal(err)
		}
	}
	seed()

	code, stdout, _ := runKeysCLI(t, "", "doctor")
	for _, want := range []string{
		"keystore:openai (OpenAI API key, " + keystore.Fingerprint(openai) + ") was pasted into claude-code's chat, session s1",
		"platform.openai.com/api-keys and make a new one; then `agate keys set openai` the new value",
		"GitHub token " + keystore.Fingerprint(gh) + " was pasted into gemini's chat, session s2",
		"github.com/settings/tokens", "`agate keys rotated " + keystore.Fingerprint(gh) + "`",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor does not say %q:\n%s", want, stdout)
		}
	}
	if code == 0 {
		t.Errorf("doctor found no problem with two leaks")
	}
	if _, stdout, _ := runKeysCLI(t, "", "keys", "list"); !regexpLine(stdout, `^openai .*was pasted into claude-code's chat.*rotate it`) {
		t.Errorf("keys list does not flag the pasted key:\n%s", stdout)
	}

	// No daemon: the file is changed directly.
	code, stdout, stderr := runKeysCLI(t, "", "keys", "rotated", "openai")
	if code != 0 || !strings.Contains(stdout, "cleared: keystore:openai") ||
		!strings.Contains(stderr, "the key store still holds the leaked value of openai") {
		t.Errorf("keys rotated openai = %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runKeysCLI(t, "", "keys", "rotated", "nothing-like-it"); code == 0 || !strings.Contains(stderr, "no leak on record") {
		t.Errorf("keys rotated of no leak = %d, %s", code, stderr)
	}

	// A daemon: status says so, and keys rotated goes through it.
	daemontest.Start(t, w.paths)
	_, stdout, _ = runKeysCLI(t, "", "status")
	if !strings.Contains(stdout, "LEAKED:     GitHub token "+keystore.Fingerprint(gh)) || strings.Contains(stdout, "keystore:openai") {
		t.Errorf("status:\n%s", stdout)
	}
	code, stdout, stderr = runKeysCLI(t, "", "keys", "rotated", keystore.Fingerprint(gh)[:8])
	if code != 0 || !strings.Contains(stdout, "cleared: GitHub token") || stderr != "" {
		t.Errorf("keys rotated FINGERPRINT = %d\n%s\n%s", code, stdout, stderr)
	}
	if audit, _ := os.ReadFile(w.paths.AuditLog()); !strings.Contains(string(audit), `"event":"secret.rotated"`) {
		t.Errorf("the daemon did not audit the rotation:\n%s", audit)
	}
	if _, stdout, _ = runKeysCLI(t, "", "status"); strings.Contains(stdout, "LEAKED") {
		t.Errorf("status after rotation:\n%s", stdout)
	}

	// keys set: the leaked value again clears nothing; a new one clears it.
	seed()
	if _, _, stderr := runKeysCLI(t, openai, "keys", "set", "openai"); !strings.Contains(stderr, "still compromised") {
		t.Errorf("keys set of the leaked value: %s", stderr)
	}
	if _, _, stderr := runKeysCLI(t, "sk-proj-Rotated0123456789abcdefghijklmnop", "keys", "set", "openai"); !strings.Contains(stderr, "cleared the leak of openai") {
		t.Errorf("keys set of a new value: %s", stderr)
	}
	ls, err := rec.List()
	if err != nil || len(ls) != 1 || ls[0].Name != "" {
		t.Errorf("left on record: %+v, %v", ls, err)
	}
}

func TestLogLineOfALeak(t *testing.T) {
	r := &audit.Record{Time: time.Now(), Event: "secret.leaked", Agent: "gemini", Subject: "GitHub token 0f4e5fb3374f",
		Reason: "pasted into gemini's chat, session s2: rotate it"}
	if got := formatRecord(r); !strings.Contains(got, `secret.leaked      gemini`) ||
		!strings.HasSuffix(got, `"GitHub token 0f4e5fb3374f" [pasted into gemini's chat, session s2: rotate it]`) {
		t.Errorf("log line: %s", got)
	}
}

// TestPastedLeaksUnreadable: a leak record that does not read is said,
// not taken for no leak.
func TestPastedLeaksUnreadable(t *testing.T) {
	w := newKeysWorld(t, "", map[string]string{"openai": "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sQ0pL3kJ6"})
	if err := os.WriteFile(leaks.Open(w.paths.State).Path(), []byte(`{"version": 1, "leaks": [{"kind": "x"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, stderr := runKeysCLI(t, "", "keys", "list"); !strings.Contains(stderr, "read leaks") {
		t.Errorf("keys list with an unreadable leak record says nothing:\n%s", stderr)
	}
}
