package codexconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Hook is one command hook in its own matcher group, as Codex hashes it.
type Hook struct {
	Event string // "PreToolUse", "PostToolUse", "SessionEnd", ...
	// Matcher is the group's matcher; "" leaves it out (which, like
	// "*", matches everything, but hashes differently from "*"). Codex
	// drops the matcher of an event that has none (UserPromptSubmit,
	// Stop, Interrupt, PreModelRequest, PostModelRequest) before hashing.
	Matcher string
	Command string
	// Timeout is in seconds; 0 leaves it out (Codex's default); below 0
	// hashes as an explicit value under 1.
	Timeout       int
	Async         bool
	StatusMessage string // "" leaves it out
}

// eventsWithoutMatcher are the events whose matcher Codex ignores.
var eventsWithoutMatcher = map[string]bool{
	"UserPromptSubmit": true, "Stop": true, "Interrupt": true,
	"PreModelRequest": true, "PostModelRequest": true,
}

// hasMatcher reports whether Codex keeps the matcher of event's groups.
func hasMatcher(event string) bool { return !eventsWithoutMatcher[event] }

// EventLabel is the snake_case name Codex uses for an event in hook-state
// keys and in the hash: "PreToolUse" is "pre_tool_use".
func EventLabel(event string) string {
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

// Key is the hook-state key of the handler-th handler of the group-th
// matcher group of event in source, the absolute path of the file that
// declares it (symlinks in CODEX_HOME resolved):
// "/home/u/.codex/config.toml:pre_tool_use:0:0".
func Key(source, event string, group, handler int) string {
	return fmt.Sprintf("%s:%s:%d:%d", source, EventLabel(event), group, handler)
}

// Timeout is the timeout Codex gives a hook that declares timeout (0:
// none): 600 s by default, at least 1; SessionEnd and Interrupt hooks
// default to 1 s and are clamped to 3 s.
func Timeout(event string, timeout int) int {
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
func (h Hook) Hash() string {
	handler := map[string]string{
		"type":    jsonString("command"),
		"command": jsonString(h.Command),
		"timeout": strconv.Itoa(Timeout(h.Event, h.Timeout)),
		"async":   strconv.FormatBool(h.Async),
	}
	if h.StatusMessage != "" {
		handler["statusMessage"] = jsonString(h.StatusMessage)
	}
	identity := map[string]string{
		"event_name": jsonString(EventLabel(h.Event)),
		"hooks":      "[" + jsonObject(handler) + "]",
	}
	if h.Matcher != "" && hasMatcher(h.Event) {
		identity["matcher"] = jsonString(h.Matcher)
	}
	sum := sha256.Sum256([]byte(jsonObject(identity)))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// jsonObject writes an object of already-encoded values, keys in byte
// order, with no spaces (serde_json's compact form).
func jsonObject(fields map[string]string) string {
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
		b.WriteString(jsonString(k))
		b.WriteByte(':')
		b.WriteString(fields[k])
	}
	b.WriteByte('}')
	return b.String()
}

// jsonString quotes s as serde_json does: only '"', '\\' and the control
// characters below U+0020 are escaped (\b \f \n \r \t by name, the rest
// as \u00xx in lower-case hex); everything else, '<', '>', '&', U+2028
// and U+2029 included, is written as UTF-8. (Go's encoding/json escapes
// more, so it cannot be used here.)
func jsonString(s string) string {
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
