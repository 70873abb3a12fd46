package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/settings/settingsjson"
	"github.com/agatehq/agate/app/osutil"
)

// timeoutMargin is how much longer than [approvals] timeout an agent
// lets agate's hook run: the daemon answers (or denies) first.
const timeoutMargin = 15 * time.Second

// maxSize bounds an agent's settings file agate will edit.
const maxSize = 8 << 20

// Timeout is the hook timeout agate installs for an [approvals]
// timeout.
func Timeout(approvals time.Duration) time.Duration { return approvals + timeoutMargin }

// Path returns the settings file that holds agent's hooks: the
// user's (project ""), or the project's in the folder project:
//
//	claude-code  ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json)  PROJECT/.claude/settings.json
//	gemini       ~/.gemini/settings.json                                     PROJECT/.gemini/settings.json
//	cursor       ~/.cursor/hooks.json                                        PROJECT/.cursor/hooks.json
//	codex        ~/.codex/config.toml ($CODEX_HOME/config.toml)              PROJECT/.codex/config.toml
//	qwen-code    ~/.qwen/settings.json ($QWEN_HOME/settings.json)            PROJECT/.qwen/settings.json
//	copilot      ~/.copilot/hooks/agate.json ($COPILOT_HOME/hooks/...)       PROJECT/.github/hooks/agate.json
//	opencode     ~/.config/opencode/plugin/agate.js ($XDG_CONFIG_HOME)       PROJECT/.opencode/plugin/agate.js
//	claude-compatible   none: ErrNoSettingsFile (the person names the file)
func Path(agent, project string) (string, error) {
	var dir, name string
	switch agent {
	case hooks.ClaudeCode:
		dir, name = ".claude", "settings.json"
	case hooks.Gemini:
		dir, name = ".gemini", "settings.json"
	case hooks.Cursor:
		dir, name = ".cursor", "hooks.json"
	case hooks.Codex:
		dir, name = ".codex", "config.toml"
	case hooks.QwenCode:
		dir, name = ".qwen", "settings.json"
	case hooks.ClaudeCompatible:
		return "", ErrNoSettingsFile
	case hooks.OpenCode:
		// agate's plugin, a file of its own in OpenCode's plugin folder.
		if project != "" {
			abs, err := filepath.Abs(project)
			if err != nil {
				return "", fmt.Errorf("project %q: %w", project, err)
			}
			return filepath.Join(abs, ".opencode", "plugin", "agate.js"), nil
		}
		if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "opencode", "plugin", "agate.js"), nil
		}
		dir, name = filepath.Join(".config", "opencode", "plugin"), "agate.js"
	case hooks.Copilot:
		// A file of agate's own among Copilot's hook files.
		dir, name = filepath.Join(".copilot", "hooks"), "agate.json"
		if project != "" {
			dir = filepath.Join(".github", "hooks")
		}
	default:
		return "", fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(hooks.Agents(), ", "))
	}
	if project != "" {
		abs, err := filepath.Abs(project)
		if err != nil {
			return "", fmt.Errorf("project %q: %w", project, err)
		}
		return filepath.Join(abs, dir, name), nil
	}
	if agent == hooks.Codex {
		home, err := CodexHome()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, name), nil
	}
	for a, v := range map[string]string{hooks.ClaudeCode: "CLAUDE_CONFIG_DIR", hooks.QwenCode: "QWEN_HOME", hooks.Copilot: "COPILOT_HOME"} {
		if d := os.Getenv(v); a == agent && d != "" {
			abs, err := filepath.Abs(d)
			if err != nil {
				return "", fmt.Errorf("%s %q: %w", v, d, err)
			}
			if agent == hooks.Copilot {
				return filepath.Join(abs, "hooks", name), nil
			}
			return filepath.Join(abs, name), nil
		}
	}
	home, err := api.HomeDir()
	if err != nil {
		return "", fmt.Errorf("find the %s settings: %w", agent, err)
	}
	return filepath.Join(home, dir, name), nil
}

// ErrNoSettingsFile is an agent with no settings file of its own
// (claude-compatible): the person names it.
var ErrNoSettingsFile = errors.New("claude-compatible has no settings file of its own: name the one that holds hooks.PreToolUse with --settings FILE")

