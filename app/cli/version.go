package cli

import (
	"context"
	"fmt"

	"github.com/agatehq/agate/app/version"
)

func init() {
	register(&command{name: "version", summary: "print agate's version", run: func(ctx context.Context, e *Env, args []string) error {
		fmt.Fprintln(e.Stdout, "agate", version.Version)
		return nil
	}})
}
