//go:build linux

package sandbox

import (
	"os"
	"syscall"
)

// platform names the OS in diagnostics.
const platform = "linux"

// autoOrder is the order "auto" tries the launchers in.
var autoOrder = []string{LauncherBwrap, LauncherLandlock, LauncherPodman, LauncherDocker}

// kernelOrder is the order "kernel" tries the OS's own launchers in.
var kernelOrder = []string{LauncherBwrap, LauncherLandlock}

// installHint says what to install when no launcher works.
const installHint = "install bubblewrap (apt install bubblewrap, dnf install bubblewrap or pacman -S bubblewrap); " +
	"or run a kernel with Landlock ABI 3 or later (Linux 6.2+) and user namespaces allowed, for the landlock launcher; " +
	"or install podman or docker"

// platformLauncher returns this platform's own launcher called name.
func platformLauncher(name string) launcher {
	switch name {
	case LauncherBwrap:
		return &bwrap{}
	case LauncherLandlock:
		return &landlockLauncher{}
	}
	return nil
}

// terminate asks a process to stop.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