// Binary is the program the hooks run: agate-hook beside the running
// binary when there is one (it links only what a hook needs and starts
// fastest), else agate-cli (the build without the GUI), else the running
// binary itself.
func Binary() (string, error) {
	if p, ok := api.SiblingBinary("agate-hook", "agate-cli"); ok {
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find agate's binary: %w", err)
	}
	return exe, nil
}

// Edit says what Install or Uninstall did to a settings
// file.
type Edit struct {
	File    string // the settings file
	Changed bool   // false: it already said so, and was not written
	Backup  string // the copy of the file as it was, "" when there was no file
	// Policy is agate's Gemini CLI policy file, written by install or
	// removed by uninstall ("" when there is none).
	Policy string
	// Trust is the user's Codex config.toml when agate recorded (or
	// removed) the trust of hooks it installed in a project's file, and
	// TrustBackup its copy as it was ("" for none).
	Trust, TrustBackup string
	// Rules is agate's Codex exec-policy rules file, written by install
	// or removed by uninstall ("" when none was); RulesChanged says
	// whether install changed it, Exported and Skipped how many rules it
	// holds and how many of agate's entries no rule can say.
	Rules             string
	RulesChanged      bool
	Exported, Skipped int
}

// InstallOptions are what InstallWith writes beyond the hooks
// themselves.
type InstallOptions struct {
	// Socket and Config are the daemon's socket and agate's config,
	// written into the command of the agents that run hooks with an
	// environment of their own (Gemini CLI: it strips XDG_RUNTIME_DIR and
	// AGATE_* in CI), so the hook finds the daemon without them.
	Socket, Config string
	// User says the settings file is the user's (not a project's): for
	// Gemini CLI, agate's policy is installed beside it, which Gemini
	// reads only there.
	User bool
	// HardDeny are agate's [auto] hard_deny entries: for Codex CLI,
	// agate's exec-policy rules ($CODEX_HOME/rules/agate.rules) are
	// written from them and from agate's guardrails.
	HardDeny []string
}

// IsUser reports whether file is agent's user settings file.
func IsUser(agent, file string) bool {
	user, err := Path(agent, "")
	return err == nil && filepath.Clean(user) == filepath.Clean(file) || IsManaged(agent, file)
}

// ManagedPaths are the settings files an administrator installs for every
// user of the machine, by agent: Claude Code's managed settings. Hooks
// written there name no socket or config of their own (each user's hook
// finds that user's daemon), as in a user's own settings.
var ManagedPaths = map[string][]string{
	hooks.ClaudeCode: {"/etc/claude-code/managed-settings.json", "/Library/Application Support/ClaudeCode/managed-settings.json"},
}

// IsManaged reports whether file is one of agent's ManagedPaths.
func IsManaged(agent, file string) bool {
	return slices.Contains(ManagedPaths[agent], filepath.Clean(file))
}

// Install writes agate's hooks for agent into the settings file, to
// run bin and wait up to timeout: the pre-tool event for every tool, the
// post-tool event for tools that bring outside content in, and the
// new-prompt event. Everything else in the file stays as it was, in its
// order; agate's own entries are updated in place and never doubled. The
// file (and its folder) is created when missing; an existing file is
// copied to FILE.agate-backup-YYYYMMDD-HHMMSS first, then replaced
// atomically with its mode kept. A file that is not valid JSON is an
// error naming it and the position, and is left untouched.
//
// For Gemini CLI the command also names the daemon's socket and the config
// as this process finds them, and in the user's settings agate's Gemini
// policy is installed too (see InstallWith).
func Install(agent, settingsPath, bin string, timeout time.Duration) (Edit, error) {
	o := InstallOptions{User: IsUser(agent, settingsPath)}
	if p, err := api.ResolvePaths("", ""); err == nil {
		o.Socket, o.Config = p.Socket, p.Config
	}
	return InstallWith(agent, settingsPath, bin, timeout, o)
}

