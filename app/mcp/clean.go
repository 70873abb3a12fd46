package mcp

import (
	"regexp"
	"strings"
	"sync"
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

// The forms of model control tokens, each with the most bytes one can
// take (names may hold letters that fold to ASCII ones, 'ſ' or 'K', of
// two or three bytes):
//   - ChatML and its kin (Qwen, Llama 3, Phi, gpt-oss, DeepSeek):
//     "<|im_start|>", "<|eot_id|>", "<|system|>", "<|begin▁of▁sentence|>";
//     a name with an underscore (or a '▁'), or one of the well-known bare
//     names;
//   - the same with DeepSeek's full width bars: "<｜User｜>";
//   - Llama 2 and Mistral: "[INST]", "[/INST]", "[SYSTEM_PROMPT]",
//     "[TOOL_CALLS]", ...; "<<SYS>>", "<</SYS>>";
//   - Gemma: "<start_of_turn>", "<end_of_turn>".
//
// Case does not matter, and up to four spaces may stand next to each
// delimiter. "<s>" and "</s>" are left alone: they are HTML too.
const (
	chatmlForm    = `<` + sp + `\|` + sp + `(?:` + bareNames + `|[a-z0-9▁]{1,20}[_▁][a-z0-9▁_]{1,20})` + sp + `\|` + sp + `>`
	fullwidthForm = `<` + sp + `｜[^｜<>]{1,48}｜` + sp + `>`
	bracketForm   = `\[` + sp + `/?` + sp + `(?:INST|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS|TOOL_CONTENT)` + sp + `\]`
	sysForm       = `<<` + sp + `/?` + sp + `SYS` + sp + `>>`
	turnForm      = `<` + sp + `/?` + sp + `(?:start_of_turn|end_of_turn)` + sp + `>`
)

// bareNames are the control tokens without an underscore in their name.
const bareNames = `system|user|assistant|endoftext|endofprompt|end|start|message|channel|return|call|constrain|pad|tool|ipython|developer|eot|eom`

// controlTokens matches one model control token of any form.
var controlTokens = lazyRegexp(`(?i)` + chatmlForm + `|` + fullwidthForm + `|` + bracketForm + `|` + sysForm + `|` + turnForm)

// ControlToken reports whether s holds a model control token.
func ControlToken(s string) bool { return controlTokens().MatchString(s) }

// tokenEnd is one form, matched whole, how many bytes a token of that
// form can take, and the byte it starts with.
type tokenEnd struct {
	re     func() *regexp.Regexp
	window int
	open   byte
}

func endOf(form string, window int, open byte) tokenEnd {
	return tokenEnd{lazyRegexp(`^(?i)(?:` + form + `)$`), window, open}
}

var (
	chatmlEnd    = endOf(chatmlForm, 160, '<')
	fullwidthEnd = endOf(fullwidthForm, 224, '<')
	bracketEnd   = endOf(bracketForm, 64, '[')
	sysEnd       = endOf(sysForm, 40, '<')
	turnEnd      = endOf(turnForm, 56, '<')
)

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
	var out []byte // nil until the first cut: the copy is s[:i+1]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if out != nil {
			out = append(out, c)
		}
		if c != '>' && c != ']' {
			continue
		}
		var k int
		if out == nil {
			k = tokenAtEnd(s[:i+1])
		} else {
			k = tokenAtEnd(out)
		}
		if k >= 0 {
			if out == nil {
				out = make([]byte, k, len(s))
				copy(out, s[:k])
			} else {
				out = out[:k]
			}
		}
	}
	if out == nil {
		return s
	}
	return string(out)
}

// tokenAtEnd returns where the control token that ends b starts, or -1.
// b's last byte is '>' or ']'.
func tokenAtEnd[T string | []byte](b T) int {
	e := endingForm(b)
	if e == nil {
		return -1
	}
	// No form holds its opening byte inside, so a token starts at the
	// nearest one (at the one before, for "<<SYS>>").
	lo := max(len(b)-e.window, 0)
	k := len(b) - 2
	for k >= lo && b[k] != e.open {
		k--
	}
	if e == &sysEnd {
		k--
	}
	if k >= lo && e.re().MatchString(string(b[k:])) {
		return k
	}
	return -1
}

// endingForm returns the form of control token out may end with, its
// last byte being '>' or ']': the byte before, past spaces, tells. nil
// is none.
func endingForm[T string | []byte](out T) *tokenEnd {
	last := out[len(out)-1]
	j := len(out) - 2
	for k := 0; k < 4 && j >= 0 && isSpace(out[j]); k++ {
		j--
	}
	if j < 0 {
		return nil
	}
	p := out[j]
	if last == ']' {
		// INST, ..._PROMPT, TOOL_CALLS, ...; 0xBF ends 'ſ' (U+017F),
		// which is 's' when case does not matter.
		if l := p | 0x20; l == 't' || l == 's' || p == 0xBF {
			return &bracketEnd
		}
		return nil
	}
	switch {
	case p == '|':
		return &chatmlEnd
	case p == 0x9C: // the last byte of '｜' (U+FF5C)
		return &fullwidthEnd
	case p == '>':
		return &sysEnd
	case p|0x20 == 'n':
		return &turnEnd
	}
	return nil
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

// The keys of a server's request or notification whose strings are not
// text for a model or a person, but ids and addresses the client matches:
// they are left as they are. ("data" is text there: a log message.)
var opaqueParamKeys = map[string]bool{
	"_meta": true, "progressToken": true, "requestId": true, "uri": true, "mimeType": true, "type": true,
}

// cleanParams cleans every string in v, a server's request's or
// notification's params, but those under opaqueParamKeys, and not map
// keys (an elicitation's schema names the fields it asks for). It
// changes v in place and returns it.
func (c *textCleaner) cleanParams(v any) any {
	switch v := v.(type) {
	case string:
		return c.clean(v)
	case []any:
		for i := range v {
			v[i] = c.cleanParams(v[i])
		}
	case map[string]any:
		for k, x := range v {
			if !opaqueParamKeys[k] {
				v[k] = c.cleanParams(x)
			}
		}
	}
	return v
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

// cleanAll cleans every string in v, map keys too (a client may show a
// model structuredContent as JSON, names and all): structuredContent, an
// error's data. A key that comes out as another key of its map is
// dropped with its value.
func (c *textCleaner) cleanAll(v any) any {
	switch v := v.(type) {
	case string:
		return c.clean(v)
	case []any:
		for i := range v {
			v[i] = c.cleanAll(v[i])
		}
	case map[string]any:
		var renamed map[string]any
		for k, x := range v {
			if ck := c.clean(k); ck != k {
				delete(v, k)
				if renamed == nil {
					renamed = map[string]any{}
				}
				renamed[ck] = c.cleanAll(x)
				continue
			}
			v[k] = c.cleanAll(x)
		}
		for k, x := range renamed {
			if _, taken := v[k]; !taken {
				v[k] = x
			}
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

// lazyRegexp compiles pattern the first time it is used, not when agate
// starts: every agate command links this package, and the sandbox's
// runner starts once per confined command.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
