package ui

import (
	"fmt"
	"image/color"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/policy"
)

// grantsTab shows the saved "always" grants per agent, the broad ones
// flagged, each with revoke; and the session grants that last while their
// session does.
type grantsTab struct {
	s        *Settings
	saved    *fyne.Container
	sessions *fyne.Container
	content  fyne.CanvasObject
}

func newGrantsTab(s *Settings) *grantsTab {
	t := &grantsTab{s: s, saved: container.NewVBox(), sessions: container.NewVBox()}
	about := widget.NewLabel("A broad grant lets through calls you never looked at. Revoke it: the next such call asks, " +
		"and the popup offers to remember just what that call does.")
	about.Wrapping = fyne.TextWrapWord
	t.content = container.NewVScroll(container.NewVBox(
		widget.NewCard("Saved grants", "Your \"Always allow\" answers, kept in grants.toml beside the config.",
			container.NewVBox(about, t.saved)),
		widget.NewCard("This session's grants", "\"For this session\" and \"for this run\" answers, forgotten when the session ends or agate restarts.", t.sessions),
		widget.NewButton("Refresh", t.load),
	))
	return t
}

// broadText says what a broad grant lets through, in words; "" for a
// narrow grant or one that does not parse.
func broadText(grant string) string {
	g, err := policy.ParseGrant(grant)
	if err != nil || !g.Broad() {
		return ""
	}
	tool := g.Tool
	if tool == "*" {
		tool = "every tool"
	}
	if g.Any {
		return tool + ", with any parameters"
	}
	if g.Risks.String() == "none" {
		return tool + " calls in which agate sees no risk: any program it does not flag"
	}
	return fmt.Sprintf("%s calls whose risks are all among %s, whatever they touch", tool, strings.ReplaceAll(g.Risks.String(), "+", ", "))
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
	mono := fyne.TextStyle{Monospace: true}
	for _, agent := range agents {
		agent := agent
		t.saved.Add(container.NewBorder(nil, nil, widget.NewLabelWithStyle(agent, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
			widget.NewButton("Revoke all", func() { t.revoke(agent, "", "") })))
		for _, g := range saved[agent] {
			grant := g
			row := container.NewHBox(widget.NewLabelWithStyle("    "+grant, fyne.TextAlignLeading, mono))
			var under fyne.CanvasObject
			if what := broadText(grant); what != "" {
				row.Add(container.NewCenter(chip("broad", color.NRGBA{200, 100, 0, 255})))
				l := widget.NewLabel("        lets through " + what + ".")
				l.Wrapping = fyne.TextWrapWord
				l.Importance = widget.WarningImportance
				under = l
			}
			t.saved.Add(container.NewBorder(nil, under, nil, widget.NewButton("Revoke", func() { t.revoke(agent, "", grant) }), row))
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
			parts = append(parts, "session: "+markBroad(si.Grants))
		}
		if len(si.RunGrants) > 0 {
			parts = append(parts, "this run: "+markBroad(si.RunGrants))
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

// markBroad joins grants, each broad one marked.
func markBroad(grants []string) string {
	out := make([]string, len(grants))
	for i, g := range grants {
		out[i] = g
		if broadText(g) != "" {
			out[i] += " (broad)"
		}
	}
	return strings.Join(out, ", ")
}

// revoke removes an agent's saved grants: one grant, or a tool's, or all.
func (t *grantsTab) revoke(agent, tool, grant string) {
	var err error
	if grant != "" {
		err = t.s.d.RevokeGrant(agent, grant)
	} else {
		err = t.s.d.RevokeGrants(agent, tool)
	}
	switch {
	case err != nil:
		t.s.status.SetText("Not revoked: " + err.Error())
	case grant != "":
		t.s.status.SetText("Revoked " + agent + "'s grant " + grant + ".")
	case tool == "":
		t.s.status.SetText("Revoked every saved grant of " + agent + ".")
	default:
		t.s.status.SetText("Revoked " + agent + "'s saved grants for " + tool + ".")
	}
	t.load()
}
