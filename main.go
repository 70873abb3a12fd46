// Command agate is a permission gate for AI agents: it decides every tool
// call an agent makes (allow, deny or ask), asks the person when the policy
// says so, confines commands in an OS sandbox and keeps provider keys sealed.
//
// Run with no arguments it starts the tray app (the headless daemon where
// there is no display); `agate help` lists the subcommands.
package main

import (
	"os"

	"github.com/agatehq/agate/app/cli"
	"github.com/agatehq/agate/sandbox"
)

func main() {
	// The Landlock launcher re-executes agate to confine a command: that
	// child applies its namespaces and rules and execs the command here.
	sandbox.MaybeReexec()
	os.Exit(cli.Main(os.Args[1:], desktop))
}
