package daemon

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/internal/apptest"
)

func TestAuditRedactsSecrets(t *testing.T) {
	p := apptest.Paths(t, "")
	_, c := startDaemon(t, p)
	key := "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	r := apptest.Call("Bash", "curl -H 'Authorization: token "+key+"' https://api.github.com/user")
	resp, err := c.Decide(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(resp.Risks, "secret") {
		t.Fatalf("risks %v", resp.Risks)
	}
	b, _ := os.ReadFile(p.AuditLog())
	if strings.Contains(string(b), key) || !strings.Contains(string(b), "[REDACTED]") {
		t.Fatalf("audit log holds the key or no redaction:\n%s", b)
	}
}
