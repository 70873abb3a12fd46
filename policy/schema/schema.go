// Package schema names the sections of config.toml and the keys each one
// holds, as the policy engine reads them. It links nothing, so a reader
// that must stay small (the hook binary, which reads [approvals] and
// [hooks] and must not link the engine) accepts exactly the keys the
// engine accepts. A test in package policy holds this list to the
// engine's own Config type.
package schema

import "slices"

// Keys maps each section of fixed keys to its keys. Sections whose keys
// are names ([tools] categories, [agents.NAME], [catalog.NAME],
// [secrets.env]) are listed by what each entry holds.
var Keys = map[string][]string{
	"auto":      {"mode", "auto_approve", "rules", "trusted_dirs", "trusted_domains", "hard_deny", "protected_paths", "secret_paths"},
	"approvals": {"timeout", "allow_yolo", "max_pending"},
	"hooks":     {"on_daemon_down", "sandbox_bash"},
	"sandbox":   {"launcher", "fail_closed", "wrapper", "image", "network", "memory", "cpus", "runtime", "writable", "confine_project", "confine_unasked"},
	"secrets":   {"vault_env", "env"},
	"audit":     {"max_size_mb", "keep", "export"},
	"undo":      {"keep", "max_call_mb", "max_total_mb", "max_files", "max_age", "min_free_mb"},
	// An [agents.NAME] section.
	"agents.*": {"mode", "auto_approve", "trust_untrusted_content"},
	// An [mcp.servers.NAME] section: agate's MCP proxy, per server.
	"mcp.servers.*": {"pii_redact", "confine", "network", "writable", "pass_env"},
}

// Known reports whether key is a key of section ("approvals", "hooks",
// ...; "agents.*" for an agent's section).
func Known(section, key string) bool { return slices.Contains(Keys[section], key) }
