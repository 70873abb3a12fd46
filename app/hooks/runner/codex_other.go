//go:build !linux

package runner

// codexProcess cannot look at other processes here: nobody is taken to
// be at Codex's prompt, and Codex to run its calls in its own sandbox
// (unknown is not safe).
func codexProcess() (cmdline []string, why string) {
	return nil, "agate cannot look at the process that runs its hook here"
}
