//go:build darwin

package sandbox

import (
	"os"
	"syscall"
)

// platform names the OS in diagnostics.
const platform = "darwin"

// autoOrder is the order "auto" tries the launchers in.
var autoOrder = []string{LauncherSandboxExec, LauncherPodman, LauncherDocker}

// kernelOrder is the order "kernel" tries the OS's own launchers in.
var kernelOrder = []string{LauncherSandboxExec}

// installHint says what to install when no launcher works.
const installHint = "sandbox-exec ships with macOS (/usr/bin/sandbox-exec); or install podman or Docker Desktop"

// platformLauncher returns this platform's own launcher called name.
func platformLauncher(name string) launcher {
	if name == LauncherSandboxExec {
		return &sandboxExec{}
	}
	return nil
}

// terminate asks a process to stop.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

// refusedNow is nil: no launcher here needs what a machine may refuse.
func refusedNow(launcher) error { return nil }
