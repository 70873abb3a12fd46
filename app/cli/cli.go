package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/policy"
)

// Exit codes. Hooks rely on 2: every agent agate supports treats it as
// "block this call".
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2 // bad flags, bad config, bad request
)

// exitError carries an exit code through a command's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func (e *exitError) Unwrap() error { return e.err }

// errSilent marks an exit whose reason was already told (a child's own exit
// status, a hook's answer): Run prints nothing for it.
var errSilent = errors.New("exit")

// usageErr makes err exit with exitUsage.
func usageErr(err error) error { return &exitError{code: exitUsage, err: err} }

// usagef is usageErr with a formatted message.
func usagef(format string, args ...any) error { return usageErr(fmt.Errorf(format, args...)) }

// command is one subcommand of the agate binary.
type command struct {
	name    string
	args    string // synopsis of the arguments, for help
	summary string
	run     func(ctx context.Context, e *Env, args []string) error
}

// commands is the table of subcommands, filled by each command's file.
var commands = map[string]*command{}

// register adds a command to the table; each command file calls it from init.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("agate: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// Main runs the agate command line and returns the process exit code.
func Main(args []string, desktop Desktop) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, processEnv(desktop), args)
}

// Run runs one command line in e and returns its exit code. It is Main
// without the process around it, for tests.
func Run(ctx context.Context, e *Env, args []string) int {
	name := "start"
	if len(args) > 0 {
		name, args = args[0], args[1:]
	}
	switch name {
	case "help", "-h", "-help", "--help":
		printHelp(e.Stdout)
		return exitOK
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.Stderr, "agate: unknown command %q\n\n", name)
		printHelp(e.Stderr)
		return exitUsage
	}
	err := c.run(ctx, e, args)
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if !errors.Is(err, errSilent) {
		fmt.Fprintf(e.Stderr, "agate %s: %v\n", c.name, err)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "agate: a permission gate for AI agents.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: agate [command] [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "With no command agate starts the tray app, or the headless daemon where there is no display.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		if n != "start" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		c := commands[n]
		fmt.Fprintf(w, "  %-10s %s\n", n, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `agate COMMAND -h` for a command's flags.")
}

// newFlags returns a flag set for command c that writes its usage to e.
func newFlags(e *Env, c string) *flag.FlagSet {
	fs := flag.NewFlagSet("agate "+c, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	fs.Usage = func() {
		cmd := commands[c]
		fmt.Fprintf(e.Stderr, "usage: agate %s %s\n\n%s\n\n", c, cmd.args, cmd.summary)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs and returns the positional arguments.
// Flags may come before or after positional arguments; everything after a
// "--" is positional, flags or not. A bad flag is a usage error.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageErr(err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// configFlags are the flags every command that reads the config takes.
type configFlags struct {
	config string
	socket string
}

func (c *configFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "config file (default: $AGATE_CONFIG or <user config dir>/agate/config.toml)")
	fs.StringVar(&c.socket, "socket", "", "daemon socket (default: $AGATE_SOCKET or $XDG_RUNTIME_DIR/agate/agate.sock)")
}

func (c *configFlags) paths() (api.Paths, error) { return api.ResolvePaths(c.config, c.socket) }

// policy reads the config the flags name, never writing it, and compiles
// it as the daemon would; an error is a usage error naming what is wrong.
func (c *configFlags) policy() (api.Paths, *policy.Policy, error) {
	paths, err := c.paths()
	if err != nil {
		return paths, nil, usageErr(err)
	}
	cfg, err := config.Read(paths)
	if err != nil {
		return paths, nil, usageErr(err)
	}
	pol, err := policy.Compile(cfg, machine.PolicyOptions(paths))
	if err != nil {
		return paths, nil, usageErr(err)
	}
	return paths, pol, nil
}
