package machine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

// TestSecretStoresHidden: the sandbox hides what the policy calls a
// secret read, from the one list: a tool's store under home, a name at
// the top of the project, a folder, and [auto] secret_paths; not a path
// that holds the project or home, nor a file that is not a store.
func TestSecretStoresHidden(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	for _, f := range []string{".aws/credentials", ".config/gh/hosts.yml", ".config/stripe/config.toml", ".kaggle/kaggle.json",
		".ssh/id_ed25519", "notes.txt", ".config/mytool/token"} {
		writeTestFile(t, filepath.Join(home, f))
	}
	for _, f := range []string{".env", ".env.local", "main.go", "deploy.pem"} {
		writeTestFile(t, filepath.Join(work, f))
	}
	cfg := policy.DefaultConfig()
	cfg.Auto.SecretPaths = []string{"~/.config/mytool/"}
	o := sandboxOptions(cfg, api.Paths{State: filepath.Join(home, ".local/state/agate"), Socket: filepath.Join(home, "agate.sock")}, home, work)
	for _, want := range []string{filepath.Join(home, ".aws/credentials"), filepath.Join(home, ".config/gh/hosts.yml"),
		filepath.Join(home, ".config/stripe"), filepath.Join(home, ".kaggle/kaggle.json"), filepath.Join(home, ".ssh"),
		filepath.Join(home, ".config/mytool"), filepath.Join(work, ".env"), filepath.Join(work, ".env.local"), filepath.Join(work, "deploy.pem")} {
		if !slices.Contains(o.Hidden, want) {
			t.Errorf("%s is not hidden: %v", want, o.Hidden)
		}
	}
	for _, not := range []string{filepath.Join(home, "notes.txt"), filepath.Join(work, "main.go"), work, home} {
		if slices.Contains(o.Hidden, not) {
			t.Errorf("%s is hidden", not)
		}
	}
	// Every hidden store is one the policy asks a read of.
	pol, err := policy.Compile(cfg, policy.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range o.Hidden {
		if !strings.HasPrefix(h, home) && !strings.HasPrefix(h, work) {
			continue
		}
		d := pol.Decide(&policy.Request{Tool: "Bash", Args: map[string]any{"command": "cat " + h}, Cwd: work, Workspace: work, Interactive: true})
		if d.Verdict == policy.Allow {
			t.Errorf("cat %s: %s (%s), but the sandbox hides it as a secret", h, d.Verdict, d.Reason)
		}
	}
}

func writeTestFile(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
