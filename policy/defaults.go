package policy

import _ "embed"

// DefaultConfigText is the commented config.toml agate writes on first run.
// It parses to DefaultConfig.
//
//go:embed default.toml
var DefaultConfigText []byte
