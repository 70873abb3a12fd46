package config

import (
	"os"
	"path/filepath"

	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// FindOverlay returns the nearest .agate.toml at or above dir.
func FindOverlay(dir string) (string, bool) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		f := filepath.Join(d, policy.OverlayName)
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return f, true
		}
		if d == filepath.Dir(d) {
			return "", false
		}
	}
}

// WithOverlay merges the project overlay found from cwd, if any. An
// overlay that cannot be read makes the project strict (see
// policy.FailedOverlay).
func WithOverlay(pol *policy.Policy, cwd string) *policy.Policy {
	f, ok := FindOverlay(cwd)
	if !ok {
		return pol
	}
	data, err := osutil.ReadLimited(f, policy.MaxConfigSize)
	if err != nil {
		return pol.FailedOverlay(f, err)
	}
	ov, err := policy.ParseOverlay(f, data)
	if err != nil {
		return pol.FailedOverlay(f, err)
	}
	return pol.WithOverlay(ov)
}
