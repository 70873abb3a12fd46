//go:build !linux

package runner

// geminiHeadless cannot look at other processes here: the payload's word
// stands (Gemini CLI's own dialog is trusted to be there).
func geminiHeadless() string { return "" }
