package cli

import (
	"context"
	"fmt"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/config"
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

// resetConfig writes the commented defaults to the config file (see
// resetConfigFile) and says what it did.
func resetConfig(e *Env, p api.Paths) error {
	backup, err := config.Reset(p)
	if backup != "" {
		fmt.Fprintf(e.Stdout, "agate: kept the old config as %s\n", backup)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "agate: wrote the default config to %s\n", p.Config)
	return nil
}
