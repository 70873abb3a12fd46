package agenttest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Codex runs a hook from a config layer only once the hook is trusted:
// $CODEX_HOME/config.toml holds, for each trusted hook,
//
//	[hooks.state."<key>"]
//	trusted_hash = "sha256:<hex>"
//
// CodexHookKey and CodexHook.Hash compute both the way Codex 0.171 does
// (docs/hook-protocols.md § "Codex CLI", trust), so that a test can
// trust the hooks it installs without Codex's interactive review.

// CodexHook is one command hook in its own matcher group.
type CodexHook struct {
	Event string // "PreToolUse", "PostToolUse", "SessionEnd", ...
	// Matcher is the group's matcher; "" leaves it out (which, like
	// "*", matches everything, but hashes differently from "*" or a
	// present empty string). Codex drops the matcher of an event that
	// has none (UserPromptSubmit, Stop, Interrupt, PreModelRequest,
	// PostModelRequest) before hashing.
	Matcher       string
	Command       string
	Timeout       int // seconds; 0 leaves it out (Codex's default); below 0 hashes as an explicit value under 1
	Async         bool
	StatusMessage string // "" leaves it out
}

// codexEventsWithoutMatcher are the events whose matcher Codex ignores.
var codexEventsWithoutMatcher = map[string]bool{
	"UserPromptSubmit": true, "Stop": true, "Interrupt": true,
	"PreModelRequest": true, "PostModelRequest": true,
}

// CodexEventLabel is the snake_case name Codex uses for an event in
// hook-state keys and in the hash: "PreToolUse" is "pre_tool_use".
func CodexEventLabel(event string) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CodexHookKey is the hook-state key of the handler-th handler of the
// group-th matcher group of event in source, the absolute path of the
// file that declares it (symlinks in CODEX_HOME resolved):
// "/home/u/.codex/config.toml:pre_tool_use:0:0".
func CodexHookKey(source, event string, group, handler int) string {
	return fmt.Sprintf("%s:%s:%d:%d", source, CodexEventLabel(event), group, handler)
}

// CodexTimeout is the timeout Codex gives a hook that declares timeout
// (0: none): 600 s by default, at least 1; SessionEnd and Interrupt
// hooks default to 1 s and are clamped to 3 s.
func CodexTimeout(event string, timeout int) int {
	short := event == "SessionEnd" || event == "Interrupt"
	switch {
	case timeout == 0 && short:
		return 1
	case timeout == 0:
		return 600
	case timeout < 1:
		return 1
	case short && timeout > 3:
		return 3
	}
	return timeout
}

// Hash is the trusted_hash Codex computes for h: "sha256:" and the hex
// SHA-256 of the compact JSON, keys sorted, of
//
//	{"event_name": <label>, "hooks": [{"async": <bool>, "command": <string>,
//	  "statusMessage": <string, when set>, "timeout": <effective seconds>,
//	  "type": "command"}], "matcher": <string, when set>}
func (h CodexHook) Hash() string {
	handler := map[string]string{
		"type":    codexJSONString("command"),
		"command": codexJSONString(h.Command),
		"timeout": strconv.Itoa(CodexTimeout(h.Event, h.Timeout)),
		"async":   strconv.FormatBool(h.Async),
	}
	if h.StatusMessage != "" {
		handler["statusMessage"] = codexJSONString(h.StatusMessage)
	}
	identity := map[string]string{
		"event_name": codexJSONString(CodexEventLabel(h.Event)),
		"hooks":      "[" + codexJSONObject(handler) + "]",
	}
	if h.Matcher != "" && !codexEventsWithoutMatcher[h.Event] {
		identity["matcher"] = codexJSONString(h.Matcher)
	}
	sum := sha256.Sum256([]byte(codexJSONObject(identity)))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexJSONObject writes an object of already-encoded values, keys in
// byte order, with no spaces (serde_json's compact form).
func codexJSONObject(fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(codexJSONString(k))
		b.WriteByte(':')
		b.WriteString(fields[k])
	}
	b.WriteByte('}')
	return b.String()
}

// codexJSONString quotes s as serde_json does: only '"', '\\' and the
// control characters below U+0020 are escaped (\b \f \n \r \t by name,
// the rest as \u00xx in lower-case hex); everything else, '<', '>', '&',
// U+2028 and U+2029 included, is written as UTF-8. (Go's encoding/json
// escapes more, so it cannot be used here.)
func codexJSONString(s string) string {
	const hexDigits = "0123456789abcdef"
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

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
			fmt.Fprintf(&b, "matcher = %s\n", tomlString(h.Matcher))
		}
		fmt.Fprintf(&b, "[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\n", h.Event, tomlString(h.Command))
		if h.Timeout != 0 {
			fmt.Fprintf(&b, "timeout = %d\n", h.Timeout)
		}
		if h.Async {
			b.WriteString("async = true\n")
		}
		if h.StatusMessage != "" {
			fmt.Fprintf(&b, "statusMessage = %s\n", tomlString(h.StatusMessage))
		}
		fmt.Fprintf(&state, "\n[hooks.state.%s]\ntrusted_hash = %s\n",
			tomlString(CodexHookKey(configPath, h.Event, g, 0)), tomlString(h.Hash()))
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
