package ui

import (
	"fmt"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// grantsTab shows the saved "always" grants per agent, with revoke, and
// the session grants that last while their session does.
type grantsTab struct {
	s        *Settings
	saved    *fyne.Container
	sessions *fyne.Container
	content  fyne.CanvasObject
}

func newGrantsTab(s *Settings) *grantsTab {
	t := &grantsTab{s: s, saved: container.NewVBox(), sessions: container.NewVBox()}
	t.content = container.NewVScroll(container.NewVBox(
		widget.NewCard("Saved grants", "Your \"Always allow\" answers, kept in grants.toml beside the config.", t.saved),
		widget.NewCard("This session's grants", "\"For this session\" and \"for this run\" answers, forgotten when the session ends or agate restarts.", t.sessions),
		widget.NewButton("Refresh", t.load),
	))
	return t
}

// load shows the grants as the daemon holds them now.
func (t *grantsTab) load() {
	t.saved.Objects = nil
	saved := t.s.d.SavedGrants()
	agents := make([]string, 0, len(saved))
	for a := range saved {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	for _, agent := range agents {
		agent := agent
		t.saved.Add(container.NewBorder(nil, nil, widget.NewLabelWithStyle(agent, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
			widget.NewButton("Revoke all", func() { t.revoke(agent, "") })))
		for _, g := range saved[agent] {
			tool := grantTool(g)
			t.saved.Add(container.NewBorder(nil, nil, nil,
				widget.NewButton("Revoke "+tool, func() { t.revoke(agent, tool) }),
				widget.NewLabelWithStyle("    "+g, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})))
		}
	}
	if len(agents) == 0 {
		t.saved.Add(widget.NewLabel("No saved grants."))
	}
	t.saved.Refresh()

	t.sessions.Objects = nil
	for _, si := range t.s.d.Sessions() {
		if len(si.Grants) == 0 && len(si.RunGrants) == 0 {
			continue
		}
		line := fmt.Sprintf("%s · session %s · run %s", si.Agent, si.Session, si.Run)
		if si.Tainted {
			line += " (tainted)"
		}
		var parts []string
		if len(si.Grants) > 0 {
			parts = append(parts, "session: "+strings.Join(si.Grants, ", "))
		}
		if len(si.RunGrants) > 0 {
			parts = append(parts, "this run: "+strings.Join(si.RunGrants, ", "))
		}
		l := widget.NewLabel(line + "\n    " + strings.Join(parts, "; "))
		l.Wrapping = fyne.TextWrapWord
		t.sessions.Add(l)
	}
	if len(t.sessions.Objects) == 0 {
		t.sessions.Add(widget.NewLabel("No session grants."))
	}
	t.sessions.Refresh()
	t.content.Refresh() // the cards' sizes changed: lay the tab out again
}

func (t *grantsTab) revoke(agent, tool string) {
	err := t.s.d.RevokeGrants(agent, tool)
	if err != nil {
		t.s.status.SetText("Not revoked: " + err.Error())
	} else if tool == "" {
		t.s.status.SetText("Revoked every saved grant of " + agent + ".")
	} else {
		t.s.status.SetText("Revoked " + agent + "'s saved grants for " + tool + ".")
	}
	t.load()
}

// grantTool is the tool part of a grant ("bash:none" → "bash").
func grantTool(g string) string {
	tool, _, _ := strings.Cut(g, ":")
	return tool
}
