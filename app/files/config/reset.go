package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// Reset writes the commented defaults to the config file: the
// one deliberate way to go back to them. A file already there is copied
// to a backup first, whose name it returns. A running daemon picks the
// new file up as it does any edit.
func Reset(p api.Paths) (backup string, err error) {
	old, err := os.ReadFile(p.Config)
	switch {
	case err == nil:
		if backup, err = osutil.Backup(p.Config, old, 0o600); err != nil {
			return "", err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read config: %w", err)
	}
	return backup, osutil.WriteFile(p.Config, policy.DefaultConfigText, 0o600)
}
