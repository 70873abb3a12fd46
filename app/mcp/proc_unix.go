//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcAttr puts the server in a process group of its own, so that
// stopping it stops what it started (npx starts node, which starts the
// server).
func setProcAttr(cmd *exec.Cmd) {
	switch {
	case cmd.SysProcAttr == nil:
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	case !cmd.SysProcAttr.Setsid: // a session of its own is a group of its own
		cmd.SysProcAttr.Setpgid = true
	}
}

// terminate asks the server's process group to stop.
func terminate(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

// kill stops the server's process group.
func kill(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// killGroup stops what is left of the server's process group once the
// server itself has exited.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// exitStatus is the status a shell would report: the exit code, or
// 128+N for a signal N.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
