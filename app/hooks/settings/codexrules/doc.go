// Package codexrules writes agate's hard_deny entries and guardrails as
// Codex CLI exec-policy rules ($CODEX_HOME/rules/agate.rules), which
// Codex enforces even when its hooks are off or not trusted
// (docs/hook-protocols.md §9.8).
//
// A rule is a prefix_rule: the first words of a command, each word one
// token or a list of alternatives. Only what such a prefix says within
// agate's own denial is exported: every command a rule forbids is one
// agate denies too, so the file never blocks what agate would let
// through. Where a prefix covers less than agate's entry (a guardrail
// that looks at every argument, a glob that also matches longer words),
// the rule says so in a comment; an entry no prefix can express is listed
// as a comment, with why, and in Rules.Skipped (`agate hooks status
// codex` shows it): nothing is dropped silently. Each rule carries an
// example Codex checks when it loads the file.
//
// Render is pure; Write and Remove touch only a file that agate wrote
// (it begins with Header).
package codexrules
