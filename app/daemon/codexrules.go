package daemon

import (
	"slices"

	"github.com/agatehq/agate/app/hooks/settings/codexrules"
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
	var paths []string
	if p, err := codexrules.DefaultPath(); err == nil {
		paths = append(paths, p)
	} else {
		d.logger.Printf("codex rules: %v", err)
	}
	// Where `agate hooks install codex` wrote them, under any CODEX_HOME.
	recorded, err := codexrules.Recorded(d.paths.State)
	if err != nil {
		d.logger.Printf("codex rules: %v", err)
	}
	for _, p := range recorded {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	data := codexrules.Render(codexrules.FromConfig(cfg.HardDeny()))
	for _, path := range paths {
		changed, err := codexrules.Sync(path, data)
		switch {
		case err != nil:
			d.logger.Printf("codex rules: %v", err)
		case changed:
			d.logger.Printf("codex rules: %s follows the config", path)
		}
	}
}
