package hooks

import (
	"errors"
	"strings"
)

// shellQuote quotes s as one POSIX shell word (bash, zsh and sh read it
// alike): a word of plain characters as it is, anything else in single
// quotes, a quote inside written as '\”. A NUL byte cannot be passed in
// an argument at all, so it is an error.
func shellQuote(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", errors.New("a NUL byte cannot be in a shell word")
	}
	// A leading '=' is zsh's command-path expansion (=ls is /bin/ls): quote it.
	if s != "" && s[0] != '=' && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s, nil
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'", nil
}
