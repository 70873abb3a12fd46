package hooks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agatehq/agate/policy/shellquote"
)

// Command returns the command line that runs agate's hook for agent:
// "BIN hook AGENT", with BIN quoted for the shell the agents run it with.
func Command(bin, agent string) (string, error) { return CommandWith(bin, agent, CommandOptions{}) }

// CommandOptions are the flags an installed hook command carries.
type CommandOptions struct {
	// AgentTimeout is the agent's own timeout for the hook
	// (--agent-timeout), so the hook answers, and blocks if it must,
	// before the agent kills it: an agent that kills a hook may let the
	// call through.
	AgentTimeout time.Duration
	// Socket and Config are the daemon's socket and agate's config
	// (--socket, --config), absolute, for an agent that runs its hooks
	// with an environment of its own choosing (Gemini CLI strips it to a
	// short list in CI), where the hook could not find them.
	Socket, Config string
}

// CommandWith returns "BIN hook AGENT" with the flags o asks for, each
// word quoted for the shell.
func CommandWith(bin, agent string, o CommandOptions) (string, error) {
	if !Known(agent) {
		return "", fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(Agents(), ", "))
	}
	if bin == "" {
		return "", errors.New("no agate binary")
	}
	q, err := shellquote.QuotePOSIX(bin)
	if err != nil {
		return "", fmt.Errorf("agate binary %q: %w", bin, err)
	}
	c := q + " hook " + agent
	if o.AgentTimeout > 0 {
		c += fmt.Sprintf(" --agent-timeout %ds", int((o.AgentTimeout+time.Second-1)/time.Second))
	}
	for _, f := range []struct{ flag, path string }{{"--socket", o.Socket}, {"--config", o.Config}} {
		if f.path == "" {
			continue
		}
		if !isAbs(f.path) {
			return "", fmt.Errorf("%s %q is not an absolute path", f.flag, f.path)
		}
		q, err := shellquote.QuotePOSIX(f.path)
		if err != nil {
			return "", fmt.Errorf("%s %q: %w", f.flag, f.path, err)
		}
		c += " " + f.flag + " " + q
	}
	return c, nil
}

// isAbs reports whether p is absolute, in POSIX or Windows form.
func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) ||
		len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// CommandWithTimeout is Command with the agent's own timeout for the hook
// passed on ("--agent-timeout 135s").
func CommandWithTimeout(bin, agent string, agentTimeout time.Duration) (string, error) {
	return CommandWith(bin, agent, CommandOptions{AgentTimeout: agentTimeout})
}

// ParseCommand reports whether cmd is agate's hook for agent: one program
// whose base name is agate, agate-cli or agate-hook, then "hook AGENT",
// then only the flags CommandWith writes (--agent-timeout, --socket,
// --config, each with its value). It returns the program's path,
// unquoted.
func ParseCommand(cmd, agent string) (bin string, ok bool) {
	hc, ok := ParseCommandWith(cmd, agent)
	return hc.Bin, ok
}

// HookCommand is an installed hook command, read back.
type HookCommand struct {
	Bin string // the program, unquoted
	CommandOptions
}

// ParseCommandWith is ParseCommand, with the flags the command carries.
func ParseCommandWith(cmd, agent string) (HookCommand, bool) {
	var hc HookCommand
	words, ok := splitWords(cmd)
	if !ok || len(words) < 3 || words[1] != "hook" || words[2] != agent || words[0] == "" {
		return hc, false
	}
	prog := words[0]
	base := prog[strings.LastIndexAny(prog, `/\`)+1:]
	base = strings.TrimSuffix(base, ".exe")
	if base != "agate" && base != "agate-cli" && base != "agate-hook" {
		return hc, false
	}
	hc.Bin = prog
	seen := map[string]bool{}
	for rest := words[3:]; len(rest) > 0; {
		flag := strings.TrimPrefix(rest[0], "--")
		if flag == rest[0] || seen[flag] || len(rest) < 2 {
			return HookCommand{}, false
		}
		seen[flag] = true
		value := rest[1]
		rest = rest[2:]
		switch flag {
		case "agent-timeout":
			d, err := time.ParseDuration(value)
			if err != nil {
				return HookCommand{}, false
			}
			hc.AgentTimeout = d
		case "socket":
			hc.Socket = value
		case "config":
			hc.Config = value
		default:
			return HookCommand{}, false
		}
	}
	return hc, true
}

// splitWords splits s into POSIX shell words at unquoted blanks, each
// read by shellWord; ok is false when any word is not one it accepts, or
// a quote is left open.
func splitWords(s string) ([]string, bool) {
	var words []string
	start, quote := -1, byte(0)
	for i := 0; i <= len(s); i++ {
		if i == len(s) {
			if quote != 0 {
				return nil, false
			}
			break
		}
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
			continue
		case quote == '"':
			if c == '\\' {
				i++
			} else if c == '"' {
				quote = 0
			}
			continue
		case c == ' ' || c == '\t':
			if start >= 0 {
				w, ok := shellWord(s[start:i])
				if !ok {
					return nil, false
				}
				words = append(words, w)
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
		switch c {
		case '\'', '"':
			quote = c
		case '\\':
			i++
		}
	}
	if start >= 0 {
		w, ok := shellWord(s[start:])
		if !ok {
			return nil, false
		}
		words = append(words, w)
	}
	return words, true
}

// shellWord unquotes s if it is exactly one POSIX shell word made of bare,
// '...' and "..." parts; ok is false for anything else (several words,
// expansions, an open quote).
func shellWord(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch s[i] {
				case '$', '`':
					return "", false
				case '\\':
					if i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
						i++
					}
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return "", false
			}
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			i++
			b.WriteByte(s[i])
		case ' ', '\t', '\n', '$', '`', ';', '&', '|', '<', '>', '(', ')', '*', '?', '[', '~', '{', '#', '=':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
