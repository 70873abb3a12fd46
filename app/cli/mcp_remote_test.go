package cli

import (
	"strings"
	"testing"

	"github.com/agatehq/agate/app/internal/apptest"
)

// TestMCPRunRemoteHeaders: a remote server's --header is checked before
// anything is sent: a malformed one is refused without being echoed (it
// may be a token), and ${VAR} may not name agate's own variables, nor a
// secret of agate's config unless --pass-env names it.
func TestMCPRunRemoteHeaders(t *testing.T) {
	p := apptest.Paths(t, "[secrets.env]\nVENDOR_KEY = \"keystore:vendor\"\n")
	t.Setenv("AGATE_TEST_PASS", "agate-own-value")
	t.Setenv("VENDOR_KEY", "vendor-secret-value")
	base := []string{"mcp", "run", "--config", p.Config, "--socket", p.Socket, "--name", "r", "--url", "https://127.0.0.1:1/mcp?key=url-secret-value"}
	for _, tc := range []struct {
		name    string
		args    []string
		want    string // in stderr
		forbid  string // never in stdout or stderr
		refused bool   // exit 2, before any request
	}{
		{"no colon", []string{"--header", "Bearer raw-token-value"}, "--header number 1", "raw-token-value", true},
		{"agate's own", []string{"--header", "X-Key: ${AGATE_TEST_PASS}"}, "agate's own", "agate-own-value", true},
		{"agate's own, lower case", []string{"--header", "X-Key: ${agate_test_pass}"}, "agate's own", "agate-own-value", true},
		{"config secret", []string{"--header", "X-Key: ${VENDOR_KEY}"}, "--pass-env VENDOR_KEY", "vendor-secret-value", true},
		{"unset", []string{"--header", "X-Key: ${AGATE_TEST_NOT_SET_ANYWHERE_}"}, "agate's own", "", true},
		{"not set", []string{"--header", "X-Key: ${NOT_SET_ANYWHERE_42}"}, "not set", "", true},
		{"passed", []string{"--pass-env", "VENDOR_KEY", "--header", "X-Key: ${VENDOR_KEY}"}, "", "vendor-secret-value", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, strings.NewReader(""), append(append([]string{}, base...), tc.args...)...)
			if tc.refused != (code == 2) {
				t.Errorf("exit %d, refused %v; stderr:\n%s", code, tc.refused, errs)
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q, want %q", errs, tc.want)
			}
			for _, s := range []string{tc.forbid, "url-secret-value"} {
				if s != "" && strings.Contains(out+errs, s) {
					t.Errorf("the output shows %q:\n%s%s", s, out, errs)
				}
			}
		})
	}
}
