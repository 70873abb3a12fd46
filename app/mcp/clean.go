package mcp

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agatehq/agate/policy"
)

// Clean returns s without the two smuggling routes of text a model reads:
// model control tokens, which try to forge a turn of the conversation
// ("<|im_start|>system", "[INST]", "<<SYS>>", "<start_of_turn>", ...: see
// ControlToken), and invisible characters, which hide letters between the
// ones a person and a keyword filter see (zero-width spaces and joiners,
// the word joiner, a BOM, bidi overrides, isolates and marks, the soft
// hyphen, tag characters, ...: see Invisible).
//
// What is left contains neither: removing one can join two pieces into a
// new token ("<|im_<|x_y|>start|>"), and that one goes too. Clean is
// idempotent, leaves valid UTF-8 valid and bytes that are not UTF-8 as
// they were, and costs one pass over s.
func Clean(s string) string {
	s = stripInvisible(s)
	if !mayHoldToken(s) {
		return s
	}
	return stripTokens(s)
}

// Invisible reports whether r is one of the characters Clean removes:
// a character with no width or glyph of its own that a model still
// reads.
func Invisible(r rune) bool {
	switch {
	case r < 0xAD:
		return false
	case r == 0xAD, // soft hyphen
		r == 0x34F,               // combining grapheme joiner
		r == 0x61C,               // Arabic letter mark
		r == 0x115F, r == 0x1160, // Hangul fillers
		r == 0x17B4, r == 0x17B5, // Khmer inherent vowels
		0x180B <= r && r <= 0x180F, // Mongolian variation selectors, vowel separator
		0x200B <= r && r <= 0x200F, // zero-width space, non-joiner, joiner; LRM, RLM
		0x202A <= r && r <= 0x202E, // bidi embeddings and overrides
		0x2060 <= r && r <= 0x2064, // word joiner, invisible operators
		0x2066 <= r && r <= 0x206F, // bidi isolates, deprecated format characters
		r == 0x3164, r == 0xFFA0,   // Hangul fillers
		r == 0xFEFF,                  // BOM, zero-width no-break space
		0xFFF9 <= r && r <= 0xFFFB,   // interlinear annotation
		0x1D173 <= r && r <= 0x1D17A, // musical formatting
		0xE0000 <= r && r <= 0xE007F, // tag characters
		0xE0100 <= r && r <= 0xE01EF: // variation selectors supplement
		return true
	}
	return false
}

