//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

func setProcAttr(cmd *exec.Cmd) {}

// terminate stops the server: there is no SIGTERM to send.
func terminate(cmd *exec.Cmd) { cmd.Process.Kill() }

func kill(cmd *exec.Cmd) { cmd.Process.Kill() }

func killGroup(cmd *exec.Cmd) {}

func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode()
}
