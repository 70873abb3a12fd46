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
		{"header-env agate's own", []string{"--header-env", "X-Key=AGATE_TEST_PASS"}, "agate's own", "agate-own-value", true},
		{"header-env config secret", []string{"--header-env", "X-Key=VENDOR_KEY"}, "--pass-env VENDOR_KEY", "vendor-secret-value", true},
		{"header-env passed", []string{"--pass-env", "VENDOR_KEY", "--header-env", "X-Key=VENDOR_KEY"}, "", "vendor-secret-value", false},
		{"header-env no name", []string{"--header-env", "X-Key=${VENDOR_KEY}"}, "--header-env number 1", "vendor-secret-value", true},
		{"header-env colon", []string{"--header-env", "X:Key=VENDOR_KEY"}, "--header-env number 1", "vendor-secret-value", true},
		{"url-env and url", []string{"--url-env", "REMOTE_URL_T"}, "not both", "", true},
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

// TestMCPRunRemoteURLEnv: --url-env takes the URL from a variable, under
// the rules of a header's: never agate's own, never a config secret
// unless passed, and a value that is no URL is refused without being
// echoed.
func TestMCPRunRemoteURLEnv(t *testing.T) {
	p := apptest.Paths(t, "[secrets.env]\nVENDOR_URL = \"keystore:vendor\"\n")
	t.Setenv("AGATE_TEST_URL", "https://127.0.0.1:1/mcp?k=agate-own-url")
	t.Setenv("VENDOR_URL", "https://127.0.0.1:1/mcp?k=vendor-url-value")
	t.Setenv("NOT_A_URL_T", "ftp://x/?k=not-a-url-value")
	base := []string{"mcp", "run", "--config", p.Config, "--socket", p.Socket, "--name", "r"}
	for _, tc := range []struct{ name, v, want, forbid string }{
		{"agate's own", "AGATE_TEST_URL", "agate's own", "agate-own-url"},
		{"config secret", "VENDOR_URL", "--pass-env VENDOR_URL", "vendor-url-value"},
		{"not a URL", "NOT_A_URL_T", "--url-env NOT_A_URL_T: want an http:// or https:// URL", "not-a-url-value"},
		{"not set", "NOT_SET_ANYWHERE_43", "not set", ""},
		{"not a name", "A-B", "not a variable's name", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, strings.NewReader(""), append(append([]string{}, base...), "--url-env", tc.v)...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, errs, tc.want)
			}
			if tc.forbid != "" && strings.Contains(out+errs, tc.forbid) {
				t.Errorf("the output shows %q:\n%s%s", tc.forbid, out, errs)
			}
		})
	}
}
