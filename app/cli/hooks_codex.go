package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/settings"
	"github.com/agatehq/agate/app/hooks/settings/codexrules"
	"github.com/agatehq/agate/policy"
)

// codexInstalled finishes `agate hooks install codex`: it says what
// Codex will do with the hooks, and writes agate's exec-policy rules.
func codexInstalled(e *Env, cfg *policy.Config, file string, edit settings.Edit) error {
	st := settings.Status(hooks.Codex, file)
	trust := "trusted"
	for _, en := range st.Entries {
		if en.Trust != "trusted" {
			trust = en.Trust
		}
	}
	where := file
	if edit.Trust != "" {
		where = edit.Trust
	}
	fmt.Fprintf(e.Stdout, "Their trust is recorded in %s (%s): codex exec runs them without a review.\n", where, trust)
	timeout := settings.Timeout(cfg.ApprovalTimeout())
	fmt.Fprintf(e.Stdout, "Codex stops a hook after %v; agate's hook answers, or blocks the call, by %v ([approvals] timeout is %v).\n",
		timeout, timeout-5*time.Second, cfg.ApprovalTimeout())
	if st.HooksOff != "" {
		fmt.Fprintf(e.Stdout, "WARNING: Codex does not run these hooks (%s): until it does, only agate's rules file holds.\n", st.HooksOff)
	}
	verb := "wrote"
	if !edit.RulesChanged {
		verb = "kept"
	}
	fmt.Fprintf(e.Stdout, "%s agate's Codex rules %s: %d prefix rules Codex enforces even with hooks off; %d entries no prefix can say (see `agate hooks status`).\n",
		verb, edit.Rules, edit.Exported, edit.Skipped)
	fmt.Fprintln(e.Stdout, "The daemon rewrites them when agate's config changes. A running Codex TUI reads hooks and rules when it starts.")
	return nil
}

// printCodexRules says whether agate's Codex rules are installed, and
// which entries of the config no prefix rule can say.
func printCodexRules(w io.Writer, cf configFlags) {
	home, err := settings.CodexHome()
	if err != nil {
		fmt.Fprintf(w, "  %-8s %v\n", "rules", err)
		return
	}
	path := codexrules.Path(home)
	if !codexrules.Installed(path) {
		fmt.Fprintf(w, "  %-8s %s: not installed\n", "rules", path)
		return
	}
	fmt.Fprintf(w, "  %-8s %s: installed\n", "rules", path)
	paths, err := cf.paths()
	if err != nil {
		return
	}
	cfg, err := config.Load(paths)
	if err != nil {
		fmt.Fprintf(w, "           agate's config does not load (%v): the rules follow the last good one\n", err)
		return
	}
	for _, s := range codexrules.FromConfig(cfg.HardDeny()).Skipped {
		fmt.Fprintf(w, "           not in the rules (agate's hook still denies it): %s: %s\n", s.Source, s.Why)
	}
}
