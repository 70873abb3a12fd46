package machine

import (
	"math"

	"github.com/agatehq/agate/app/files/undo"
	"github.com/agatehq/agate/app/machine/profile"
	"github.com/agatehq/agate/policy"
)

// UndoLimits are a config's [undo] limits, in the store's units.
func UndoLimits(cfg *policy.Config) undo.Limits {
	u := cfg.Undo
	return undo.Limits{
		MaxCall: mib(int64(u.MaxCallMB)), MaxTotal: mib(int64(u.MaxTotalMB)), MaxFiles: u.MaxFiles,
		MaxAge: u.MaxAge.D(), MinFree: mib(int64(u.MinFreeMB)),
	}
}

// mib is n MiB in bytes, saturating rather than wrapping for a huge n.
func mib(n int64) int64 {
	if n > math.MaxInt64>>20 {
		return math.MaxInt64
	}
	return max(n, 0) << 20
}

// UndoSecret is what the store of kept copies refuses to copy
// (undo.Store.Secret): the secret stores' names below a project, with
// those the config adds.
func UndoSecret(cfg *policy.Config) func(rel string, dir bool) bool {
	return SecretMatcher(profile.SecretPatterns(Extra(cfg)))
}