// stripInvisible removes every Invisible character from s, keeping bytes
// that are not UTF-8 as they are.
func stripInvisible(s string) string {
	// Fast path: every invisible character is 2 bytes or more, and so
	// starts with a byte of 0xC2 or above.
	i := 0
	for i < len(s) {
		c := s[i]
		if c < 0xC2 {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if Invisible(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < 0xC2 {
			b.WriteByte(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !Invisible(r) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// sp is the space a control token may hold inside its tag.
const sp = `[ \t\r\n]{0,4}`

// controlTokens matches one model control token. The forms:
//   - ChatML and its kin (Qwen, Llama 3, Phi, gpt-oss, DeepSeek with full
//     width bars): "<|im_start|>", "<|eot_id|>", "<|system|>",
//     "<｜begin▁of▁sentence｜>"; a name with an underscore, or one of the
//     well-known bare names;
//   - Llama 2 and Mistral: "[INST]", "[/INST]", "<<SYS>>", "<</SYS>>",
//     "[SYSTEM_PROMPT]", "[TOOL_CALLS]", ...;
//   - Gemma: "<start_of_turn>", "<end_of_turn>".
//
// Case does not matter, and up to four spaces may stand next to each
// delimiter. "<s>" and "</s>" are left alone: they are HTML too.
var controlTokens = regexp.MustCompile(`(?i)` +
	`<` + sp + `\|` + sp + `(?:` + bareNames + `|[a-z0-9▁]{1,20}_[a-z0-9▁_]{1,20})` + sp + `\|` + sp + `>` +
	`|<` + sp + `｜[^｜<>]{1,48}｜` + sp + `>` +
	`|\[` + sp + `/?` + sp + `(?:INST|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS|TOOL_CONTENT)` + sp + `\]` +
	`|<<` + sp + `/?` + sp + `SYS` + sp + `>>` +
	`|<` + sp + `/?` + sp + `(?:start_of_turn|end_of_turn)` + sp + `>`)

// bareNames are the control tokens without an underscore in their name.
const bareNames = `system|user|assistant|endoftext|endofprompt|end|start|message|channel|return|call|constrain|pad|tool|ipython|developer|eot|eom`

// ControlToken reports whether s holds a model control token.
func ControlToken(s string) bool { return controlTokens.MatchString(s) }

// endWindow is more than the longest control token can be, in bytes.
const endWindow = 256

// anchoredTokens matches a control token that ends where the text ends.
var anchoredTokens = regexp.MustCompile(`(?:` + controlTokens.String() + `)$`)

// mayHoldToken is a cheap test that s cannot hold a control token: each
// one has a '<' or a '['.
func mayHoldToken(s string) bool {
	return strings.ContainsAny(s, "<[")
}

// stripTokens removes control tokens from s until none is left, in one
// pass: it copies s out byte by byte, and at each byte that can end a
// token it cuts a token that now ends the copy. The copy never holds a
// token, so a token formed by cutting another is cut when its last byte
// is copied.
func stripTokens(s string) string {
	if !controlTokens.MatchString(s) {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		out = append(out, c)
		if (c == '>' || c == ']') && mayEndToken(out) {
			w := len(out) - endWindow
			if w < 0 {
				w = 0
			}
			if loc := anchoredTokens.FindIndex(out[w:]); loc != nil {
				out = out[:w+loc[0]]
			}
		}
	}
	return string(out)
}

// mayEndToken reports whether out, whose last byte is '>' or ']', could
// end with a control token: the byte before, past spaces, must be one a
// token ends with.
func mayEndToken(out []byte) bool {
	last := out[len(out)-1]
	j := len(out) - 2
	for k := 0; k < 4 && j >= 0 && isSpace(out[j]); k++ {
		j--
	}
	if j < 0 {
		return false
	}
	p := out[j] | 0x20 // lower case, for letters
	if last == ']' {
		// INST, ..._PROMPT, TOOL_CALLS, ...; 0xBF ends 'ſ' (U+017F), which
		// matches 's' when case does not matter.
		return p == 't' || p == 's' || out[j] == 0xBF
	}
	switch out[j] {
	case '|', '>':
		return true
	case 0x9C: // the last byte of '｜' (U+FF5C)
		return true
	}
	return p == 'n' // start_of_turn, end_of_turn
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// textCleaner cleans the strings of one message on their way to the
// client: Clean, then known secret values cut out, then, when asked,
// personal data replaced by placeholders numbered across the message.
type textCleaner struct {
	secrets policy.KnownSecrets
	pii     *piiRedactor // nil: personal data is left as it is
}

// clean cleans one string.
func (c *textCleaner) clean(s string) string {
	s = Clean(s)
	r := redactSecrets(s, c.secrets)
	if c.pii != nil {
		r = c.pii.redact(r)
	}
	if r != s {
		// A placeholder next to what was around the value must not
		// make a token either.
		r = Clean(r)
	}
	return r
}

// redactSecrets cuts every value known holds out of s, as policy.Redact
// does for the audit log: with known's own Redact method when it has one
// ("[secret LABEL]"), else by replacing the whole string.
func redactSecrets(s string, known policy.KnownSecrets) string {
	if known == nil || !known.Contains(s) {
		return s
	}
	if r, ok := known.(interface{ Redact(string) string }); ok {
		return r.Redact(s)
	}
	return "[REDACTED]"
}

// The keys of a content block whose strings are not text for a model:
// they are left as they are.
var opaqueKeys = map[string]bool{
	"type": true, "mimeType": true, "uri": true, "data": true, "blob": true, "_meta": true,
}

// cleanContent cleans every string in v, a tool's content or a
// resource's contents, but those under opaqueKeys (base64 data, types,
// addresses) and map keys. It changes v in place and returns it.
func (c *textCleaner) cleanContent(v any) any {
	switch v := v.(type) {
	case string:
		return c.clean(v)
	case []any:
		for i := range v {
			v[i] = c.cleanContent(v[i])
		}
	case map[string]any:
		for k, x := range v {
			if !opaqueKeys[k] {
				v[k] = c.cleanContent(x)
			}
		}
	}
	return v
}

// cleanAll cleans every string in v (not map keys): structuredContent, an
// error's data.
func (c *textCleaner) cleanAll(v any) any {
	switch v := v.(type) {
	case string:
		return c.clean(v)
	case []any:
		for i := range v {
			v[i] = c.cleanAll(v[i])
		}
	case map[string]any:
		for k, x := range v {
			v[k] = c.cleanAll(x)
		}
	}
	return v
}

// cleanDescriptions cleans the strings under a "description" or "title"
// key anywhere in v, a tool definition: what a model or a person reads
// of a tool. Names, schemas' patterns, enums and defaults stay as the
// server wrote them.
func (c *textCleaner) cleanDescriptions(v any) any {
	switch v := v.(type) {
	case []any:
		for i := range v {
			v[i] = c.cleanDescriptions(v[i])
		}
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "description" || k == "title") {
				v[k] = c.clean(s)
				continue
			}
			v[k] = c.cleanDescriptions(x)
		}
	}
	return v
}
