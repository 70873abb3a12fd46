package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/sandbox"
)

const runTestConfig = `
[secrets]
vault_env = ["VAULT_ADDR"]

[secrets.env]
MY_CONFIGURED = "${MY_SOURCE}"
CONFIGURED_KEY = "keystore:openai"
`

// runTestEnv are the variables of agate's own environment in the run
// tests: the credentials, and one plain setting.
var runTestEnv = map[string]string{
	"OPENAI_API_KEY":  "parent-openai-value", // a credential by its name, replaced by --secret
	"GITHUB_TOKEN":    "parent-github-value", // a credential by its name
	"MY_CONFIGURED":   "configured-value",    // named in [secrets] env
	"MY_SOURCE":       "configured-source",   // a ${VAR} [secrets] env reads
	"VAULT_ADDR":      "vault-credential",    // [secrets] vault_env
	"DATABASE_URL":    "postgres://app:hunter2@db/app",
	"FROM_VAR_SOURCE": "var-secret-value", // what --secret FROM_VAR=${FROM_VAR_SOURCE} reads
	"PLAIN_SETTING":   "kept-value",
}

const runStoreValue = "sk-proj-from-the-store-0123456789"

func newRunWorld(t *testing.T) *keysWorld {
	w := newKeysWorld(t, runTestConfig, map[string]string{"openai": runStoreValue})
	for k, v := range runTestEnv {
		t.Setenv(k, v)
	}
	return w
}

