package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/settings"
)

// agentsTab shows, per agent, whether agate's hooks are in its user
// settings, with install and uninstall buttons that run the same code as
// `agate hooks install` and `agate hooks uninstall`.
type agentsTab struct {
	s       *Settings
	list    *fyne.Container
	content fyne.CanvasObject
}

func newAgentsTab(s *Settings) *agentsTab {
	t := &agentsTab{s: s, list: container.NewVBox()}
	t.content = container.NewVScroll(container.NewVBox(t.list, widget.NewButton("Refresh", t.load)))
	return t
}

// load reads each agent's settings file.
func (t *agentsTab) load() {
	t.list.Objects = nil
	for _, agent := range hooks.Agents() {
		t.list.Add(t.card(agent))
	}
	t.list.Refresh()
	t.content.Refresh() // the cards' sizes changed: lay the tab out again
}

func (t *agentsTab) card(agent string) fyne.CanvasObject {
	file, err := settings.Path(agent, "")
	if err != nil {
		return widget.NewCard(agent, err.Error(), nil)
	}
	st := settings.Status(agent, file)
	var b strings.Builder
	switch {
	case st.Err != nil:
		fmt.Fprintf(&b, "cannot read the settings: %v", st.Err)
	case !st.Exists:
		b.WriteString("not installed (no settings file yet)")
	case st.Installed():
		b.WriteString("installed")
	case len(st.Entries) == 0:
		b.WriteString("not installed")
	default:
		b.WriteString("partly installed; missing: ")
		var miss []string
		for _, m := range st.Missing {
			miss = append(miss, strings.TrimSpace(m.Event+" "+m.Matcher))
		}
		b.WriteString(strings.Join(miss, ", "))
	}
	for _, e := range st.Entries {
		line := fmt.Sprintf("\n  %s %s runs %s", e.Event, e.Matcher, e.Bin)
		if e.BinProblem != "" {
			line += " — " + e.BinProblem
		}
		if e.Trust != "" && e.Trust != "trusted" {
			line += " — " + e.Trust + ": Codex skips it (reinstall)"
		}
		b.WriteString(line)
	}
	if st.HooksOff != "" {
		fmt.Fprintf(&b, "\n  %s does not run hooks (%s)", agent, st.HooksOff)
	}
	if st.CodexRules != "" {
		fmt.Fprintf(&b, "\n  rules: %s", st.CodexRules)
	}
	status := widget.NewLabel(b.String())
	status.Wrapping = fyne.TextWrapWord
	install := widget.NewButton("Install hooks", func() { t.install(agent, file) })
	uninstall := widget.NewButton("Uninstall", func() { t.uninstall(agent, file) })
	if st.Installed() {
		install.SetText("Reinstall hooks")
	}
	if len(st.Entries) == 0 {
		uninstall.Disable()
	}
	return widget.NewCard(agent, file, container.NewVBox(status, container.NewHBox(install, uninstall)))
}

func (t *agentsTab) install(agent, file string) {
	bin, err := settings.Binary()
	if err == nil {
		var edit settings.Edit
		timeout := settings.Timeout(t.s.config().ApprovalTimeout())
		if agent == hooks.Codex {
			// Codex also gets agate's exec-policy rules, from hard_deny.
			edit, err = settings.InstallWith(agent, file, bin, timeout,
				settings.InstallOptions{User: true, HardDeny: t.s.config().HardDeny()})
		} else {
			edit, err = settings.Install(agent, file, bin, timeout)
		}
		if err == nil {
			msg := fmt.Sprintf("Installed agate's %s hooks in %s, running %s.", agent, file, bin)
			if !edit.Changed {
				msg = fmt.Sprintf("agate's %s hooks were already in %s.", agent, file)
			} else if edit.Backup != "" {
				msg += " Backup: " + edit.Backup
			}
			t.s.status.SetText(msg)
		}
	}
	if err != nil {
		t.s.status.SetText("Not installed: " + err.Error())
	}
	t.load()
}

func (t *agentsTab) uninstall(agent, file string) {
	edit, err := settings.Uninstall(agent, file)
	switch {
	case err != nil:
		t.s.status.SetText("Not uninstalled: " + err.Error())
	case !edit.Changed:
		t.s.status.SetText(fmt.Sprintf("No agate hooks for %s in %s.", agent, file))
	default:
		t.s.status.SetText(fmt.Sprintf("Removed agate's %s hooks from %s (backup: %s).", agent, file, edit.Backup))
	}
	t.load()
}
