//go:build unix

package keystore

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel runs cmd in its own process group and, when its
// context ends, kills the whole group, so that a vault command's children
// cannot keep it alive.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
