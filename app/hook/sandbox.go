package hook

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Sandbox says how SandboxBash confines a command: the flags of `agate
// sandbox`.
type Sandbox struct {
	Bin      string   // the agate binary, absolute
	Work     string   // the writable work folder (--work), absolute
	Writable []string // more writable paths (--rw)
	Config   string   // a config file to pass on with --config; "" for the default
}

// SandboxBash rewrites the tool_input of an allowed Claude Code Bash call
// so that its command runs confined:
//
//	BIN sandbox [--config FILE] --work DIR [--rw PATH]... -- bash -c 'COMMAND'
//
// Every other field of input (description, timeout, run_in_background,
// ...) is kept as it was, in its place, because Claude Code's updatedInput
// replaces the whole input. Every word is quoted for the shell Claude Code
// runs the command in.
func SandboxBash(input []byte, s Sandbox) ([]byte, error) {
	if s.Bin == "" || !filepath.IsAbs(s.Bin) {
		return nil, fmt.Errorf("sandbox the command: the agate binary %q is not an absolute path", s.Bin)
	}
	if s.Work == "" || !filepath.IsAbs(s.Work) {
		return nil, fmt.Errorf("sandbox the command: the work folder %q is not an absolute path", s.Work)
	}
	o, err := parseObject(input)
	if err != nil {
		return nil, fmt.Errorf("sandbox the command: tool_input: %w", err)
	}
	cmd, ok := o.getString("command")
	if !ok {
		return nil, errors.New("sandbox the command: tool_input has no command string")
	}
	words := []string{s.Bin, "sandbox"}
	if s.Config != "" {
		words = append(words, "--config", s.Config)
	}
	words = append(words, "--work", s.Work)
	for _, w := range s.Writable {
		if w != "" {
			words = append(words, "--rw", w)
		}
	}
	words = append(words, "--", "bash", "-c", cmd)
	line, err := shellJoin(words)
	if err != nil {
		return nil, fmt.Errorf("sandbox the command: %w", err)
	}
	o.set("command", mustJSON(line))
	return o.marshal(), nil
}

// shellJoin quotes each word for bash (and zsh) and joins them with
// spaces.
func shellJoin(words []string) (string, error) {
	var line []byte
	for i, w := range words {
		q, err := shellQuote(w)
		if err != nil {
			return "", fmt.Errorf("quote %q: %w", w, err)
		}
		if i > 0 {
			line = append(line, ' ')
		}
		line = append(line, q...)
	}
	return string(line), nil
}
