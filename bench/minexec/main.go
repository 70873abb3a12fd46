// Command minexec is the floor for a Go program that runs a command in
// its place: it looks the command up and execs it, and does nothing
// else. bench/sandbox.sh times agate-hook's runner against it, both
// running the same bwrap line: what is left is agate's own work.
package main

import (
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	p, err := exec.LookPath(os.Args[1])
	if err != nil {
		os.Exit(127)
	}
	if err := syscall.Exec(p, os.Args[1:], os.Environ()); err != nil {
		os.Exit(126)
	}
}
