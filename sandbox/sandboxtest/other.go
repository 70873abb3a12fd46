//go:build !linux

package sandboxtest

import (
	"errors"
	"os/exec"
)

// Condition is one way a machine differs; see the Linux build.
type Condition string

// The conditions; see the Linux build.
const (
	Seccomp   Condition = "seccomp"
	MaxUserNS Condition = "max-userns"
	Chroot    Condition = "chroot"
	Tmp0755   Condition = "tmp-0755"
)

// Command fails: the conditions are Linux's.
func Command(Condition, int, []string, ...string) (*exec.Cmd, error) {
	return nil, errors.New("sandboxtest: the conditions exist only on Linux")
}

// Main does nothing.
func Main() {}

// Describe says in a line what c is.
func Describe(c Condition) string { return string(c) }
