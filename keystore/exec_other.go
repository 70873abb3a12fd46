//go:build !unix

package keystore

import "os/exec"

// killGroupOnCancel keeps exec's default here: the command itself is
// killed when its context ends, and WaitDelay bounds the wait for its
// children's pipes.
func killGroupOnCancel(*exec.Cmd) {}