// InstallWith is Install with the socket and config paths given.
// For Gemini CLI it writes them into the hook's command (--socket,
// --config), and, in the user's settings, writes agate's policy
// (settingsjson.GeminiPolicy) to ~/.gemini/policies/agate.toml, so Gemini does not
// ask again about a call agate has decided. The policy is written after
// the hooks, and only when they are in place.
func InstallWith(agent, settingsPath, bin string, timeout time.Duration, o InstallOptions) (Edit, error) {
	if agent == hooks.Codex {
		return installCodex(settingsPath, bin, timeout, o.HardDeny)
	}
	if agent == hooks.OpenCode {
		return installOpenCode(settingsPath, bin, timeout)
	}
	co := hooks.CommandOptions{AgentTimeout: timeout}
	if agent == hooks.Gemini || agent == hooks.ClaudeCompatible {
		// (an agent agate does not know may run hooks with an
		// environment of its own, as Gemini CLI does in CI)
		co.Socket, co.Config = o.Socket, o.Config
	}
	cmd, err := hooks.CommandWith(bin, agent, co)
	if err != nil {
		return Edit{File: settingsPath}, err
	}
	managed := IsManaged(agent, settingsPath)
	if managed {
		// Every user's agent reads it: a folder only root may enter is
		// no managed settings at all (Claude Code reads none, silently).
		if err := os.MkdirAll(filepath.Dir(settingsPath), 0o755); err != nil {
			return Edit{File: settingsPath}, err
		}
	}
	edit, err := editFile(settingsPath, func(data []byte) ([]byte, bool, error) {
		return settingsjson.Install(agent, data, cmd, timeout)
	})
	if err == nil && managed {
		err = sharedReadable(settingsPath)
	}
	if err != nil || agent != hooks.Gemini || !o.User {
		return edit, err
	}
	policy := settingsjson.GeminiPolicyPath(settingsPath)
	if err := writeGeminiPolicy(policy); err != nil {
		return edit, err
	}
	edit.Policy = policy
	return edit, nil
}

// sharedReadable makes a managed settings file readable by every user,
// and checks that every user may reach it; it says what to change when
// they may not.
func sharedReadable(path string) error {
	if err := os.Chmod(path, 0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("%s is managed settings every user's agent must read, and %s is closed to them (mode %04o): chmod o+x %s", path, dir, fi.Mode().Perm(), dir)
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}

// writeGeminiPolicy writes agate's Gemini policy file, unless a file of
// the person's own is in its place.
func writeGeminiPolicy(path string) error {
	want := settingsjson.GeminiPolicy()
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, want):
		return nil
	case err == nil && !settingsjson.IsGeminiPolicy(old):
		return fmt.Errorf("%s is not agate's: not replacing it (move it, then install again)", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("policy folder: %w", err)
	}
	return osutil.WriteFile(path, want, 0o644)
}

// removeGeminiPolicy removes agate's Gemini policy file beside a settings
// file; it reports whether there was one. A file there that agate did not
// write stays.
func removeGeminiPolicy(settingsPath string) (string, error) {
	path := settingsjson.GeminiPolicyPath(settingsPath)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if !settingsjson.IsGeminiPolicy(data) {
		return "", nil
	}
	if err := os.Remove(path); err != nil {
		return "", fmt.Errorf("remove %s: %w", path, err)
	}
	return path, nil
}

// Uninstall removes agate's hooks for agent from the settings file
// (every entry whose command is "agate hook AGENT" or "agate-cli hook
// AGENT", by any path), and the matcher groups and events they leave
// empty; the rest stays. It backs the file up first, like Install. A
// missing file is no change.
//
// For Gemini CLI it also removes agate's policy file beside the settings
// (policies/agate.toml), and only that: the hooks go first, so Gemini is
// never left with the policy and no hook.
func Uninstall(agent, settingsPath string) (Edit, error) {
	if agent == hooks.Codex {
		return uninstallCodex(settingsPath)
	}
	if agent == hooks.OpenCode {
		return uninstallOpenCode(settingsPath)
	}
	edit, err := editFile(settingsPath, func(data []byte) ([]byte, bool, error) {
		if data == nil {
			return nil, false, nil
		}
		return settingsjson.Uninstall(agent, data)
	})
	if err != nil || agent != hooks.Gemini {
		return edit, err
	}
	if edit.Policy, err = removeGeminiPolicy(settingsPath); edit.Policy != "" {
		edit.Changed = true
	}
	return edit, err
}

// editFile applies edit to a settings file (osutil.EditFile): a link is
// edited where it points, a file the agent saves meanwhile is edited
// again from its new content, and the old file is backed up.
func editFile(path string, edit func(data []byte) ([]byte, bool, error)) (Edit, error) {
	ed, err := osutil.EditFile(path, maxSize, edit)
	return Edit{File: path, Backup: ed.Backup, Changed: ed.Changed}, err
}

// readFile reads a settings file and its mode; a missing file is nil
// data and mode 0644.
func readFile(path string) ([]byte, os.FileMode, error) { return osutil.ReadRegular(path, maxSize) }

