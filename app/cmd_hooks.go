package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/hook"
)

func init() {
	register(&command{
		name:    "hooks",
		args:    "install claude-code|gemini|cursor [--project DIR] [--bin PATH] | uninstall AGENT [--project DIR] | status [--project DIR]",
		summary: "install, remove or check agate's hooks in Claude Code, Gemini CLI and Cursor",
		run:     cmdHooks,
	})
}

// hookTimeoutMargin is how much longer than [approvals] timeout an agent
// lets agate's hook run: the daemon answers (or denies) first.
const hookTimeoutMargin = 15 * time.Second

// maxHookSettingsSize bounds an agent's settings file agate will edit.
const maxHookSettingsSize = 8 << 20

// HookTimeout is the hook timeout agate installs for an [approvals]
// timeout.
func HookTimeout(approvals time.Duration) time.Duration { return approvals + hookTimeoutMargin }

func cmdHooks(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "hooks")
	var cf configFlags
	cf.add(fs)
	project := fs.String("project", "", "the project `dir` whose settings to change or check (default: your user settings)")
	bin := fs.String("bin", "", "with install: the agate `binary` the hooks run, absolute (default: agate-cli beside this binary, else this binary)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return usagef("want install, uninstall or status")
	}
	if *project != "" {
		if *project, err = hookProjectDir(*project); err != nil {
			return usageErr(err)
		}
	}
	if *bin != "" && pos[0] != "install" {
		return usagef("--bin goes with install")
	}
	switch verb := pos[0]; verb {
	case "install", "uninstall":
		if len(pos) != 2 || !hook.Known(pos[1]) {
			return usagef("hooks %s takes one agent: %s", verb, strings.Join(hook.Agents(), ", "))
		}
		agent := pos[1]
		file, err := HookSettingsPath(agent, *project)
		if err != nil {
			return err
		}
		if verb == "uninstall" {
			edit, err := UninstallHooks(agent, file)
			if err != nil {
				return err
			}
			if !edit.Changed {
				fmt.Fprintf(e.Stdout, "no agate hooks for %s in %s\n", agent, file)
				return nil
			}
			if edit.Backup != "" {
				fmt.Fprintf(e.Stdout, "removed agate's %s hooks from %s (backup: %s)\n", agent, file, edit.Backup)
			}
			if edit.Policy != "" {
				fmt.Fprintf(e.Stdout, "removed agate's Gemini CLI policy %s: Gemini asks on its own again\n", edit.Policy)
			}
			return nil
		}
		return hooksInstall(e, cf, agent, file, *bin)
	case "status":
		if len(pos) != 1 {
			return usagef("hooks status takes no arguments")
		}
		return hooksStatus(e, *project)
	default:
		return usagef("unknown hooks command %q (want install, uninstall or status)", verb)
	}
}

