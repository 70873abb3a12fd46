package daemon

import (
	"github.com/agatehq/agate/app/codexrules"
	"github.com/agatehq/agate/policy"
)

// syncCodexRules rewrites agate's Codex exec-policy rules from the config
// in force, when the person installed them (`agate hooks install codex`
// wrote the file): a hard_deny entry added or removed reaches Codex
// without a reinstall. A missing file stays missing.
func (d *Daemon) syncCodexRules(cfg *policy.Config) {
	if cfg == nil {
		return
	}
	path, err := codexrules.DefaultPath()
	if err != nil {
		d.logger.Printf("codex rules: not kept in step with the config: %v", err)
		return
	}
	changed, err := codexrules.Sync(path, codexrules.Render(codexrules.FromConfig(cfg.Auto.HardDeny)))
	switch {
	case err != nil:
		d.logger.Printf("codex rules: %v", err)
	case changed:
		d.logger.Printf("codex rules: %s follows the config", path)
	}
}
