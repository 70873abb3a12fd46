package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agatehq/agate/policy"
)

func init() {
	register(&command{
		name:    "config",
		args:    "path | reset [--config FILE]",
		summary: "where config.toml is; reset writes the commented defaults (the old file is kept as a backup)",
		run:     cmdConfig,
	})
}

func cmdConfig(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "config")
	var cf configFlags
	cf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 {
		return usagef("want one of: path, reset")
	}
	switch pos[0] {
	case "path":
		fmt.Fprintln(e.Stdout, paths.Config)
		return nil
	case "reset":
		return resetConfig(e, paths)
	}
	return usagef("unknown config command %q (want path or reset)", pos[0])
}

// resetConfig writes the commented defaults to the config file: the one
// deliberate way to go back to them. A file already there is copied to a
// backup first. A running daemon picks the new file up as it does any
// edit.
func resetConfig(e *Env, p Paths) error {
	old, err := os.ReadFile(p.Config)
	switch {
	case err == nil:
		name, err := backupFile(p.Config, old, 0o600)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "agate: kept the old config as %s\n", name)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("read config: %w", err)
	}
	if err := WriteFileAtomic(p.Config, policy.DefaultConfigText, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "agate: wrote the default config to %s\n", p.Config)
	return nil
}
