package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// pauseFileName is the file in the state folder that remembers the modes
// "Pause all agents" replaced.
const pauseFileName = "pause.json"

// PauseState is what "Pause all agents" remembers: the modes to go back to
// on Resume.
type PauseState struct {
	// Auto is [auto] mode as it was.
	Auto string `json:"auto"`
	// Agents are the [agents.NAME] modes as they were, for the agents that
	// set one (an agent's own mode overrides [auto] mode, so it is paused
	// too).
	Agents map[string]string `json:"agents,omitempty"`
	// Since is when agate was paused.
	Since time.Time `json:"since"`
}

// PauseFile is where the pause is remembered.
func PauseFile(p api.Paths) string { return filepath.Join(p.State, pauseFileName) }

// Pause puts every agent in plan mode (every call that acts is denied)
// until Resume: it remembers [auto] mode and each agent's own mode in the
// state folder, then writes mode = "plan" in their place in config.toml,
// through EditFile. Pausing while paused changes nothing: the modes
// remembered first are kept.
func Pause(p api.Paths, now time.Time) error {
	if _, paused, err := Paused(p); err != nil {
		return err
	} else if paused {
		return nil
	}
	cfg, err := configForEdit(p.Config)
	if err != nil {
		return fmt.Errorf("pause: %w", err)
	}
	st := PauseState{Auto: cfg.Auto.Mode, Since: now.UTC()}
	edits := []Edit{SetKey("auto", "mode", "plan")}
	for _, name := range sortedAgentNames(cfg) {
		if m := cfg.Agents[name].Mode; m != "" {
			if st.Agents == nil {
				st.Agents = map[string]string{}
			}
			st.Agents[name] = m
			edits = append(edits, Edit{Table: []string{"agents", name}, Key: "mode", Value: "plan"})
		}
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("pause: %w", err)
	}
	if err := osutil.MakeDir(p.State, false); err != nil {
		return fmt.Errorf("pause: %w", err)
	}
	if err := osutil.WriteFile(PauseFile(p), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("pause: %w", err)
	}
	if err := EditFile(p.Config, edits...); err != nil {
		os.Remove(PauseFile(p))
		return fmt.Errorf("pause: %w", err)
	}
	return nil
}

// Resume puts back the modes Pause remembered and forgets them. A mode
// changed by hand while paused (no longer "plan") is left as the person
// set it. It returns the [auto] mode in force afterwards; resuming when
// not paused changes nothing.
func Resume(p api.Paths) (string, error) {
	st, found, err := readPause(p)
	if err != nil {
		return "", err
	}
	cfg, err := configForEdit(p.Config)
	if err != nil {
		return "", fmt.Errorf("resume: %w", err)
	}
	if !found {
		return cfg.Auto.Mode, nil
	}
	var edits []Edit
	mode := cfg.Auto.Mode
	if isPlan(cfg.Auto.Mode) && st.Auto != "" {
		edits = append(edits, SetKey("auto", "mode", st.Auto))
		mode = st.Auto
	}
	for _, name := range sortedKeysOf(st.Agents) {
		if a, ok := cfg.Agents[name]; ok && isPlan(a.Mode) {
			edits = append(edits, Edit{Table: []string{"agents", name}, Key: "mode", Value: st.Agents[name]})
		}
	}
	if len(edits) > 0 {
		if err := EditFile(p.Config, edits...); err != nil {
			return "", fmt.Errorf("resume: %w", err)
		}
	}
	if err := ForgetPause(p); err != nil {
		return "", err
	}
	return mode, nil
}

// Paused reports the pause in force. It is not paused when nothing is
// remembered, or when [auto] mode is no longer "plan" (someone changed it
// since: that choice ends the pause).
func Paused(p api.Paths) (PauseState, bool, error) {
	st, found, err := readPause(p)
	if err != nil || !found {
		return st, false, err
	}
	cfg, err := configForEdit(p.Config)
	if err != nil {
		// A broken config: the pause is still what was asked for.
		return st, true, nil
	}
	return st, isPlan(cfg.Auto.Mode), nil
}

// ForgetPause drops what Pause remembered, as when a mode is chosen in the
// tray while paused.
func ForgetPause(p api.Paths) error {
	if err := os.Remove(PauseFile(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget the pause: %w", err)
	}
	return nil
}

func readPause(p api.Paths) (PauseState, bool, error) {
	var st PauseState
	data, err := osutil.ReadPrivate(PauseFile(p), 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("read the pause: %w", err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, false, fmt.Errorf("read the pause: %s: %w", PauseFile(p), err)
	}
	return st, true, nil
}

// configForEdit parses the config file as EditFile sees it.
func configForEdit(path string) (*policy.Config, error) {
	data, _, err := readForEdit(path)
	if err != nil {
		return nil, err
	}
	cfg, err := policy.Parse(path, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBroken, err)
	}
	return cfg, nil
}

func isPlan(mode string) bool {
	m, err := policy.ParseMode(mode)
	return err == nil && m.String() == "plan"
}

func sortedAgentNames(cfg *policy.Config) []string {
	names := make([]string, 0, len(cfg.Agents))
	for n := range cfg.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func sortedKeysOf(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