func hooksInstall(e *Env, cf configFlags, agent, file, bin string) error {
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	cfg, err := loadConfig(paths)
	if err != nil {
		return usageErr(fmt.Errorf("the hook timeout comes from [approvals] timeout: %w", err))
	}
	if bin == "" {
		if bin, err = HookBinary(); err != nil {
			return err
		}
	} else if !filepath.IsAbs(bin) {
		return usagef("--bin %s is not an absolute path", bin)
	}
	edit, err := InstallHooksWith(agent, file, bin, HookTimeout(cfg.ApprovalTimeout()),
		HookInstallOptions{Socket: paths.Socket, Config: paths.Config, User: isUserHookSettings(agent, file)})
	if err != nil {
		return err
	}
	switch {
	case !edit.Changed:
		fmt.Fprintf(e.Stdout, "agate's %s hooks are already in %s\n", agent, file)
	case edit.Backup != "":
		fmt.Fprintf(e.Stdout, "installed agate's %s hooks in %s, running %s (backup: %s)\n", agent, file, bin, edit.Backup)
	default:
		fmt.Fprintf(e.Stdout, "installed agate's %s hooks in %s, running %s\n", agent, file, bin)
	}
	switch agent {
	case hook.Gemini:
		if edit.Policy != "" {
			fmt.Fprintf(e.Stdout, "Gemini CLI leaves each tool call to agate and does not ask again (policy %s).\n", edit.Policy)
		} else {
			fmt.Fprintln(e.Stdout, "Gemini CLI reads policies only from ~/.gemini/policies: with hooks in a project it still asks after agate allows (install them for your user to make agate the one prompt).")
		}
		if off := HookStatus(agent, file).HooksOff; off != "" {
			fmt.Fprintf(e.Stdout, "WARNING: Gemini CLI does not run agate's hooks from %s (%s): turn them back on (/hooks panel), or Gemini runs every call unasked.\n", file, off)
		} else {
			fmt.Fprintln(e.Stdout, "Gemini CLI runs hooks only where they are enabled in its settings; check with /hooks panel.")
		}
	case hook.Cursor:
		fmt.Fprintln(e.Stdout, "Restart Cursor for the hooks to take effect.")
	}
	return nil
}

// hookProjectDir checks a --project folder and makes it absolute.
func hookProjectDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("project %q: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("project: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("project %s is not a folder", abs)
	}
	return abs, nil
}

// HookSettingsPath returns the settings file that holds agent's hooks: the
// user's (project ""), or the project's in the folder project:
//
//	claude-code  ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json)  PROJECT/.claude/settings.json
//	gemini       ~/.gemini/settings.json                                     PROJECT/.gemini/settings.json
//	cursor       ~/.cursor/hooks.json                                        PROJECT/.cursor/hooks.json
func HookSettingsPath(agent, project string) (string, error) {
	var dir, name string
	switch agent {
	case hook.ClaudeCode:
		dir, name = ".claude", "settings.json"
	case hook.Gemini:
		dir, name = ".gemini", "settings.json"
	case hook.Cursor:
		dir, name = ".cursor", "hooks.json"
	default:
		return "", fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(hook.Agents(), ", "))
	}
	if project != "" {
		abs, err := filepath.Abs(project)
		if err != nil {
			return "", fmt.Errorf("project %q: %w", project, err)
		}
		return filepath.Join(abs, dir, name), nil
	}
	if agent == hook.ClaudeCode {
		if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			abs, err := filepath.Abs(d)
			if err != nil {
				return "", fmt.Errorf("CLAUDE_CONFIG_DIR %q: %w", d, err)
			}
			return filepath.Join(abs, name), nil
		}
	}
	home, err := homeDir()
	if err != nil {
		return "", fmt.Errorf("find the %s settings: %w", agent, err)
	}
	return filepath.Join(home, dir, name), nil
}

// HookBinary is the program the hooks run: agate-hook beside the running
// binary when there is one (it links only what a hook needs and starts
// fastest), else agate-cli (the build without the GUI), else the running
// binary itself.
func HookBinary() (string, error) {
	if p, ok := api.SiblingBinary("agate-hook", "agate-cli"); ok {
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find agate's binary: %w", err)
	}
	return exe, nil
}

// HookEdit says what InstallHooks or UninstallHooks did to a settings
// file.
type HookEdit struct {
	File    string // the settings file
	Changed bool   // false: it already said so, and was not written
	Backup  string // the copy of the file as it was, "" when there was no file
	// Policy is agate's Gemini CLI policy file, written by install or
	// removed by uninstall ("" when there is none).
	Policy string
}

// HookInstallOptions are what InstallHooksWith writes beyond the hooks
// themselves.
type HookInstallOptions struct {
	// Socket and Config are the daemon's socket and agate's config,
	// written into the command of the agents that run hooks with an
	// environment of their own (Gemini CLI: it strips XDG_RUNTIME_DIR and
	// AGATE_* in CI), so the hook finds the daemon without them.
	Socket, Config string
	// User says the settings file is the user's (not a project's): for
	// Gemini CLI, agate's policy is installed beside it, which Gemini
	// reads only there.
	User bool
}

