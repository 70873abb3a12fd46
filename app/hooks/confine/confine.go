// Package confine is how the hook rewrites a shell call an agent makes to
// run under `agate sandbox`, with the profile the daemon judged for it
// (api.Rewritable says which agents' tools can be rewritten): Shell
// rewrites a call's input. The daemon reads such a line back
// (daemon.confinedCommand) where an agent reports the command it ran.
//
// The rewrite is the whole of the confinement: the agent runs the line
// Shell writes, which names agate's binary by its absolute path and
// carries every path, the read-only flag and --strict (fail-closed, in
// the OS's own sandbox), so nothing in the agent's environment or in
// agate's config can loosen it once the hook has answered.
package confine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agatehq/agate/app/hooks/internal/hookjson"
	"github.com/agatehq/agate/policy/shellquote"
)

// Sandbox says how Shell confines a command: the flags of `agate
// sandbox`.
type Sandbox struct {
	Bin      string   // the agate binary, absolute
	Work     string   // the work folder (--work), absolute: writable unless ReadOnly
	ReadOnly bool     // --read-only: nothing writable but a private /tmp (and Writable)
	Writable []string // more writable paths (--rw)
	Cwd      string   // where the command starts (--cwd), absolute; "" for Work
	Cache    string   // the toolchains' cache (--cache), absolute; "" for none
	Config   string   // a config file to pass on with --config; "" for the default
	// Strict passes --strict: the profile is the command line's alone,
	// fail-closed, in the OS's own sandbox only.
	Strict bool
	// Net passes --net: the network open (a call a person allowed so).
	Net bool
	// What the person's config adds to the built-in lists, passed on so
	// that the runner reads no config: --protect ([auto] protected_paths),
	// --hide ([auto] secret_paths), --scrub-env (the variables [secrets]
	// names).
	Protected, Secrets, SecretEnv []string
}

// Shell rewrites the tool_input of an allowed shell call (one Rewrites
// names) so that its command runs confined:
//
//	BIN sandbox [--strict] [--config FILE] --work DIR [--read-only] [--net] [--cwd DIR] [--cache DIR]
//	    [--rw PATH]... [--protect PATTERN]... [--hide PATTERN]... [--scrub-env NAME]... -- bash -c 'COMMAND'
//
// Every other field of input (description, timeout, run_in_background,
// dir_path, ...) is kept as it was, in its place, because Claude Code's
// updatedInput replaces the whole input (Gemini CLI merges it, or builds
// the call from it alone). Every word is quoted for bash, the shell both
// run the command in.
func Shell(input []byte, s Sandbox) ([]byte, error) {
	if s.Bin == "" || !filepath.IsAbs(s.Bin) {
		return nil, fmt.Errorf("sandbox the command: the agate binary %q is not an absolute path", s.Bin)
	}
	if s.Work == "" || !filepath.IsAbs(s.Work) {
		return nil, fmt.Errorf("sandbox the command: the work folder %q is not an absolute path", s.Work)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil {
		return nil, fmt.Errorf("sandbox the command: tool_input: %w", hookjson.PositionErr(input, err))
	}
	var cmd string
	if raw, ok := fields["command"]; !ok || json.Unmarshal(raw, &cmd) != nil {
		return nil, errors.New("sandbox the command: tool_input has no command string")
	}
	if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
		return nil, fmt.Errorf("sandbox the command: the start folder %q is not an absolute path", s.Cwd)
	}
	words := []string{s.Bin, "sandbox"}
	if s.Strict {
		words = append(words, "--strict")
	}
	if s.Config != "" {
		words = append(words, "--config", s.Config)
	}
	words = append(words, "--work", s.Work)
	if s.ReadOnly {
		words = append(words, "--read-only")
	}
	if s.Net {
		words = append(words, "--net")
	}
	if s.Cwd != "" && s.Cwd != s.Work {
		words = append(words, "--cwd", s.Cwd)
	}
	if s.Cache != "" {
		if !filepath.IsAbs(s.Cache) {
			return nil, fmt.Errorf("sandbox the command: the cache %q is not an absolute path", s.Cache)
		}
		words = append(words, "--cache", s.Cache)
	}
	for _, list := range []struct {
		flag string
		vals []string
	}{{"--rw", s.Writable}, {"--protect", s.Protected}, {"--hide", s.Secrets}, {"--scrub-env", s.SecretEnv}} {
		for _, v := range list.vals {
			if v != "" {
				words = append(words, list.flag, v)
			}
		}
	}
	words = append(words, "--", "bash", "-c", cmd)
	line, err := shellquote.Join(words)
	if err != nil {
		return nil, fmt.Errorf("sandbox the command: %w", err)
	}
	return replaceMember(input, "command", hookjson.Must(line))
}

// replaceMember returns the JSON object data, compacted, with the value
// of its member key (the last, if it is written twice) replaced by
// value; every other member stays as written, in its place. The hook
// binary runs this on each confined call: it splices at the offsets
// encoding/json reports, and links no JSON editor.
func replaceMember(data []byte, key string, value []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	start, end := -1, -1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, hookjson.PositionErr(data, err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, hookjson.PositionErr(data, err)
		}
		if tok == key {
			end = int(dec.InputOffset())
			start = end - len(v)
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no member %q", key)
	}
	var b bytes.Buffer
	spliced := append(append(append([]byte(nil), data[:start]...), value...), data[end:]...)
	if err := json.Compact(&b, spliced); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
