package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/keystore"
)

// keysWorld is a state dir, a config file and an environment where no
// keychain answers (the session bus points nowhere), so the key store
// falls back to the passphrase, given by AGATE_PASSPHRASE.
type keysWorld struct {
	dir   string
	paths api.Paths
}

const keysTestPass = "test passphrase"

// newKeysWorld sets the world up. With seed, the store is created first
// with cheap argon2id parameters, which the commands then read from it
// (the default parameters cost a quarter of a second per unlock).
func newKeysWorld(t *testing.T, configText string, seed map[string]string) *keysWorld {
	t.Helper()
	dir := t.TempDir()
	w := &keysWorld{dir: dir}
	t.Setenv("AGATE_CONFIG", filepath.Join(dir, "config.toml"))
	t.Setenv("AGATE_STATE_DIR", filepath.Join(dir, "state"))
	t.Setenv("AGATE_SOCKET", filepath.Join(dir, "state", "run", "agate.sock"))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(dir, "no-bus"))
	t.Setenv("DISPLAY", "")
	t.Setenv(keystore.PassphraseEnv, keysTestPass)
	if configText != "" {
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(configText), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := api.ResolvePaths("", "")
	if err != nil {
		t.Fatal(err)
	}
	w.paths = p
	if seed != nil {
		s, err := keystore.Open(p.KeyStore(), &keystore.Passphrase{
			Ask: keystore.EnvPrompt(nil),
			KDF: keystore.KDF{Time: 1, MemoryKiB: 64, Threads: 1},
		})
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range seed {
			if err := s.Set(context.Background(), k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	return w
}

// runKeysCLI runs agate with args and stdin, and returns its status and
// output.
func runKeysCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code = Run(ctx, e, args)
	return code, out.String(), errb.String()
}

func TestKeysSetGetListRm(t *testing.T) {
	newKeysWorld(t, "", map[string]string{"github": "ghp_seeded0123456789abcdefABCDEF0123"})
	const value = "sk-proj-from-stdin-0123456789abcdef"

	code, _, stderr := runKeysCLI(t, value+"\n", "keys", "set", "openai")
	if code != 0 || !strings.Contains(stderr, "…cdef") || strings.Contains(stderr, value) {
		t.Fatalf("keys set: %d, %q", code, stderr)
	}
	code, stdout, _ := runKeysCLI(t, "", "keys", "get", "openai")
	if code != 0 || stdout != value {
		t.Errorf("keys get = %d, %q; want the value, no newline (not a terminal)", code, stdout)
	}
	code, stdout, _ = runKeysCLI(t, "", "keys", "list")
	if code != 0 || !strings.Contains(stdout, "backend: passphrase") ||
		!regexpLine(stdout, `^github +…0123$`) || !regexpLine(stdout, `^openai +…cdef$`) || strings.Contains(stdout, value) {
		t.Errorf("keys list = %d:\n%s", code, stdout)
	}
	code, stdout, _ = runKeysCLI(t, "", "keys", "backend")
	if code != 0 || stdout != "passphrase\n" {
		t.Errorf("keys backend = %d, %q", code, stdout)
	}
	if code, _, _ := runKeysCLI(t, "", "keys", "rm", "openai"); code != 0 {
		t.Fatalf("keys rm: %d", code)
	}
	code, _, stderr = runKeysCLI(t, "", "keys", "get", "openai")
	if code != exitFailure || !strings.Contains(stderr, `key "openai": not found`) {
		t.Errorf("keys get after rm = %d, %q", code, stderr)
	}
	code, _, stderr = runKeysCLI(t, "", "keys", "rm", "openai")
	if code != exitFailure || !strings.Contains(stderr, "not found") {
		t.Errorf("keys rm twice = %d, %q", code, stderr)
	}
}

func TestKeysRefusals(t *testing.T) {
	w := newKeysWorld(t, "", map[string]string{"github": "ghp_seeded0123456789abcdefABCDEF0123"})
	for _, tc := range []struct {
		why   string
		stdin string
		args  []string
		code  int
		say   string // in stderr
	}{
		{"value as an argument", "", []string{"keys", "set", "openai", "sk-on-the-command-line-0123456789"}, exitUsage, "no value on the command line"},
		{"value like a flag", "", []string{"keys", "set", "openai", "-----BEGIN PRIVATE KEY-----"}, exitUsage, "no value on the command line"},
		{"value after --", "", []string{"keys", "set", "--", "openai", "sk-after-dashes-0123456789"}, exitUsage, "no value on the command line"},
		{"value after a flag", "", []string{"keys", "--config", "x.toml", "set", "openai", "sk-after-flag-0123456789"}, exitUsage, "no value on the command line"},
		{"empty stdin", "\n", []string{"keys", "set", "openai"}, exitFailure, "empty value"},
		{"bad name", "some-value-0123456789", []string{"keys", "set", "../openai"}, exitFailure, "a name has letters"},
		{"no subcommand", "", []string{"keys"}, exitUsage, "want a subcommand"},
		{"unknown subcommand", "", []string{"keys", "show"}, exitUsage, "unknown subcommand"},
		{"get without a name", "", []string{"keys", "get"}, exitUsage, "takes one NAME"},
		{"list with a name", "", []string{"keys", "list", "x"}, exitUsage, "takes no arguments"},
		{"migrate elsewhere", "", []string{"keys", "list", "--migrate", "keychain"}, exitUsage, "--migrate goes with"},
		{"migrate where", "", []string{"keys", "backend", "--migrate", "vault"}, exitUsage, "want keychain or passphrase"},
		{"no keychain to migrate to", "", []string{"keys", "backend", "--migrate", "keychain"}, exitFailure, "unavailable"},
	} {
		code, stdout, stderr := runKeysCLI(t, tc.stdin, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.say) {
			t.Errorf("%s: %d, %q; want %d and %q", tc.why, code, stderr, tc.code, tc.say)
		}
		for _, a := range tc.args[1:] {
			if strings.Contains(a, "0123456789") || strings.HasPrefix(a, "-----") {
				if strings.Contains(stdout+stderr, a) {
					t.Errorf("%s: the output quotes the value", tc.why)
				}
			}
		}
	}
	s, err := keystore.Open(w.paths.KeyStore())
	if err != nil {
		t.Fatal(err)
	}
	if names, _ := s.Names(); len(names) != 1 || s.Backend() != "passphrase" {
		t.Errorf("after the refusals: names %v, backend %q; want only github, passphrase", names, s.Backend())
	}
}

// TestKeysFirstUseNoKeychain: on a machine with no Secret Service the
// first key creates the master key under the passphrase, by itself.
func TestKeysFirstUseNoKeychain(t *testing.T) {
	newKeysWorld(t, "", nil)
	code, stdout, _ := runKeysCLI(t, "", "keys", "backend")
	if code != 0 || !strings.HasPrefix(stdout, "none yet: the first key set will use a passphrase") {
		t.Errorf("keys backend on a new store = %d, %q", code, stdout)
	}
	code, stdout, _ = runKeysCLI(t, "", "keys", "list")
	if code != 0 || stdout != "backend: none yet\n" {
		t.Errorf("keys list on a new store = %d, %q", code, stdout)
	}
	t.Setenv(keystore.PassphraseEnv, "")
	code, _, stderr := runKeysCLI(t, "sk-no-passphrase-0123456789", "keys", "set", "openai")
	if code != exitFailure || !strings.Contains(stderr, "key store locked") || !strings.Contains(stderr, keystore.PassphraseEnv) {
		t.Errorf("keys set with no keychain and no passphrase = %d, %q", code, stderr)
	}
	t.Setenv(keystore.PassphraseEnv, keysTestPass)
	code, _, stderr = runKeysCLI(t, "sk-first-key-0123456789", "keys", "set", "openai")
	if code != 0 || !strings.Contains(stderr, "(passphrase)") {
		t.Errorf("keys set = %d, %q", code, stderr)
	}
	// A new passphrase: the master key is wrapped again, the secrets stay.
	t.Setenv(keystore.PassphraseEnv, keysTestPass)
	code, _, stderr = runKeysCLI(t, "", "keys", "backend", "--migrate", "passphrase")
	if code != 0 || !strings.Contains(stderr, "no secret was re-sealed") {
		t.Errorf("keys backend --migrate passphrase = %d, %q", code, stderr)
	}
	if code, stdout, _ := runKeysCLI(t, "", "keys", "get", "openai"); code != 0 || stdout != "sk-first-key-0123456789" {
		t.Errorf("keys get after the migration = %d, %q", code, stdout)
	}
	t.Setenv(keystore.PassphraseEnv, "wrong passphrase")
	if code, _, stderr := runKeysCLI(t, "", "keys", "get", "openai"); code != exitFailure || !strings.Contains(stderr, "wrong passphrase") {
		t.Errorf("keys get with a wrong passphrase = %d, %q", code, stderr)
	}
}

func TestKeysLeakAndRotation(t *testing.T) {
	w := newKeysWorld(t, "", map[string]string{"openai": "sk-leaked-value-0123456789", "github": "ghp_quiet0123456789abcdef"})
	if err := keystore.RecordLeak(w.paths.State, "keystore:openai", time.Now()); err != nil {
		t.Fatal(err)
	}
	_, stdout, _ := runKeysCLI(t, "", "keys", "list")
	if !regexpLine(stdout, `^openai .*appeared in an agent's arguments .*rotate it`) || regexpLine(stdout, `^github .*appeared`) {
		t.Errorf("keys list does not flag the leaked key:\n%s", stdout)
	}
	if code, _, _ := runKeysCLI(t, "sk-rotated-value-9876543210", "keys", "set", "openai"); code != 0 {
		t.Fatal("keys set failed")
	}
	if leaks, err := keystore.PendingLeaks(w.paths.State); err != nil || len(leaks) != 0 {
		t.Errorf("after a new value: pending leaks %v, %v", leaks, err)
	}
}

func TestKeysListTampered(t *testing.T) {
	w := newKeysWorld(t, "", map[string]string{"openai": "sk-value-a-0123456789", "github": "ghp_value-b-0123456789"})
	data, err := os.ReadFile(w.paths.KeyStore())
	if err != nil {
		t.Fatal(err)
	}
	// Swap the two sealed values.
	var a, b string
	for _, line := range strings.Split(string(data), "\n") {
		if _, v, ok := strings.Cut(line, `"openai": "`); ok {
			a = strings.TrimSuffix(strings.TrimSuffix(v, ","), `"`)
		}
		if _, v, ok := strings.Cut(line, `"github": "`); ok {
			b = strings.TrimSuffix(strings.TrimSuffix(v, ","), `"`)
		}
	}
	if a == "" || b == "" {
		t.Fatalf("entries not found in\n%s", data)
	}
	data = []byte(strings.NewReplacer(a, b, b, a).Replace(string(data)))
	if err := os.WriteFile(w.paths.KeyStore(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runKeysCLI(t, "", "keys", "list")
	if code != exitFailure || !regexpLine(stdout, `^openai +\(does not open`) || !strings.Contains(stderr, `key "github": tampered`) {
		t.Errorf("keys list of a tampered store = %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runKeysCLI(t, "", "keys", "get", "openai")
	if code != exitFailure || stdout != "" || !strings.Contains(stderr, `key "openai": tampered or corrupt`) {
		t.Errorf("keys get of a swapped entry = %d, %q, %q", code, stdout, stderr)
	}
}

// regexpLine reports whether a line of s matches the regular expression.
func regexpLine(s, expr string) bool {
	return regexp.MustCompile(`(?m)` + expr).MatchString(s)
}
