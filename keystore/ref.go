package keystore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// The kinds of reference.
const (
	RefEnv      = "env"      // ${VAR}: an environment variable, read at use time
	RefExec     = "exec"     // exec:COMMAND: a command that prints the secret
	RefFile     = "file"     // file:/path: a mounted secret file
	RefKeystore = "keystore" // keystore:NAME: a sealed secret in the key store
)

// Ref is a parsed reference to a secret.
type Ref struct {
	Kind string   // RefEnv, RefExec, RefFile or RefKeystore
	Arg  string   // the variable name, command line, path or entry name
	Argv []string // for RefExec: the command split into words
}

// String describes the reference without giving away more than it must:
// the variable, path or entry name in full, but of a command only its
// program ("exec:op"), since a command line may carry a credential of its
// own. Errors and reports use it.
func (r Ref) String() string {
	switch r.Kind {
	case RefEnv:
		return "${" + r.Arg + "}"
	case RefExec:
		if len(r.Argv) > 0 {
			return "exec:" + filepath.Base(r.Argv[0])
		}
		return "exec:"
	}
	return r.Kind + ":" + r.Arg
}

// IsReference reports whether s is written as a reference rather than as
// a literal value: it starts with "${", "exec:", "file:" or "keystore:".
// It does not say the reference is well formed; ParseRef does.
func IsReference(s string) bool {
	return strings.HasPrefix(s, "${") || strings.HasPrefix(s, "exec:") ||
		strings.HasPrefix(s, "file:") || strings.HasPrefix(s, "keystore:")
}

// ParseRef parses a reference:
//
//	${VAR}          the environment variable VAR, read at each use (the
//	                whole string; there is no interpolation inside text)
//	exec:COMMAND    run COMMAND; its standard output, trimmed, is the secret
//	file:/PATH      read the file at the absolute PATH, trimmed
//	keystore:NAME   open the sealed secret NAME
//
// COMMAND is split into words like a shell would split a simple command,
// without running a shell: words are separated by blanks, quoted with '…'
// or "…", and a backslash escapes the next character; there is no $
// expansion, globbing, pipe or redirection. For those, write
// exec:sh -c '…'. It fails with ErrBadReference.
func ParseRef(s string) (Ref, error) {
	bad := func(format string, args ...any) (Ref, error) {
		return Ref{}, fmt.Errorf("%w: %s", ErrBadReference, fmt.Sprintf(format, args...))
	}
	switch {
	case strings.HasPrefix(s, "${"):
		if !strings.HasSuffix(s, "}") {
			return bad("${VAR} must be the whole value, with its closing brace")
		}
		name := s[2 : len(s)-1]
		if !validEnvName(name) {
			return bad("%q is not a variable name", name)
		}
		return Ref{Kind: RefEnv, Arg: name}, nil
	case strings.HasPrefix(s, "exec:"):
		line := s[len("exec:"):]
		argv, err := splitWords(line)
		if err != nil {
			return bad("exec: %v", err)
		}
		if len(argv) == 0 {
			return bad("exec: no command")
		}
		return Ref{Kind: RefExec, Arg: line, Argv: argv}, nil
	case strings.HasPrefix(s, "file:"):
		p := s[len("file:"):]
		if !filepath.IsAbs(p) {
			return bad("file: wants an absolute path")
		}
		return Ref{Kind: RefFile, Arg: filepath.Clean(p)}, nil
	case strings.HasPrefix(s, "keystore:"):
		name := s[len("keystore:"):]
		if err := checkName(name); err != nil {
			return bad("keystore: %v", err)
		}
		return Ref{Kind: RefKeystore, Arg: name}, nil
	}
	return bad("not a reference (want ${VAR}, exec:COMMAND, file:/PATH or keystore:NAME)")
}

// CheckField checks a config value that holds a secret. An empty value is
// not configured and fine; a reference must parse (err otherwise). A
// literal secret is refused (err) in a sealed field, one that must not
// sit in a file in the clear, and warned about elsewhere. Neither message
// quotes the value, only Mask of it.
func CheckField(value string, sealed bool) (warning string, err error) {
	if value == "" {
		return "", nil
	}
	if IsReference(value) {
		_, err := ParseRef(value)
		return "", err
	}
	hint := "put it in the key store (agate keys set NAME) and write keystore:NAME, or write ${VAR}, exec:COMMAND or file:/PATH"
	if len(value) > 1 && value[0] == '$' && validEnvName(value[1:]) {
		hint = "to read the variable, write ${" + value[1:] + "}"
	}
	if sealed {
		return "", fmt.Errorf("a secret written in the clear (%s) is not allowed here: %s", Mask(value), hint)
	}
	return fmt.Sprintf("a secret is written in the clear (%s): anyone who reads the config reads it; %s", Mask(value), hint), nil
}

// validEnvName accepts a variable name: a letter or '_', then letters,
// digits and '_'.
func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// splitWords splits a command line into words: blanks (space, tab,
// newline) separate words; '…' quotes literally; "…" quotes with a
// backslash escaping '"', '\', '$' and '`'; a backslash outside quotes
// escapes the next character. Nothing is expanded.
func splitWords(s string) ([]string, error) {
	var (
		words []string
		w     strings.Builder
		in    bool // inside a word (possibly an empty quoted one)
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '"':
			in = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated \" quote")
			}
		case '\\':
			in = true
			if i+1 >= len(s) {
				return nil, errors.New("backslash at the end")
			}
			i++
			w.WriteByte(s[i])
		default:
			in = true
			w.WriteByte(c)
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
