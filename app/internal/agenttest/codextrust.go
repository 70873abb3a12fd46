package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/hooks/settings/codexconfig"
	"github.com/agatehq/agate/app/internal/tomledit"
)

// Codex runs a hook from a config layer only once the hook is trusted:
// $CODEX_HOME/config.toml holds, for each trusted hook,
//
//	[hooks.state."<key>"]
//	trusted_hash = "sha256:<hex>"
//
// package codexconfig computes both the way Codex 0.171 does
// (docs/hook-protocols.md § "Codex CLI", trust); these helpers let a test
// trust the hooks it writes itself without Codex's interactive review.

// CodexHook is one command hook in its own matcher group (see
// codexconfig.Hook, which computes its hash as Codex does).
type CodexHook = codexconfig.Hook

// CodexHooksTOML is the TOML for hooks, each in a matcher group of its
// own, for the config file at configPath, with a [hooks.state] entry
// that trusts each one: the extra text for WriteCodexConfig.
func CodexHooksTOML(configPath string, hooks []CodexHook) string {
	var b, state strings.Builder
	groups := map[string]int{}
	for _, h := range hooks {
		g := groups[h.Event]
		groups[h.Event]++
		fmt.Fprintf(&b, "\n[[hooks.%s]]\n", h.Event)
		if h.Matcher != "" {
			fmt.Fprintf(&b, "matcher = %s\n", tomledit.String(h.Matcher))
		}
		fmt.Fprintf(&b, "[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\n", h.Event, tomledit.String(h.Command))
		if h.Timeout != 0 {
			fmt.Fprintf(&b, "timeout = %d\n", h.Timeout)
		}
		if h.Async {
			b.WriteString("async = true\n")
		}
		if h.StatusMessage != "" {
			fmt.Fprintf(&b, "statusMessage = %s\n", tomledit.String(h.StatusMessage))
		}
		fmt.Fprintf(&state, "\n[hooks.state.%s]\ntrusted_hash = %s\n",
			tomledit.String(codexconfig.Key(configPath, h.Event, g, 0)), tomledit.String(h.Hash()))
	}
	return b.String() + state.String()
}

// CodexConfigPath is the path Codex keys the hooks of h's user
// config.toml by: $CODEX_HOME/config.toml with symlinks resolved.
func (h *Home) CodexConfigPath(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(h.Home, ".codex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatalf("agenttest: resolve CODEX_HOME: %v", err)
	}
	return filepath.Join(dir, "config.toml")
}
