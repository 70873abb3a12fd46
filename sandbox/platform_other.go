//go:build !linux && !darwin

package sandbox

import (
	"os"
	"runtime"
)

// platform names the OS in diagnostics.
const platform = runtime.GOOS

// autoOrder is the order "auto" tries the launchers in.
var autoOrder = []string{LauncherPodman, LauncherDocker}

// kernelOrder is the order "kernel" tries the OS's own launchers in.
var kernelOrder = []string(nil)

// installHint says what to install when no launcher works.
const installHint = "this OS has no built-in sandbox: install Docker Desktop or podman, " +
	`or set [sandbox] launcher = "wrapper" and a wrapper that confines its arguments`

// platformLauncher returns this platform's own launcher called name: there
// are none.
func platformLauncher(string) launcher { return nil }

// terminate stops a process; not every OS here has SIGTERM.
func terminate(p *os.Process) error { return p.Kill() }

// refusedNow is nil: no launcher here needs what a machine may refuse.
func refusedNow(launcher) error { return nil }