// parseEnv turns `env` output into a map.
func parseEnv(s string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// TestRunSecrets: the command sees the secrets it was given and none of
// agate's others.
func TestRunSecrets(t *testing.T) {
	newRunWorld(t)
	code, stdout, stderr := runKeysCLI(t, "",
		"run",
		"--secret", "OPENAI_API_KEY=openai",
		"--secret", "FROM_VAR=${FROM_VAR_SOURCE}",
		"--secret", `FROM_EXEC=exec:sh -c 'echo exec-secret-value'`,
		"--secret", "CONFIGURED_KEY",
		"--", "env")
	if code != 0 {
		t.Fatalf("agate run: %d, %s", code, stderr)
	}
	got := parseEnv(stdout)
	for k, want := range map[string]string{
		"OPENAI_API_KEY": runStoreValue,
		"FROM_VAR":       "var-secret-value",
		"FROM_EXEC":      "exec-secret-value",
		"CONFIGURED_KEY": runStoreValue,
		"PLAIN_SETTING":  "kept-value",
		"PATH":           os.Getenv("PATH"),
	} {
		if got[k] != want {
			t.Errorf("the command's %s = %q, want %q", k, got[k], want)
		}
	}
	for _, k := range []string{"GITHUB_TOKEN", "MY_CONFIGURED", "MY_SOURCE", "VAULT_ADDR", "DATABASE_URL", "FROM_VAR_SOURCE", "AGATE_PASSPHRASE"} {
		if _, ok := got[k]; ok {
			t.Errorf("the command sees %s", k)
		}
	}
	for k, v := range runTestEnv {
		if k != "PLAIN_SETTING" && k != "FROM_VAR_SOURCE" && strings.Contains(stdout, v) {
			t.Errorf("the value of %s reached the command", k)
		}
	}
	if strings.Contains(stdout, keysTestPass) {
		t.Error("the passphrase reached the command")
	}
}

func TestRunStatusAndRefusals(t *testing.T) {
	newRunWorld(t)
	for _, tc := range []struct {
		why    string
		stdin  string
		args   []string
		code   int
		stdout string // exact
		say    string // in stderr; "" for none at all
	}{
		{"success", "", []string{"--", "true"}, 0, "", ""},
		{"exit status", "", []string{"--", "sh", "-c", "exit 7"}, 7, "", ""},
		{"killed by a signal", "", []string{"--", "sh", "-c", "kill -TERM $$"}, 128 + 15, "", ""},
		{"stdin and stdout", "hello\n", []string{"--", "cat"}, 0, "hello\n", ""},
		{"arguments after --", "", []string{"--", "echo", "--secret", "-x"}, 0, "--secret -x\n", ""},
		{"not found", "", []string{"--", "/nonexistent/agent-cli"}, sandbox.ExitNotFound, "", "start /nonexistent/agent-cli"},
		{"missing key", "", []string{"--secret", "X=nosuchkey", "--", "echo", "ran"}, exitFailure, "", "--secret X: no such key"},
		{"literal where a name goes", "", []string{"--secret", "X=sk-proj-pasted/literal+value==", "--", "echo", "ran"}, exitUsage, "", "never the secret itself"},
		{"unset variable", "", []string{"--secret", "X=${NOT_SET_ANYWHERE}", "--", "echo", "ran"}, exitFailure, "", "${NOT_SET_ANYWHERE}: not configured"},
		{"failing vault", "", []string{"--secret", "X=exec:sh -c 'echo partial; exit 3'", "--", "echo", "ran"}, exitFailure, "", "exec:sh: exit status 3"},
		{"not in [secrets] env", "", []string{"--secret", "NOT_CONFIGURED", "--", "true"}, exitUsage, "", "[secrets] env has no reference"},
		{"bad variable", "", []string{"--secret", "1X=openai", "--", "true"}, exitUsage, "", "not a variable name"},
		{"twice", "", []string{"--secret", "X=openai", "--secret", "X=openai", "--", "true"}, exitUsage, "", "given twice"},
		{"no --", "", []string{"echo", "hi"}, exitUsage, "", "after --"},
		{"nothing after --", "", []string{"--secret", "X=openai", "--"}, exitUsage, "", "no command"},
		{"word before --", "", []string{"echo", "--", "hi"}, exitUsage, "", "before --"},
		{"--net alone", "", []string{"--net", "--", "true"}, exitUsage, "", "--net goes with --sandbox"},
	} {
		code, stdout, stderr := runKeysCLI(t, tc.stdin, append([]string{"run"}, tc.args...)...)
		if code != tc.code || stdout != tc.stdout || (tc.say == "" && stderr != "") || !strings.Contains(stderr, tc.say) {
			t.Errorf("%s: %d, %q, %q; want %d, %q, %q", tc.why, code, stdout, stderr, tc.code, tc.stdout, tc.say)
		}
		if strings.Contains(stderr, "sk-proj-pasted") || strings.Contains(stderr, "partial") {
			t.Errorf("%s: stderr quotes a value: %q", tc.why, stderr)
		}
	}
}

// TestRunSandboxed: under the sandbox too, the command sees the secrets it
// was given and none of the others, and not the key store.
func TestRunSandboxed(t *testing.T) {
	w := newRunWorld(t)
	work := filepath.Join(w.dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	code, stdout, stderr := runKeysCLI(t, "", "run", "--sandbox", "--secret", "OPENAI_API_KEY=openai", "--",
		"sh", "-c", "env; ls "+w.paths.State+" 2>&1 | sed 's/^/ls: /'")
	if code == sandbox.ExitSetupFailed && strings.Contains(stderr, sandbox.ErrUnavailable.Error()) {
		t.Skipf("no sandbox launcher works here: %s", stderr)
	}
	if code != 0 {
		t.Fatalf("agate run --sandbox: %d, %s", code, stderr)
	}
	got := parseEnv(stdout)
	if got["OPENAI_API_KEY"] != runStoreValue || got["PLAIN_SETTING"] != "kept-value" {
		t.Errorf("sandboxed: OPENAI_API_KEY %q, PLAIN_SETTING %q", got["OPENAI_API_KEY"], got["PLAIN_SETTING"])
	}
	for _, k := range []string{"GITHUB_TOKEN", "MY_CONFIGURED", "VAULT_ADDR", "DATABASE_URL", "AGATE_PASSPHRASE"} {
		if _, ok := got[k]; ok {
			t.Errorf("the sandboxed command sees %s", k)
		}
	}
	if strings.Contains(stdout, "keys.json") {
		t.Errorf("the sandboxed command sees the key store:\n%s", stdout)
	}
	if strings.Contains(stdout, "parent-openai-value") {
		t.Error("the parent's OPENAI_API_KEY reached the command")
	}
}