// isUserHookSettings reports whether file is agent's user settings file.
func isUserHookSettings(agent, file string) bool {
	user, err := HookSettingsPath(agent, "")
	return err == nil && filepath.Clean(user) == filepath.Clean(file)
}

// InstallHooks writes agate's hooks for agent into the settings file, to
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
// policy is installed too (see InstallHooksWith).
func InstallHooks(agent, settingsPath, bin string, timeout time.Duration) (HookEdit, error) {
	o := HookInstallOptions{User: isUserHookSettings(agent, settingsPath)}
	if p, err := resolvePaths("", ""); err == nil {
		o.Socket, o.Config = p.Socket, p.Config
	}
	return InstallHooksWith(agent, settingsPath, bin, timeout, o)
}

// InstallHooksWith is InstallHooks with the socket and config paths given.
// For Gemini CLI it writes them into the hook's command (--socket,
// --config), and, in the user's settings, writes agate's policy
// (hook.GeminiPolicy) to ~/.gemini/policies/agate.toml, so Gemini does not
// ask again about a call agate has decided. The policy is written after
// the hooks, and only when they are in place.
func InstallHooksWith(agent, settingsPath, bin string, timeout time.Duration, o HookInstallOptions) (HookEdit, error) {
	co := hook.CommandOptions{AgentTimeout: timeout}
	if agent == hook.Gemini {
		co.Socket, co.Config = o.Socket, o.Config
	}
	cmd, err := hook.CommandWith(bin, agent, co)
	if err != nil {
		return HookEdit{File: settingsPath}, err
	}
	edit, err := editHookSettings(settingsPath, func(data []byte) ([]byte, bool, error) {
		return hook.Install(agent, data, cmd, timeout)
	})
	if err != nil || agent != hook.Gemini || !o.User {
		return edit, err
	}
	policy := hook.GeminiPolicyPath(settingsPath)
	if err := writeGeminiPolicy(policy); err != nil {
		return edit, err
	}
	edit.Policy = policy
	return edit, nil
}

// writeGeminiPolicy writes agate's Gemini policy file, unless a file of
// the person's own is in its place.
func writeGeminiPolicy(path string) error {
	want := hook.GeminiPolicy()
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, want):
		return nil
	case err == nil && !hook.IsGeminiPolicy(old):
		return fmt.Errorf("%s is not agate's: not replacing it (move it, then install again)", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("policy folder: %w", err)
	}
	return WriteFileAtomic(path, want, 0o644)
}

// removeGeminiPolicy removes agate's Gemini policy file beside a settings
// file; it reports whether there was one. A file there that agate did not
// write stays.
func removeGeminiPolicy(settingsPath string) (string, error) {
	path := hook.GeminiPolicyPath(settingsPath)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if !hook.IsGeminiPolicy(data) {
		return "", nil
	}
	if err := os.Remove(path); err != nil {
		return "", fmt.Errorf("remove %s: %w", path, err)
	}
	return path, nil
}

// UninstallHooks removes agate's hooks for agent from the settings file
// (every entry whose command is "agate hook AGENT" or "agate-cli hook
// AGENT", by any path), and the matcher groups and events they leave
// empty; the rest stays. It backs the file up first, like InstallHooks. A
// missing file is no change.
//
// For Gemini CLI it also removes agate's policy file beside the settings
// (policies/agate.toml), and only that: the hooks go first, so Gemini is
// never left with the policy and no hook.
func UninstallHooks(agent, settingsPath string) (HookEdit, error) {
	edit, err := editHookSettings(settingsPath, func(data []byte) ([]byte, bool, error) {
		if data == nil {
			return nil, false, nil
		}
		return hook.Uninstall(agent, data)
	})
	if err != nil || agent != hook.Gemini {
		return edit, err
	}
	if edit.Policy, err = removeGeminiPolicy(settingsPath); edit.Policy != "" {
		edit.Changed = true
	}
	return edit, err
}

