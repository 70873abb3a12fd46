package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/settings"
	"github.com/agatehq/agate/app/hooks/settings/codexrules"
)

func init() {
	register(&command{
		name:    "hooks",
		args:    "install claude-code|gemini|cursor|codex|qwen-code|copilot|opencode [--project DIR] [--bin PATH] | install claude-compatible --settings FILE | uninstall AGENT [--project DIR|--settings FILE] | status [--project DIR] [--settings FILE]",
		summary: "install, remove or check agate's hooks in Claude Code, Gemini CLI, Cursor, Codex CLI, Qwen Code, Copilot CLI, OpenCode, or any agent in Claude Code's hook protocol",
		run:     cmdHooks,
	})
}

func cmdHooks(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "hooks")
	var cf configFlags
	cf.add(fs)
	project := fs.String("project", "", "the project `dir` whose settings to change or check (default: your user settings)")
	bin := fs.String("bin", "", "with install: the agate `binary` the hooks run, absolute (default: agate-cli beside this binary, else this binary)")
	settingsFile := fs.String("settings", "", "the settings `file` of an agent in Claude Code's hook protocol (claude-compatible): one that holds hooks.PreToolUse; or Claude Code's managed settings (/etc/claude-code/managed-settings.json)")
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
	if *settingsFile != "" {
		if *project != "" {
			return usagef("--settings names the file: --project goes without it")
		}
		abs, err := filepath.Abs(*settingsFile)
		if err != nil {
			return usageErr(fmt.Errorf("--settings %s: %w", *settingsFile, err))
		}
		*settingsFile = abs
	}
	switch verb := pos[0]; verb {
	case "install", "uninstall":
		if len(pos) != 2 || !hooks.Known(pos[1]) {
			return usagef("hooks %s takes one agent: %s", verb, strings.Join(hooks.Agents(), ", "))
		}
		agent := pos[1]
		file := *settingsFile
		switch {
		case file != "" && agent != hooks.ClaudeCompatible && !settings.IsManaged(agent, file):
			return usagef("--settings goes with claude-compatible, or names %s's managed settings (%s has its own file: --project DIR names a project's)", agent, agent)
		case file == "":
			if file, err = settings.Path(agent, *project); err != nil {
				return usageErr(err)
			}
		}
		if verb == "uninstall" {
			edit, err := settings.Uninstall(agent, file)
			if err != nil {
				return err
			}
			if !edit.Changed {
				fmt.Fprintf(e.Stdout, "no agate hooks for %s in %s\n", agent, file)
				return nil
			}
			if edit.Backup != "" {
				fmt.Fprintf(e.Stdout, "removed agate's %s hooks from %s (backup: %s)\n", agent, file, edit.Backup)
			} else if edit.Rules == "" {
				fmt.Fprintf(e.Stdout, "removed agate's %s hooks from %s\n", agent, file)
			}
			if edit.Policy != "" {
				fmt.Fprintf(e.Stdout, "removed agate's Gemini CLI policy %s: Gemini asks on its own again\n", edit.Policy)
			}
			if edit.Trust != "" {
				fmt.Fprintf(e.Stdout, "removed their trust from %s\n", edit.Trust)
			}
			if edit.Rules != "" {
				fmt.Fprintf(e.Stdout, "removed agate's Codex rules %s\n", edit.Rules)
				if paths, err := cf.paths(); err == nil {
					if err := codexrules.Forget(paths.State, edit.Rules); err != nil {
						fmt.Fprintf(e.Stderr, "agate: %v\n", err)
					}
				}
			}
			if agent == hooks.Codex {
				for _, en := range settings.Status(agent, file).Entries {
					fmt.Fprintf(e.Stdout, "WARNING: agate's %s hook is still in %s, outside agate's block (%s): remove it by hand\n", en.Event, file, en.Command)
				}
			}
			return nil
		}
		return hooksInstall(e, cf, agent, file, *bin)
	case "status":
		if len(pos) != 1 {
			return usagef("hooks status takes no arguments")
		}
		if *settingsFile != "" {
			fmt.Fprintln(e.Stdout, hooks.ClaudeCompatible)
			printHookFileStatus(e.Stdout, "file", settings.Status(hooks.ClaudeCompatible, *settingsFile))
			return nil
		}
		return hooksStatus(e, cf, *project)
	default:
		return usagef("unknown hooks command %q (want install, uninstall or status)", verb)
	}
}

