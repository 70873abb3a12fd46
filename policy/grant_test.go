package policy

import (
	"strings"
	"testing"
)

func TestNarrowGrantsRoundTrip(t *testing.T) {
	for _, s := range []string{
		"bash(ssh mini10v) network=mini10v",
		"bash(rm) delete=/home/u/proj/build",
		"bash(gh release view) network=api.github.com",
		"bash(mytool) unknown",
		"write_file write=/home/u/proj/docs",
		"bash(python3 x.py) project",
		`bash("a b" c) network=*.example.com upload=*.example.com`,
	} {
		g, err := ParseGrant(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if !g.Narrow() || g.String() != s {
			t.Errorf("%s -> %q (narrow %v)", s, g.String(), g.Narrow())
		}
	}
	for _, bad := range []string{"bash(rm delete=/x", "bash(rm) delete=relative", "bash(cat) secret", "bash(x) persist", "bash() network", "bash(x) frob"} {
		if _, err := ParseGrant(bad); err == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
}

// TestNarrowGrantCovers: a narrow grant covers the command the person
// saw and others with the same prefix and effects in scope, nothing else.
func TestNarrowGrantCovers(t *testing.T) {
	const cfg = ""
	p := mustPolicy(t, cfg)
	grant := func(s string) Grant {
		g, err := ParseGrant(s)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	unrecoverable := filesFrom(map[string]string{testCwd + "/build": "unrecoverable", "/home/u/Desktop/notes": "unrecoverable"})
	for _, tt := range []struct {
		grant, cmd string
		want       Verdict
	}{
		{"bash(ssh mini10v) network=mini10v", "ssh mini10v ls", Allow},
		{"bash(ssh mini10v) network=mini10v", "ssh mini10v 'uptime'", Allow},
		{"bash(ssh mini10v) network=mini10v", "scp secrets.txt mini10v:/tmp/", Ask},
		{"bash(ssh mini10v) network=mini10v", "ssh other ls", Ask},
		// What runs there is judged: a read stays a read, anything else
		// changes the host, which a grant to reach it does not cover.
		{"bash(ssh mini10v) network=mini10v", "ssh mini10v 'rm -rf /opt/app'", Ask},
		{"bash(ssh mini10v) network=mini10v", "ssh mini10v 'uname -a; sudo reboot'", Ask},
		{"bash(ssh mini10v) network=mini10v", "ssh mini10v \"$CMD\"", Ask},
		{"bash(ssh mini10v uname) network=mini10v", "ssh mini10v uname -r", Allow},
		{"bash(ssh mini10v uname) network=mini10v", "ssh mini10v df -h", Ask},
		{"bash(rm) delete=/home/u/proj/build", "rm -rf build", Allow},
		{"bash(rm) delete=/home/u/proj/build", "rm -rf ~/Desktop/notes", Ask},
		{"bash(rm) delete=/home/u/proj/build", "rm -rf build && curl https://x.example", Ask},
	} {
		r := req(t, "Bash", `{"command":`+quoteJSON(tt.cmd)+`}`)
		r.Files = unrecoverable
		r.Grants = []Grant{grant(tt.grant)}
		if d := p.Decide(r); d.Verdict != tt.want {
			t.Errorf("%s under %s: %s (%s), want %s", tt.cmd, tt.grant, d.Verdict, d.Reason, tt.want)
		}
	}
}

func quoteJSON(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		switch r {
		case '"', '\\':
			b = append(b, '\\', byte(r))
		default:
			b = append(b, string(r)...)
		}
	}
	return string(append(b, '"'))
}

func TestWiderGrants(t *testing.T) {
	g, _ := ParseGrant("bash(gh release view) network=api.github.com")
	var got []string
	for _, w := range g.Wider("/home/u/proj") {
		got = append(got, w.String())
	}
	want := []string{"bash(gh release) network=api.github.com", "bash(gh) network=api.github.com", "bash(gh) network=*.github.com", "bash(gh) network"}
	if len(got) != len(want) {
		t.Fatalf("wider: %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("wider: %q, want %q", got, want)
		}
	}
	d, _ := ParseGrant("bash(rm) delete=/home/u/proj/build")
	if s := d.Describe("/home/u/proj"); s != "`rm` with any further words, when it deletes under build/ in this project" {
		t.Errorf("describe: %q", s)
	}
}

// TestRemoteCommandRemembered: what a person's answer to an ssh call
// remembers names the program run on the host, and a command that would
// change the host is not a read of it.
func TestRemoteCommandRemembered(t *testing.T) {
	p := mustPolicy(t, "")
	for _, c := range []struct{ cmd, want string }{
		{"ssh mini10v 'uname -a'", "bash(ssh mini10v uname) network=mini10v"},
		{"ssh -p 2222 me@build.example df -h", "bash(ssh me@build.example df) network=build.example"},
		{"ssh mini10v 'rm -rf /opt/app'", "bash(ssh mini10v rm) system network=mini10v"},
	} {
		d := p.Decide(req(t, "Bash", `{"command":`+quoteJSON(c.cmd)+`}`))
		if d.Verdict != Ask || len(d.Proposals) != 1 || d.Proposals[0].String() != c.want {
			t.Errorf("%s: %s (%s), proposals %v; want %q", c.cmd, d.Verdict, d.Reason, d.Proposals, c.want)
		}
	}
	if d := p.Decide(req(t, "Bash", `{"command":"ssh mini10v 'rm -rf /opt/app'"}`)); !strings.Contains(d.Reason, "may change mini10v") &&
		!strings.Contains(d.Reason, "changes the system") {
		t.Errorf("a destructive remote command: %s", d.Reason)
	}
}

// TestContainerCommandRemembered: the command docker exec or kubectl
// exec runs in a container is judged and named as ssh's is: an answer
// for `ls` there covers `ls` again, not `rm` or `cat`.
func TestContainerCommandRemembered(t *testing.T) {
	p := mustPolicy(t, "")
	for _, c := range []struct {
		cmd    string
		again  []string // covered by the answer
		asking []string // not covered
	}{
		{"kubectl exec api -- ls /app", []string{"kubectl exec api -- ls -R /srv"},
			[]string{"kubectl exec api -- rm -rf /data", "kubectl exec api -- cat /var/run/secrets/token", "kubectl exec api -- sh -c 'ls; rm -rf /data'"}},
		{"docker exec -it api ls -la", []string{"docker exec -it api ls /srv"},
			[]string{"docker exec -it api rm -rf /data", "docker exec -it api cat /etc/shadow"}},
	} {
		d := p.Decide(req(t, "Bash", `{"command":`+quoteJSON(c.cmd)+`}`))
		if d.Verdict != Ask || len(d.Proposals) != 1 || !strings.Contains(d.Proposals[0].String(), " ls)") {
			t.Errorf("%s: %s (%s), proposals %v", c.cmd, d.Verdict, d.Reason, d.Proposals)
			continue
		}
		g := d.Proposals[0]
		check := func(cmd string, want Verdict) {
			r := req(t, "Bash", `{"command":`+quoteJSON(cmd)+`}`)
			r.Grants = []Grant{g}
			if got := p.Decide(r); got.Verdict != want {
				t.Errorf("%s under %s: %s (%s), want %s", cmd, g, got.Verdict, got.Reason, want)
			}
		}
		for _, cmd := range c.again {
			check(cmd, Allow)
		}
		for _, cmd := range c.asking {
			check(cmd, Ask)
		}
	}
}
