package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/settings/codexconfig"
	"github.com/agatehq/agate/app/hooks/settings/codexrules"
	"github.com/agatehq/agate/app/hooks/settings/settingsjson"
)

// Codex CLI keeps its hooks in config.toml ($CODEX_HOME, ~/.codex by
// default, or a project's .codex folder), and runs one only once it is
// trusted: the user's config.toml records a hash per hook. Install writes
// both, through package codexconfig.

// CodexHome is Codex's folder: $CODEX_HOME, else ~/.codex.
func CodexHome() (string, error) {
	if d := os.Getenv("CODEX_HOME"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("CODEX_HOME %q: %w", d, err)
		}
		return abs, nil
	}
	home, err := api.HomeDir()
	if err != nil {
		return "", fmt.Errorf("find Codex's folder: %w", err)
	}
	return filepath.Join(home, ".codex"), nil
}

// codexSource is the path Codex keys the hooks of the config.toml at
// path by: its folder with symlinks resolved (Codex canonicalizes
// CODEX_HOME), then the file's name. The folder is created when missing.
func codexSource(path string) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("codex folder: %w", err)
	}
	return resolvedSource(path)
}

// resolvedSource is codexSource for a folder that is there; a missing
// folder is left as written.
func resolvedSource(path string) (string, error) {
	dir := filepath.Dir(path)
	real, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	return filepath.Join(real, filepath.Base(path)), nil
}

// codexSeconds is a hook timeout in Codex's unit, rounded up.
func codexSeconds(d time.Duration) int { return int((d + time.Second - 1) / time.Second) }

// installCodex writes agate's hooks into a Codex config.toml, and their
// trust into the user's config.toml (the same file, or the user's when
// path is a project's).
//
// Then it writes agate's exec-policy rules (package codexrules) from
// hardDeny and agate's guardrails into Codex's rules folder: Codex holds
// to them even with its hooks off.
func installCodex(path, bin string, timeout time.Duration, hardDeny []string) (Edit, error) {
	cmd, err := hooks.CommandWith(bin, hooks.Codex, hooks.CommandOptions{AgentTimeout: timeout})
	if err != nil {
		return Edit{File: path}, err
	}
	source, err := codexSource(path)
	if err != nil {
		return Edit{File: path}, err
	}
	user := IsUser(hooks.Codex, path)
	var (
		states []codexconfig.State
		before []string // the keys of agate's hooks before
	)
	edit, err := editFile(path, func(data []byte) ([]byte, bool, error) {
		before = nil
		if data != nil {
			var err error
			if before, err = codexconfig.Keys(data, source); err != nil {
				return nil, false, err
			}
		}
		out, st, err := codexconfig.Install(data, source, cmd, codexSeconds(timeout), user)
		if err != nil {
			return nil, false, err
		}
		states = st
		return out, !bytes.Equal(out, data), nil
	})
	if err != nil {
		return edit, err
	}
	if !user {
		userPath, err := Path(hooks.Codex, "")
		if err != nil {
			return edit, err
		}
		tedit, err := editFile(userPath, func(data []byte) ([]byte, bool, error) {
			out, err := codexconfig.InstallTrust(data, source, states, before)
			if err != nil {
				return nil, false, err
			}
			return out, !bytes.Equal(out, data), nil
		})
		if err != nil {
			return edit, fmt.Errorf("record the hooks' trust: %w", err)
		}
		edit.Changed = edit.Changed || tedit.Changed
		edit.Trust, edit.TrustBackup = userPath, tedit.Backup
	}
	home, err := CodexHome()
	if err != nil {
		return edit, err
	}
	rs := codexrules.FromConfig(hardDeny)
	edit.Rules, edit.Exported, edit.Skipped = codexrules.Path(home), len(rs.Rules), len(rs.Skipped)
	if edit.RulesChanged, err = codexrules.Write(edit.Rules, codexrules.Render(rs)); err != nil {
		return edit, fmt.Errorf("agate's Codex rules: %w", err)
	}
	edit.Changed = edit.Changed || edit.RulesChanged
	return edit, nil
}

// uninstallCodex removes agate's hooks from a Codex config.toml, and
// their trust from the user's; from the user's file, agate's Codex rules
// go too.
func uninstallCodex(path string) (Edit, error) {
	source, err := resolvedSource(path)
	if err != nil {
		return Edit{File: path}, err
	}
	var keys []string
	edit, err := editFile(path, func(data []byte) ([]byte, bool, error) {
		if data == nil {
			return nil, false, nil
		}
		var err error
		if keys, err = codexconfig.Keys(data, source); err != nil {
			return nil, false, err
		}
		return codexconfig.Uninstall(data, source)
	})
	if err != nil {
		return edit, err
	}
	if IsUser(hooks.Codex, path) {
		home, err := CodexHome()
		if err != nil {
			return edit, err
		}
		rules := codexrules.Path(home)
		gone, err := codexrules.Remove(rules)
		if gone {
			edit.Rules, edit.Changed = rules, true
		}
		return edit, err
	}
	userPath, err := Path(hooks.Codex, "")
	if err != nil {
		return edit, err
	}
	tedit, err := editFile(userPath, func(data []byte) ([]byte, bool, error) {
		if data == nil {
			return nil, false, nil
		}
		return codexconfig.UninstallTrust(data, source, keys)
	})
	if err != nil {
		return edit, fmt.Errorf("remove the hooks' trust: %w", err)
	}
	edit.Changed = edit.Changed || tedit.Changed
	if tedit.Changed {
		edit.Trust, edit.TrustBackup = userPath, tedit.Backup
	}
	return edit, nil
}

// statusCodex reads agate's hooks in a Codex config.toml and their trust
// in the user's.
func statusCodex(path string) FileStatus {
	st := FileStatus{Agent: hooks.Codex, File: path}
	data, _, err := readFile(path)
	if err != nil {
		st.Err = err
		return st
	}
	st.Exists = data != nil
	userPath, err := Path(hooks.Codex, "")
	if err != nil {
		st.Err = err
		return st
	}
	userData := data
	if !IsUser(hooks.Codex, path) {
		if userData, _, err = readFile(userPath); err != nil {
			st.Err = err
			return st
		}
	}
	if userData == nil {
		userData = []byte{}
	}
	source, err := resolvedSource(path)
	if err != nil {
		st.Err = err
		return st
	}
	cs, err := codexconfig.Inspect(data, source, userData)
	if err != nil {
		st.Err = fmt.Errorf("%s: %w", path, err)
		return st
	}
	for _, e := range cs.Entries {
		st.Entries = append(st.Entries, Entry{
			Entry:      settingsjson.Entry{Event: e.Event, Matcher: e.Matcher, Command: e.Command, Bin: e.Bin, Timeout: fmt.Sprint(e.Timeout)},
			BinProblem: binProblem(e.Bin),
			Trust:      string(e.Trust),
		})
	}
	for _, m := range cs.Missing {
		st.Missing = append(st.Missing, settingsjson.Hook{Event: m.Event, Matcher: m.Matcher})
	}
	st.HooksOff = cs.HooksOff
	if project := filepath.Dir(filepath.Dir(path)); st.HooksOff == "" && !IsUser(hooks.Codex, path) && len(cs.Entries) > 0 &&
		!codexconfig.ProjectTrusted(userData, project) {
		st.HooksOff = fmt.Sprintf("Codex reads a project's config only when the project is trusted: [projects.%q] trust_level = \"trusted\"", project)
	}
	if home, err := CodexHome(); err == nil && codexrules.Installed(codexrules.Path(home)) {
		st.CodexRules = codexrules.Path(home)
	}
	return st
}
