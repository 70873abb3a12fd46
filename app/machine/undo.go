package machine

import (
	"github.com/agatehq/agate/app/files/undo"
	"github.com/agatehq/agate/app/machine/profile"
	"github.com/agatehq/agate/policy"
)

// UndoLimits are a config's [undo] limits, in the store's units.
func UndoLimits(cfg *policy.Config) undo.Limits {
	u := cfg.Undo
	return undo.Limits{
		MaxCall: int64(u.MaxCallMB) << 20, MaxTotal: int64(u.MaxTotalMB) << 20, MaxFiles: u.MaxFiles,
		MaxAge: u.MaxAge.D(), MinFree: int64(u.MinFreeMB) << 20,
	}
}

// UndoSecret is what the store of kept copies refuses to copy
// (undo.Store.Secret): the secret stores' names below a project, with
// those the config adds.
func UndoSecret(cfg *policy.Config) func(rel string, dir bool) bool {
	return SecretMatcher(profile.SecretPatterns(Extra(cfg)))
}