// editHookSettings applies edit to a settings file. A symlinked file is
// edited where it points. If the file changes while agate edits it (the
// agent saving its own settings), agate starts over from the new content.
func editHookSettings(path string, edit func(data []byte) ([]byte, bool, error)) (HookEdit, error) {
	res := HookEdit{File: path}
	target := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		target = r
	}
	for attempt := 0; ; attempt++ {
		data, mode, err := readHookSettings(target)
		if err != nil {
			return res, err
		}
		out, changed, err := edit(data)
		if err != nil {
			return res, fmt.Errorf("%s: %w", path, err)
		}
		if !changed {
			return res, nil
		}
		if now, _, err := readHookSettings(target); err != nil {
			return res, err
		} else if !bytes.Equal(now, data) {
			if attempt < 3 {
				continue // changed under us: edit the new content
			}
			return res, fmt.Errorf("%s keeps changing while agate edits it: try again", path)
		}
		if data != nil {
			if res.Backup, err = backupFile(target, data, mode); err != nil {
				return res, err
			}
		}
		if err := WriteFileAtomic(target, out, mode); err != nil {
			return res, err
		}
		res.Changed = true
		return res, nil
	}
}

// readHookSettings reads a settings file and its mode; a missing file is nil
// data and mode 0644.
func readHookSettings(path string) ([]byte, os.FileMode, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxHookSettingsSize+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxHookSettingsSize {
		return nil, 0, fmt.Errorf("%s is larger than %d MiB: not editing it", path, maxHookSettingsSize>>20)
	}
	if data == nil {
		data = []byte{}
	}
	return data, st.Mode().Perm(), nil
}

// backupFile writes data to PATH.agate-backup-YYYYMMDD-HHMMSS (with -2,
// -3, ... if that exists), with mode, and returns its name.
func backupFile(path string, data []byte, mode os.FileMode) (string, error) {
	base := path + ".agate-backup-" + time.Now().Format("20060102-150405")
	for i := 1; i < 100; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: too many backups this second", path)
}

// HookFileStatus is what one settings file says about agate's hooks for
// one agent.
type HookFileStatus struct {
	Agent   string
	File    string
	Exists  bool
	Err     error       // the file could not be read, or is not valid JSON
	Entries []HookEntry // agate's hooks in the file, in its order
	Missing []hook.Hook // hooks `agate hooks install` writes that are not there
	// GeminiPolicy is agate's Gemini CLI policy file beside the settings,
	// "" when there is none (or the agent is not Gemini CLI).
	GeminiPolicy string
	// HooksOff says why the agent would not run agate's hooks from this
	// file even though they are there ("" when nothing turns them off).
	HooksOff string
}

// Installed reports whether every hook agate installs is there (whether
// or not the agent has them switched off: see HooksOff).
func (s *HookFileStatus) Installed() bool {
	return s.Err == nil && len(s.Entries) > 0 && len(s.Missing) == 0
}

// HookEntry is one of agate's hooks found in a settings file, and whether
// the binary it runs is usable.
type HookEntry struct {
	hook.Entry
	BinProblem string // "" when the binary exists and is executable; else what is wrong
}

// HookStatus reads a settings file: which of agate's hooks for agent it
// holds, and whether the binaries they run exist and are executable.
func HookStatus(agent, settingsPath string) HookFileStatus {
	st := HookFileStatus{Agent: agent, File: settingsPath}
	data, _, err := readHookSettings(settingsPath)
	if err != nil {
		st.Err = err
		return st
	}
	st.Exists = data != nil
	entries, err := hook.Inspect(agent, data)
	if err != nil {
		st.Err = fmt.Errorf("%s: %w", settingsPath, err)
		return st
	}
	for _, e := range entries {
		st.Entries = append(st.Entries, HookEntry{Entry: e, BinProblem: hookBinProblem(e.Bin)})
	}
	st.Missing = hook.Missing(agent, entries)
	if agent == hook.Gemini {
		st.HooksOff = hook.GeminiHooksOff(data)
		p := hook.GeminiPolicyPath(settingsPath)
		if data, err := os.ReadFile(p); err == nil && hook.IsGeminiPolicy(data) {
			st.GeminiPolicy = p
		}
	}
	return st
}

