package machine

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

// sandboxOptions are the sandbox options the config gives for a command in
// work: its [sandbox] section, the protected paths (the sandbox's own, the
// policy's built-in list whose writes ask, [auto] protected_paths, agate's
// config dir) and the hidden ones (the runtime
// dirs with the daemon's socket, agate's state dir with the key store,
// and every secret store: policy.SecretStores and [auto] secret_paths,
// the list the policy calls a read of a secret by), and the secrets to
// scrub. The daemon's status route can pass the same
// to sandbox.Prober.
func sandboxOptions(cfg *policy.Config, p api.Paths, home, work string) sandbox.Options {
	s := cfg.Sandbox
	protect := append(append([]string{p.ConfigDir()}, policy.ProtectedPaths()...), cfg.Auto.ProtectedPaths...)
	hide := []string{p.State, socketHideDir(p)}
	var writable []string
	for _, w := range s.Writable {
		if home != "" && (w == "~" || strings.HasPrefix(w, "~/")) {
			w = filepath.Join(home, w[1:])
		}
		writable = append(writable, w)
	}
	// The home dir's rc files and the like matter only when a writable
	// path holds the home dir; they are read-only otherwise, and looking
	// for them costs a stat each, on every command.
	protectHome := ""
	for _, w := range append([]string{work}, writable...) {
		if home != "" && pathWithin(home, w) {
			protectHome = home
		}
	}
	return sandbox.Options{
		Launcher:   s.Launcher,
		FailClosed: s.FailClosed,
		Wrapper:    s.Wrapper,
		Image:      s.Image,
		Network:    s.Network,
		Memory:     s.Memory,
		CPUs:       s.CPUs,
		Runtime:    s.Runtime,
		WorkDir:    work,
		Writable:   writable,
		Protected:  sandbox.DefaultProtected(work, protectHome, protect),
		Hidden:     sandbox.DefaultHidden(home, nil, append(hide, sandbox.SecretPaths(work, home, secretPatterns(cfg))...)),
		SecretEnv:  append(cfg.SecretEnvNames(), cfg.Secrets.VaultEnv...),
		Enabled:    cfg.SandboxEnabled(),
		Executable: cliBinary(),
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

// pathWithin reports whether path is dir or lies below it.
func pathWithin(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// socketHideDir is what to hide so the command cannot reach the daemon: the
// socket's own dir when it is agate's (…/agate/agate.sock, <state>/run),
// else just the socket.
func socketHideDir(p api.Paths) string {
	dir := filepath.Dir(p.Socket)
	if filepath.Base(dir) == "agate" || dir == filepath.Join(p.State, "run") {
		return dir
	}
	return p.Socket
}

// secretPatterns are the paths that hold secrets: the built-in stores
// and [auto] secret_paths.
func secretPatterns(cfg *policy.Config) []string {
	var out []string
	for _, st := range policy.SecretStores() {
		out = append(out, st.Paths...)
	}
	return append(out, cfg.Auto.SecretPaths...)
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
