package app

import (
	"context"
	"fmt"
)

// Version is agate's version, set at build time with -ldflags.
var Version = "dev"

func init() {
	register(&command{name: "version", summary: "print agate's version", run: func(ctx context.Context, e *Env, args []string) error {
		fmt.Fprintln(e.Stdout, "agate", Version)
		return nil
	}})
}
