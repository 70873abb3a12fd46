//go:build !linux

package runner

// codexHeadless cannot look at other processes here: nobody is taken to
// be at Codex's prompt (unknown is not safe).
func codexHeadless() string {
	return "agate cannot tell here whether a person is at codex's prompt"
}
