package sandbox

// Launcher names, as written in [sandbox] launcher and --launcher.
const (
	LauncherAuto        = "auto"
	LauncherKernel      = "kernel" // "auto" among the OS's own mechanisms only: never a container or a wrapper
	LauncherBwrap       = "bwrap"
	LauncherLandlock    = "landlock"
	LauncherSandboxExec = "sandbox-exec"
	LauncherDocker      = "docker"
	LauncherPodman      = "podman"
	LauncherWrapper     = "wrapper"
	LauncherNone        = "none"
)

// LauncherNames lists every launcher name [Options.Launcher] accepts.
var LauncherNames = []string{
	LauncherAuto, LauncherKernel, LauncherBwrap, LauncherLandlock, LauncherSandboxExec,
	LauncherDocker, LauncherPodman, LauncherWrapper, LauncherNone,
}

// DefaultImage is the container image used when [Options.Image] is empty.
const DefaultImage = "debian:bookworm-slim"

// Options say how to confine one command. The zero value confines with the
// first launcher that works and fails closed.
type Options struct {
	// Launcher is "auto" (or empty) or one of the launcher names.
	Launcher string
	// FailClosed refuses to run a command when no launcher works. Setting
	// it to false runs the command unconfined with a note instead, but only
	// when Launcher is set explicitly: an Options whose Launcher is empty
	// always fails closed.
	FailClosed bool
	// Wrapper is the wrapper executable when Launcher is "wrapper".
	Wrapper string

	// Image is the container image. An absolute path names a root
	// filesystem directory instead (podman's --rootfs).
	Image string
	// Network is the container network when Net is true: "bridge" (when
	// empty) or "none", which keeps containers offline even then.
	Network string
	// Memory is the container memory limit, e.g. "2g".
	Memory string
	// CPUs is the container CPU limit, e.g. "1.5".
	CPUs string
	// Runtime is the container OCI runtime, e.g. "runc".
	Runtime string

	// Net allows the network.
	Net bool
	// WorkDir is the writable work dir; empty means the current dir. It
	// may not be /.
	WorkDir string
	// ReadOnlyWork leaves the work dir read-only: the command runs in it,
	// and writes nothing but its private /tmp (and Writable, if any).
	ReadOnlyWork bool
	// Dir is the folder the command starts in; empty means the work dir.
	// It must exist, and is the command's own, as an agent's shell cwd
	// is: it is not made writable by being the start.
	Dir string
	// Writable are more paths to leave writable. Each must exist.
	Writable []string
	// ReadOnly are paths to bind read-only where the launcher would not
	// show them otherwise: containers, and paths under /tmp. Each must
	// exist.
	ReadOnly []string
	// Protected are paths that stay read-only even under WorkDir or a
	// Writable path: shell rc files, .git/hooks, the agents' settings,
	// agate's config. Paths that do not exist are skipped. See
	// [DefaultProtected].
	Protected []string
	// Hidden are paths replaced by an empty directory (or an empty file)
	// inside the sandbox: the daemon's socket dir, the key store, agent and
	// bus sockets. Paths that do not exist are skipped. See
	// [DefaultHidden].
	Hidden []string
	// Views are files shown read-only with other content: ~/.gitconfig
	// without the sections that can carry credentials (see
	// [GitConfigView]). A view of a path that does not exist, is not a
	// regular file, or lies under a hidden path is skipped;
	// Data over [MaxView] bytes is an error. Containers do not show
	// views; sandbox-exec hides the file instead.
	Views []View

	// Env is the environment to pass, before scrubbing; nil means the
	// current process's.
	Env []string
	// SecretEnv names variables to scrub besides those whose name says
	// they are credentials (see [IsCredentialName]).
	SecretEnv []string
	// KeepEnv names variables passed on although their names or values
	// say they are credentials: what an MCP client sets for the server it
	// starts (its GITHUB_TOKEN), which the server cannot work without.
	// SecretEnv wins over it.
	KeepEnv []string

	// Executable is the agate binary that the landlock launcher
	// re-executes; empty means os.Executable(). Its main must call
	// [MaybeReexec] first.
	Executable string

	// Enabled is only reported: whether the config switches the sandbox
	// on for agents' commands ([tools] sandbox). [Command] confines
	// whatever it says.
	Enabled bool
}

// launcherName returns the launcher asked for, "auto" when unset.
func (o Options) launcherName() string {
	if o.Launcher == "" {
		return LauncherAuto
	}
	return o.Launcher
}

// mayRunUnconfined reports whether the options allow running a command
// unconfined when no launcher works: only with an explicit launcher and
// FailClosed set to false.
func (o Options) mayRunUnconfined() bool {
	return o.Launcher != "" && !o.FailClosed
}
