package policy

import "testing"

func TestPathPatterns(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{".env", "/home/u/p/.env", true},
		{".env", "/home/u/p/.env/x", false},
		{"*.pem", "/etc/ssl/a.pem", true},
		{".claude/", "/home/u/p/.claude/settings.json", true},
		{".claude/", "/home/u/p/.claude", true},
		{".claude/", "/home/u/p/x.claude/settings.json", false},
		{".claude/", "/home/u/p/.claudex/a", false},
		{".git/hooks/", "/p/.git/hooks/pre-commit", true},
		{".git/hooks/", "/p/.git/hooksx", false},
		{".git/config", "/p/.git/config", true},
		{".git/config", "/p/.git/config.bak", false},
		{"~/.config/agate", "/home/u/.config/agate/config.toml", true},
		{"~/.config/agate", "/home/u/.config/agatex", false},
		{"/etc/*", "/etc/hosts", true},
		{"/etc/*", "/etcx/hosts", false},
		{"/srv/*/secrets/", "/srv/a/secrets/k", true},
		{"src/*.key/", "/p/src/x.key/y", true},
	}
	for _, tt := range tests {
		pp, err := compilePathPattern(tt.pattern, testOpts)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		base := tt.path[len(tt.path)-len(lastElem(tt.path)):]
		if got := pp.match(tt.path, base); got != tt.want {
			t.Errorf("%q on %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
		var s pathSet
		s.add(tt.pattern, RuleRef{Text: tt.pattern}, testOpts)
		if _, got := s.match(tt.path); got != tt.want {
			t.Errorf("set %q on %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func lastElem(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