// hookBinProblem says what keeps bin from running, or "" when nothing does.
// A bare name is looked up on PATH.
func hookBinProblem(bin string) string {
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

// hooksStatus prints, for each agent, the user's settings file and the
// project's (--project, or the current folder).
func hooksStatus(e *Env, project string) error {
	if project == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find the current folder: %w", err)
		}
		project = wd
	}
	for _, agent := range hook.Agents() {
		fmt.Fprintln(e.Stdout, agent)
		for _, scope := range []struct{ name, project string }{{"user", ""}, {"project", project}} {
			file, err := HookSettingsPath(agent, scope.project)
			if err != nil {
				fmt.Fprintf(e.Stdout, "  %-8s %v\n", scope.name, err)
				continue
			}
			printHookFileStatus(e.Stdout, scope.name, HookStatus(agent, file))
		}
	}
	return nil
}

func printHookFileStatus(w io.Writer, scope string, st HookFileStatus) {
	defer func() {
		switch {
		case st.HooksOff != "" && st.GeminiPolicy != "":
			fmt.Fprintf(w, "           WARNING: Gemini CLI does not run agate's hooks (%s), and agate's policy %s lets every call run unasked: turn the hooks back on, or `agate hooks uninstall gemini`\n", st.HooksOff, st.GeminiPolicy)
		case st.HooksOff != "":
			fmt.Fprintf(w, "           Gemini CLI does not run agate's hooks (%s)\n", st.HooksOff)
		case st.GeminiPolicy != "" && st.Installed():
			fmt.Fprintf(w, "           policy %s: Gemini CLI leaves each call to agate's hook, one prompt per call\n", st.GeminiPolicy)
		case st.GeminiPolicy != "":
			fmt.Fprintf(w, "           policy %s: WARNING: Gemini CLI runs calls without asking, and agate's hooks are not all there: run `agate hooks install gemini` (or uninstall)\n", st.GeminiPolicy)
		case st.Agent == hook.Gemini && st.Installed() && scope == "user":
			fmt.Fprintln(w, "           no agate policy: Gemini CLI asks again after agate allows a call (`agate hooks install gemini` adds it)")
		}
	}()
	switch {
	case st.Err != nil:
		fmt.Fprintf(w, "  %-8s %s: cannot read it: %v\n", scope, st.File, st.Err)
		return
	case !st.Exists:
		fmt.Fprintf(w, "  %-8s %s: no file\n", scope, st.File)
		return
	case len(st.Entries) == 0:
		fmt.Fprintf(w, "  %-8s %s: not installed\n", scope, st.File)
		return
	}
	state := "installed"
	if len(st.Missing) > 0 {
		var m []string
		for _, h := range st.Missing {
			m = append(m, hookLabel(h.Event, h.Matcher))
		}
		state = "partly installed (missing " + strings.Join(m, ", ") + ")"
	}
	fmt.Fprintf(w, "  %-8s %s: %s\n", scope, st.File, state)
	for _, en := range st.Entries {
		bin := "ok"
		if en.BinProblem != "" {
			bin = en.BinProblem
		}
		fmt.Fprintf(w, "           %s -> %s (%s)\n", hookLabel(en.Event, en.Matcher), en.Bin, bin)
	}
}

// hookLabel is "Event" or "Event (matcher)".
func hookLabel(event, matcher string) string {
	if matcher == "" {
		return event
	}
	return event + " (" + matcher + ")"
}
