package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
)

// Environment variables that give a wrapper its work dir. Pepe's wrappers
// read PEPE_SANDBOX_CWD; agate sets both, and `agate sandbox` reads both
// when agate is itself the wrapper.
const (
	EnvWorkDir     = "AGATE_SANDBOX_CWD"
	EnvPepeWorkDir = "PEPE_SANDBOX_CWD"
)

// wrapper hands the command to a custom executable that runs its arguments
// isolated (Pepe's contract): `WRAPPER program arg...`, in the work dir,
// with the work dir in AGATE_SANDBOX_CWD and PEPE_SANDBOX_CWD. What it
// confines is up to the wrapper; [Probe] tests it like any launcher.
type wrapper struct{}

var _ launcher = (*wrapper)(nil)

func (*wrapper) name() string { return LauncherWrapper }

func (*wrapper) check(o Options) error {
	if o.Wrapper == "" {
		return errors.New(`no wrapper set ([sandbox] wrapper)`)
	}
	if _, err := exec.LookPath(o.Wrapper); err != nil {
		return fmt.Errorf("wrapper %q: %w", o.Wrapper, err)
	}
	return nil
}

func (*wrapper) command(ctx context.Context, p *plan) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, p.opts.Wrapper, p.argv...)
	env := setEnv(p.env, EnvWorkDir, p.work)
	cmd.Env = setEnv(env, EnvPepeWorkDir, p.work)
	cmd.Dir = p.start()
	return cmd, nil
}

func (*wrapper) version(_ context.Context, o Options) string { return o.Wrapper }