func hooksInstall(e *Env, cf configFlags, agent, file, bin string) error {
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	cfg, err := config.Load(paths)
	if err != nil {
		return usageErr(fmt.Errorf("the hook timeout comes from [approvals] timeout: %w", err))
	}
	if bin == "" {
		if bin, err = settings.Binary(); err != nil {
			return err
		}
	} else if !filepath.IsAbs(bin) {
		return usagef("--bin %s is not an absolute path", bin)
	}
	edit, err := settings.InstallWith(agent, file, bin, settings.Timeout(cfg.ApprovalTimeout()),
		settings.InstallOptions{Socket: paths.Socket, Config: paths.Config, User: settings.IsUser(agent, file), HardDeny: cfg.HardDeny()})
	if err != nil {
		return err
	}
	if edit.Rules != "" {
		// The daemon keeps this file in step with the config, whatever
		// CODEX_HOME its own environment names.
		if err := codexrules.Record(paths.State, edit.Rules); err != nil {
			fmt.Fprintf(e.Stderr, "agate: %v: the daemon will not update %s when hard_deny changes\n", err, edit.Rules)
		}
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
	case hooks.Gemini:
		if edit.Policy != "" {
			fmt.Fprintf(e.Stdout, "Gemini CLI leaves each tool call to agate and does not ask again (policy %s).\n", edit.Policy)
		} else {
			fmt.Fprintln(e.Stdout, "Gemini CLI reads policies only from ~/.gemini/policies: with hooks in a project it still asks after agate allows (install them for your user to make agate the one prompt).")
		}
		if off := settings.Status(agent, file).HooksOff; off != "" {
			fmt.Fprintf(e.Stdout, "WARNING: Gemini CLI does not run agate's hooks from %s (%s): turn them back on (/hooks panel), or Gemini runs every call unasked.\n", file, off)
		} else {
			fmt.Fprintln(e.Stdout, "Gemini CLI runs hooks only where they are enabled in its settings; check with /hooks panel.")
		}
	case hooks.QwenCode:
		if off := settings.Status(agent, file).HooksOff; off != "" {
			fmt.Fprintf(e.Stdout, "WARNING: Qwen Code runs no hook here (%s): every call runs with no gate until that is undone.\n", off)
		}
		fmt.Fprintln(e.Stdout, "Qwen Code runs no hook with --safe-mode or --bare (QWEN_CODE_SAFE_MODE, QWEN_CODE_SIMPLE): a call then runs unasked. Project hooks load only in a folder it trusts, when folder trust is on.")
	case hooks.OpenCode:
		if off := settings.Status(agent, file).HooksOff; off != "" {
			fmt.Fprintf(e.Stdout, "WARNING: OpenCode would not run agate's plugin (%s): every call would run with no gate.\n", off)
		}
		fmt.Fprintln(e.Stdout, "OpenCode loads no plugin with --pure or OPENCODE_PURE: a call then runs unasked. Restart OpenCode for the plugin to load.")
	case hooks.Copilot:
		if off := settings.Status(agent, file).HooksOff; off != "" {
			fmt.Fprintf(e.Stdout, "WARNING: Copilot CLI runs no hook (%s): every call runs with no gate until that is undone.\n", off)
		}
		if !settings.IsUser(agent, file) {
			fmt.Fprintln(e.Stdout, "Copilot CLI loads a repository's .github/hooks only in a folder it trusts (in -p: --trust-folder); install for your user to gate every folder.")
		}
	case hooks.Cursor:
		fmt.Fprintln(e.Stdout, "Restart Cursor for the hooks to take effect.")
	case hooks.Codex:
		return codexInstalled(e, cfg, file, edit)
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

// hooksStatus prints, for each agent, the user's settings file and the
// project's (--project, or the current folder).
func hooksStatus(e *Env, cf configFlags, project string) error {
	if project == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find the current folder: %w", err)
		}
		project = wd
	}
	for _, agent := range hooks.Agents() {
		if agent == hooks.ClaudeCompatible {
			continue // (no file of its own: hooks status --settings FILE)
		}
		fmt.Fprintln(e.Stdout, agent)
		for _, scope := range []struct{ name, project string }{{"user", ""}, {"project", project}} {
			file, err := settings.Path(agent, scope.project)
			if err != nil {
				fmt.Fprintf(e.Stdout, "  %-8s %v\n", scope.name, err)
				continue
			}
			printHookFileStatus(e.Stdout, scope.name, settings.Status(agent, file))
		}
		if agent == hooks.Codex {
			printCodexRules(e.Stdout, cf)
		}
	}
	return nil
}

func printHookFileStatus(w io.Writer, scope string, st settings.FileStatus) {
	defer func() {
		switch {
		case st.Agent == hooks.Codex && len(st.Entries) == 0:
		case st.Agent == hooks.Codex && st.HooksOff != "":
			fmt.Fprintf(w, "           WARNING: Codex does not run these hooks (%s): only agate's rules file holds\n", st.HooksOff)
		case st.Agent == hooks.Codex && !st.Installed():
			fmt.Fprintln(w, "           WARNING: codex exec skips a hook that is not trusted, without a word: run `agate hooks install codex` again")
		case (st.Agent == hooks.QwenCode || st.Agent == hooks.Copilot || st.Agent == hooks.OpenCode) && st.HooksOff != "":
			fmt.Fprintf(w, "           WARNING: %s runs none of these hooks (%s): every call runs with no gate\n", st.Agent, st.HooksOff)
		case st.HooksOff != "" && st.GeminiPolicy != "":
			fmt.Fprintf(w, "           WARNING: Gemini CLI does not run agate's hooks (%s), and agate's policy %s lets every call run unasked: turn the hooks back on, or `agate hooks uninstall gemini`\n", st.HooksOff, st.GeminiPolicy)
		case st.HooksOff != "":
			fmt.Fprintf(w, "           Gemini CLI does not run agate's hooks (%s)\n", st.HooksOff)
		case st.GeminiPolicy != "" && st.Installed():
			fmt.Fprintf(w, "           policy %s: Gemini CLI leaves each call to agate's hook, one prompt per call\n", st.GeminiPolicy)
		case st.GeminiPolicy != "":
			fmt.Fprintf(w, "           policy %s: WARNING: Gemini CLI runs calls without asking, and agate's hooks are not all there: run `agate hooks install gemini` (or uninstall)\n", st.GeminiPolicy)
		case st.Agent == hooks.Gemini && st.Installed() && scope == "user":
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
		if en.Trust != "" {
			bin += ", " + en.Trust
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