// FileStatus is what one settings file says about agate's hooks for
// one agent.
type FileStatus struct {
	Agent   string
	File    string
	Exists  bool
	Err     error               // the file could not be read, or is not valid JSON
	Entries []Entry             // agate's hooks in the file, in its order
	Missing []settingsjson.Hook // hooks `agate hooks install` writes that are not there
	// GeminiPolicy is agate's Gemini CLI policy file beside the settings,
	// "" when there is none (or the agent is not Gemini CLI).
	GeminiPolicy string
	// HooksOff says why the agent would not run agate's hooks from this
	// file even though they are there ("" when nothing turns them off).
	HooksOff string
	// CodexRules is agate's Codex exec-policy rules file, "" when it is
	// not installed (or the agent is not Codex).
	CodexRules string
}

// Installed reports whether every hook agate installs is there (whether
// or not the agent has them switched off: see HooksOff), and, for Codex,
// trusted.
func (s *FileStatus) Installed() bool {
	if s.Err != nil || len(s.Entries) == 0 || len(s.Missing) > 0 {
		return false
	}
	for _, e := range s.Entries {
		if s.Agent == hooks.Codex && e.Trust != "trusted" {
			return false
		}
	}
	return true
}

// Entry is one of agate's hooks found in a settings file, and whether
// the binary it runs is usable.
type Entry struct {
	settingsjson.Entry
	BinProblem string // "" when the binary exists and is executable; else what is wrong
	// Trust is, for Codex, whether Codex runs the hook: "trusted", "stale
	// hash", "untrusted" or "disabled" ("" for the other agents).
	Trust string
}

// Status reads a settings file: which of agate's hooks for agent it
// holds, and whether the binaries they run exist and are executable.
func Status(agent, settingsPath string) FileStatus {
	if agent == hooks.Codex {
		return statusCodex(settingsPath)
	}
	if agent == hooks.OpenCode {
		return statusOpenCode(settingsPath)
	}
	st := FileStatus{Agent: agent, File: settingsPath}
	data, _, err := readFile(settingsPath)
	if err != nil {
		st.Err = err
		return st
	}
	st.Exists = data != nil
	entries, err := settingsjson.Inspect(agent, data)
	if err != nil {
		st.Err = fmt.Errorf("%s: %w", settingsPath, err)
		return st
	}
	for _, e := range entries {
		st.Entries = append(st.Entries, Entry{Entry: e, BinProblem: binProblem(e.Bin)})
	}
	st.Missing = settingsjson.Missing(agent, entries)
	if agent == hooks.QwenCode {
		st.HooksOff = settingsjson.QwenHooksOff(data, os.Getenv)
	}
	if agent == hooks.Copilot {
		st.HooksOff = copilotHooksOff()
	}
	if agent == hooks.Gemini {
		st.HooksOff = settingsjson.GeminiHooksOff(data)
		p := settingsjson.GeminiPolicyPath(settingsPath)
		if data, err := os.ReadFile(p); err == nil && settingsjson.IsGeminiPolicy(data) {
			st.GeminiPolicy = p
		}
	}
	return st
}

// binProblem says what keeps bin from running, or "" when nothing does.
// A bare name is looked up on PATH.
func binProblem(bin string) string {
	if bin == "" {
		return "no binary"
	}
	if !filepath.IsAbs(bin) && !strings.ContainsAny(bin, `/\`) {
		p, err := exec.LookPath(bin)
		if err != nil {
			return "not found on PATH"
		}
		bin = p
	}
	st, err := os.Stat(bin)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case err != nil:
		return err.Error()
	case !st.Mode().IsRegular():
		return "not a regular file"
	case runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0:
		return "not executable"
	}
	return ""
}

// copilotHooksOff reads the user's Copilot CLI settings for what turns
// every hook off (settingsjson.CopilotHooksOff).
func copilotHooksOff() string {
	user, err := Path(hooks.Copilot, "")
	if err != nil {
		return ""
	}
	home := filepath.Dir(filepath.Dir(user))
	for _, name := range []string{"settings.json", "config.json"} {
		data, _, err := readFile(filepath.Join(home, name))
		if err != nil || data == nil {
			continue
		}
		if off := settingsjson.CopilotHooksOff(data); off != "" {
			return off + " in " + filepath.Join(home, name)
		}
	}
	return ""
}
