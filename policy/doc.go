// Package policy decides agents' tool calls: allow, deny or ask, with the
// layer and the rule that decided and the risks seen.
//
// It is pure. A compiled Policy and a Request give a Decision; the clock,
// the working folder, whether a person can be asked, the session's grants
// and the symlink resolver all come in the Request or the Options. The
// package reads no file, no environment and no clock, so every decision
// can be reproduced from its inputs.
//
// # Config
//
// Parse reads config.toml strictly: an unknown key, a bad glob, an unknown
// mode or category is an error naming file, line and key, and nothing is
// partly applied. Compile turns the config into an immutable Policy that
// is safe for concurrent use. Its [auto] section reads eVi's unchanged.
//
// # Precedence
//
// Decide consults the layers in this order; the first that decides wins.
//
//  1. hard_deny: "[deny] <tool-glob> [arg-glob]", before everything, yolo
//     included.
//  2. Guardrails: catastrophic shell commands are denied always: recursive
//     delete of /, ~, $HOME or a system path; mkfs; dd or redirection onto
//     a disk device; fork bombs; shutdown, reboot, halt, poweroff, init 0;
//     running agate itself. A category switched off in [tools] is denied
//     here too.
//  3. Mode: yolo allows; plan denies every call that acts; manual asks for
//     every call that acts (after rules and protected paths, below); ask
//     (also "auto") and accept_edits fall through. A call the shell
//     analyser cannot read asks here. Between plan and the other modes:
//     an MCP tool whose definition changed since it was pinned
//     (Request.MCP.Changed) asks, naming what changed, whatever the
//     rules, grants or mode say (layer "pin").
//  4. Rules, first match wins: "<allow|deny|ask> <tool-glob> [arg-glob]".
//     The tool glob matches the tool's name, its canonical name or its
//     category. For a shell call, a deny or ask rule matches if the whole
//     command or any simple command in it matches; an allow rule covers a
//     compound command only if every simple command is covered.
//  5. Protected paths: a write to a protected path asks; so does reading a
//     file that holds secrets, and a call whose arguments carry something
//     shaped like a credential (risk secret).
//  6. accept_edits: fs and code edits inside the project allow.
//  7. auto_approve categories (edits inside the project or a trusted dir),
//     then grants: the agent's [agents.NAME] auto_approve, the saved and
//     session grants, the run's grants. A grant covers a call when every
//     risk the call carries was granted.
//  8. Trusted scopes: fs/code calls whose paths all resolve under
//     trusted_dirs; web calls whose hosts are all trusted_domains or
//     subdomains of them.
//  9. Risk: read-only tools allow; a shell command with no risk allows
//     when a person could have been asked (the free pass); tools of risk
//     none or low with no risk allow; approval_required and high-risk
//     tools ask.
//  10. Otherwise ask. When nobody can be asked (Request.Interactive is
//     false), every ask is a deny.
//
// Taint: while a run has taken in outside content, layers 7 and 9 do not
// apply (the run's own grants still do), unless the agent has
// trust_untrusted_content. Tools declared approval_required pass only
// rules and grants: layers 6 to 9 do not allow them. Neither do calls
// of an MCP tool whose server says it is destructive or open-world
// (Request.MCP): a server's annotations only raise risk.
//
// # Risks
//
// A call's risks come from the tool's declaration and, for shell calls,
// from parsing the command with mvdan.cc/sh: every simple command in
// pipelines, lists, subshells, substitutions and functions, bash -c and
// eval strings parsed in turn, wrappers such as sudo and env stripped.
package policy
