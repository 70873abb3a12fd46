package machine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agatehq/agate/policy"
)

// TestProjectSecrets: a secret file or folder anywhere below the top of
// the project is found by the stores' names; templates, links, the top
// itself and the folders of fetched packages are not looked at; a
// project too big is reported unfinished.
func TestProjectSecrets(t *testing.T) {
	work := t.TempDir()
	for _, f := range []string{"services/api/.env", "services/api/.env.production", "services/api/.env.example", "deploy/certs/server.pem",
		"infra/.aws/credentials", "infra/.ssh/id_ed25519", "src/main.go", ".env", "node_modules/pkg/.env", ".git/x.pem", "docs/env.md"} {
		writeTestFile(t, filepath.Join(work, f))
	}
	if err := os.Symlink(filepath.Join(work, "services"), filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, st := range policy.SecretStores() {
		patterns = append(patterns, st.Paths...)
	}
	got, complete := ProjectSecrets(work, patterns, ProjectSecretLimit)
	want := []string{"deploy/certs/server.pem", "infra/.aws/credentials", "infra/.ssh/", "services/api/.env", "services/api/.env.production"}
	for i, w := range want {
		want[i] = filepath.Join(work, w)
		if w[len(w)-1] == '/' {
			want[i] += "/"
		}
	}
	slices.Sort(got)
	if !complete || !slices.Equal(got, want) {
		t.Errorf("found %q (complete %v), want %q", got, complete, want)
	}
	if _, complete := ProjectSecrets(work, patterns, 3); complete {
		t.Error("a walk cut short said it finished")
	}
}

func TestMatchTail(t *testing.T) {
	for _, c := range []struct {
		pat, rel  string
		dir, want bool
	}{
		{".env", "a/b/.env", false, true},
		{".env.*", "a/.env.local", false, true},
		{".aws/credentials", "x/.aws/credentials", false, true},
		{".aws/credentials", "credentials", false, false},
		{".ssh/", "x/.ssh", true, true},
		{".ssh/", "x/.ssh", false, false},
		{"*.pem", "a/b/c.pem", false, true},
		{"*.pem", "a/b.pem/c", false, false},
	} {
		if got := matchTail(c.pat, c.rel, c.dir); got != c.want {
			t.Errorf("matchTail(%q, %q, %v) = %v", c.pat, c.rel, c.dir, got)
		}
	}
}

// TestSecretMatcher: what keeping a copy refuses is the stores' names
// anywhere below the root, and not their templates.
func TestSecretMatcher(t *testing.T) {
	var patterns []string
	for _, st := range policy.SecretStores() {
		patterns = append(patterns, st.Paths...)
	}
	secret := SecretMatcher(patterns)
	for _, c := range []struct {
		rel       string
		dir, want bool
	}{
		{".env", false, true},
		{"services/api/.env.production", false, true},
		{"services/api/.env.example", false, false},
		{"deploy/server.pem", false, true},
		{"infra/.ssh", true, true},
		{"src/main.go", false, false},
		{"docs/env.md", false, false},
		{"out", true, false},
	} {
		if got := secret(c.rel, c.dir); got != c.want {
			t.Errorf("secret(%q, dir %v) = %v, want %v", c.rel, c.dir, got, c.want)
		}
	}
}
