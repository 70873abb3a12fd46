package machine

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/machine/profile"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

// sandboxOptions are the sandbox options the config gives for a command in
// work: its [sandbox] section and profile.Base's lists (the protected,
// hidden and scrubbed paths and variables, with what the config adds to
// them: Extra). The daemon's status route can pass the same to
// sandbox.Prober.
func sandboxOptions(cfg *policy.Config, p api.Paths, home, work string) sandbox.Options {
	s := cfg.Sandbox
	var writable []string
	for _, w := range s.Writable {
		if home != "" && (w == "~" || strings.HasPrefix(w, "~/")) {
			w = filepath.Join(home, w[1:])
		}
		writable = append(writable, w)
	}
	o := profile.Base(p, home, work, writable, Extra(cfg))
	o.Launcher, o.FailClosed, o.Wrapper, o.Image = s.Launcher, s.FailClosed, s.Wrapper, s.Image
	o.Network, o.Memory, o.CPUs, o.Runtime = s.Network, s.Memory, s.CPUs, s.Runtime
	o.Enabled, o.Executable = cfg.SandboxEnabled(), cliBinary()
	return o
}

// Extra is what cfg adds to the sandbox's built-in lists: [auto]
// protected_paths and secret_paths, and the variables [secrets] names.
// The daemon passes it on in a confined call's profile.
func Extra(cfg *policy.Config) profile.Extra {
	return profile.Extra{
		Protected: cfg.ProtectedPaths(),
		Secrets:   cfg.SecretPaths(),
		SecretEnv: append(cfg.SecretEnvNames(), cfg.Secrets.VaultEnv...),
	}
}

// cliBinary is the agate binary the Landlock launcher re-executes: for
// the desktop build (named agate), the command-line build beside it when
// there is one, since it starts without loading a GUI; else this binary.
// "" lets the sandbox use os.Executable.
func cliBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if strings.TrimSuffix(filepath.Base(exe), ".exe") == "agate" {
		if p, ok := api.SiblingBinary("agate-cli"); ok {
			return p
		}
	}
	return exe
}

// ConfineUnaskedState says whether [sandbox] confine_unasked holds here,
// and why not, from a probe of the OS's own sandbox (KernelOptions): the
// words doctor, status and the settings panel show.
func ConfineUnaskedState(cfg *policy.Config, goos string, diag sandbox.Diagnostics) (works bool, state string) {
	switch {
	case !cfg.Sandbox.ConfineUnasked:
		return false, "off: what agate lets through on its own judgment runs as judged, unconfined ([sandbox] confine_unasked = true turns it on)"
	case goos != "linux":
		return false, "on, but agate confines unasked calls only on Linux for now: on " + goos + " they run as judged"
	case !diag.Available || !diag.NetworkIsolation:
		s := "on, but neither bwrap nor Landlock confines here (" + diag.Reason + "), so agate judges as without it"
		if diag.Fix != "" {
			s += "; to change: " + diag.Fix
		} else if diag.Install != "" {
			s += " (" + diag.Install + ")"
		}
		return false, s
	}
	return true, "on: what agate lets Claude Code's Bash run unasked runs in the sandbox (" + diag.Launcher +
		"), read-only or with the project writable as judged, no network, the credential stores hidden"
}

// KernelOptions are o for the OS's own sandbox only, fail-closed, with
// no writable paths but the work dir: what a confined unasked call runs
// under.
func KernelOptions(o sandbox.Options) sandbox.Options {
	o.Launcher, o.FailClosed, o.Writable = sandbox.LauncherKernel, true, nil
	return o
}
