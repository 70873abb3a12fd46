package daemon

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/internal/apptest"
	"github.com/agatehq/agate/keystore"
)

// A secret agate keeps (sealed, or referenced by the config) is caught in a
// call's arguments: the call asks, the log holds no value, and the leak is
// recorded by name for doctor.
func TestKnownSecretsAreCaught(t *testing.T) {
	t.Setenv("AGATE_PASSPHRASE", "correct horse battery staple")
	t.Setenv("AGATE_TEST_DEPLOY_TOKEN", "plainlowercasevaluethatlooksharmless")
	p := apptest.Paths(t, "[secrets.env]\nDEPLOY_TOKEN = \"${AGATE_TEST_DEPLOY_TOKEN}\"\n")
	store, err := keystore.Open(p.KeyStore(), &keystore.Passphrase{Ask: keystore.EnvPrompt(nil)})
	if err != nil {
		t.Fatal(err)
	}
	sealed := "another-ordinary-looking-string-42"
	if err := store.Set(context.Background(), "openai", sealed); err != nil {
		t.Fatal(err)
	}
	d, c := startDaemon(t, p)
	d.refreshSecrets(context.Background())

	for _, v := range []string{sealed, "plainlowercasevaluethatlooksharmless"} {
		r := apptest.Call("Bash", "echo "+v+" > notes.txt")
		resp, err := c.Decide(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if !contains(resp.Risks, "secret") {
			t.Fatalf("%s: risks %v, want secret", v, resp.Risks)
		}
	}
	b, _ := os.ReadFile(p.AuditLog())
	for _, v := range []string{sealed, "plainlowercasevaluethatlooksharmless"} {
		if strings.Contains(string(b), v) {
			t.Fatalf("the audit log holds a secret value:\n%s", b)
		}
	}
	leaks, err := keystore.PendingLeaks(p.State)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, l := range leaks {
		names[l.Name] = true
	}
	if !names["keystore:openai"] || !names["DEPLOY_TOKEN"] {
		t.Fatalf("leaks recorded: %+v", leaks)
	}
}
