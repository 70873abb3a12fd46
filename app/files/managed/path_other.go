//go:build !linux && !darwin && !windows

package managed

// Path is where the managed policy file is. It is set when agate is
// built, never at run time.
var Path = "/etc/agate/managed.toml"
