// Package profile is the sandbox profile agate confines a command to,
// worked out once for everyone who confines: what stays read-only (agate's
// config folder, the policy's protected paths, [auto] protected_paths),
// what is hidden (agate's state and socket, every secret store that exists:
// the policy's list and [auto] secret_paths) and which variables are
// scrubbed. The daemon's probe, `agate sandbox` and the runner a
// confined call is rewritten to (Strict) all build their options here, so
// what the daemon probed is what a command meets.
//
// It links the sandbox, the API's paths and the policy's lists
// (policy/stores), never the policy engine: agate-hook, which runs every
// confined command, links it.
package profile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy/stores"
	"github.com/agatehq/agate/sandbox"
)

// Extra is what the person's config adds to the built-in lists.
type Extra struct {
	Protected []string // [auto] protected_paths: writes ask, kept read-only
	Secrets   []string // [auto] secret_paths: reads are secret reads, hidden
	SecretEnv []string // the variables [secrets] names: never passed on
}

// Base returns the options for a command whose work dir is work, with
// writable (absolute) writable besides it: the protected, hidden and
// scrubbed lists filled in, nothing else (launcher, network and the rest
// are the caller's). home "" leaves home out of the lists.
func Base(p api.Paths, home, work string, writable []string, x Extra) sandbox.Options {
	protect := expandHome(append(append([]string{p.ConfigDir()}, stores.Protected()...), x.Protected...), home)
	return options(p, home, work, work, writable, x, protect, sandbox.SecretPaths(work, home, SecretPatterns(x)))
}

// options fills in the lists from the protected patterns (names and
// globs looked for at the top of protectWork, "" for none) and the secret
// paths found.
func options(p api.Paths, home, work, protectWork string, writable []string, x Extra, protect, secrets []string) sandbox.Options {
	// The home dir's rc files and the like matter only when a writable
	// path holds the home dir; they are read-only otherwise, and looking
	// for them costs a stat each, on every command.
	protectHome := ""
	for _, w := range append([]string{work}, writable...) {
		if home != "" && holds(w, home) {
			protectHome = home
		}
	}
	hide := []string{p.State, socketHideDir(p)}
	for _, f := range secrets {
		// A template named like a secret (.env.example) is for reading.
		if !stores.Template(filepath.Base(f)) {
			hide = append(hide, f)
		}
	}
	return sandbox.Options{
		WorkDir:   work,
		Writable:  writable,
		Protected: sandbox.DefaultProtected(protectWork, protectHome, protect),
		Hidden:    sandbox.DefaultHidden(home, nil, hide),
		SecretEnv: x.SecretEnv,
	}
}

// expandHome writes the "~/" patterns of list with home: they are where
// they are, whether or not home is writable (one under a writable folder
// stays read-only).
func expandHome(list []string, home string) []string {
	out := slices.Clone(list)
	if home == "" {
		return out
	}
	for i, pat := range out {
		if rest, ok := strings.CutPrefix(pat, "~/"); ok {
			out[i] = filepath.Join(home, rest)
			if strings.HasSuffix(rest, "/") {
				out[i] += "/"
			}
		}
	}
	return out
}

// Strict returns the options of a call the daemon confined to its
// judgment (`agate sandbox --strict`): Base with nothing writable but
// work (unless readOnly) and writable (the judgment's: the confined
// cache, its --rw paths), in the OS's own sandbox only, fail-closed, and
// of home only what sandbox.Options.JudgedHome shows (getenv nil:
// os.Getenv). The caller sets Net and Dir.
//
// It runs for every confined command, so it looks for no more than can
// matter: no secret store in home that JudgedHome hides anyway (or that
// is not there, and cannot be made, home being read-only), no protected
// path outside what is writable (the rest of the disk is read-only).
func Strict(p api.Paths, home, work string, readOnly bool, writable []string, x Extra, getenv func(string) string) sandbox.Options {
	// What the command sees of the disk beyond the rest, read-only: work
	// and the writable paths; what it may write: those, but work when
	// readOnly.
	shown := append([]string{work}, writable...)
	roots, protectWork := shown, work
	if readOnly {
		roots, protectWork = writable, "" // nothing of work to keep read-only: all of it is
	}
	inRoot := func(abs string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return holds(r, abs) })
	}
	inShown := func(abs string) bool {
		return slices.ContainsFunc(shown, func(r string) bool { return holds(r, abs) })
	}
	var protect []string
	for _, pat := range expandHome(append(append([]string{p.ConfigDir()}, stores.Protected()...), x.Protected...), home) {
		if abs, ok := literalPrefix(pat, ""); !ok && !readOnly || ok && (inRoot(abs) || slices.ContainsFunc(roots, func(r string) bool { return holds(abs, r) })) {
			protect = append(protect, pat)
		}
	}
	// The secret stores: names and globs at the top of work (and of home
	// where home shows one), the rest where they are.
	var secrets []string
	for _, pat := range expandHome(SecretPatterns(x), home) {
		abs, ok := literalPrefix(pat, "")
		switch {
		case !ok:
			secrets = append(secrets, pat) // looked for at the top of work
			if home != "" && !inShown(home) && sandbox.HomeShown(pat) {
				secrets = append(secrets, filepath.Join(home, pat)+map[bool]string{true: "/"}[strings.HasSuffix(pat, "/")])
			}
		case home != "" && holds(home, abs) && abs != home && !inShown(abs):
			if sandbox.HomeShown(strings.TrimPrefix(abs, home+"/")) {
				secrets = append(secrets, pat)
			}
		default:
			secrets = append(secrets, pat)
		}
	}
	secretHome := ""
	if inShown(home) {
		secretHome = home // the work dir holds home: its top is looked at as work's
	}
	o := options(p, home, work, protectWork, writable, x, protect, sandbox.SecretPaths(work, secretHome, secrets))
	o.Launcher, o.FailClosed, o.Enabled, o.ReadOnlyWork = sandbox.LauncherKernel, true, true, readOnly
	if getenv == nil {
		getenv = os.Getenv
	}
	o.JudgedHome(home, work, nil, getenv)
	return o
}

// literalPrefix returns the absolute folder or file a "~/" or absolute
// pattern names up to its first glob character, and false for a pattern
// matched anywhere (a name or a relative glob) or "~" without a home.
func literalPrefix(pat, home string) (string, bool) {
	switch {
	case strings.HasPrefix(pat, "~/"):
		if home == "" {
			return "", false
		}
		pat = filepath.Join(home, pat[2:])
	case !filepath.IsAbs(pat):
		return "", false
	}
	if i := strings.IndexAny(pat, "*?[{"); i >= 0 {
		pat = filepath.Dir(pat[:i+1])
	}
	return filepath.Clean(pat), true
}

// SecretPatterns are the paths that hold secrets: the built-in stores
// and x.Secrets.
func SecretPatterns(x Extra) []string {
	var out []string
	for _, st := range stores.Secrets() {
		out = append(out, st.Paths...)
	}
	return append(out, x.Secrets...)
}

// socketHideDir is what to hide so the command cannot reach the daemon: the
// socket's own dir when it is agate's (…/agate/agate.sock, <state>/run),
// else just the socket.
func socketHideDir(p api.Paths) string {
	dir := filepath.Dir(p.Socket)
	if filepath.Base(dir) == "agate" || dir == filepath.Join(p.State, "run") {
		return dir
	}
	return p.Socket
}

// holds reports whether path is dir or lies below it (both clean and
// absolute).
func holds(dir, path string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}
