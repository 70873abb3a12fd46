package ui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/files/undo"
)

// activityKeep is how many of the newest audit records the tab holds.
const activityKeep = 2000

const allFilter = "all"

// activityTab shows the audit log, newest first, filtered by agent,
// decision and tool; a row opens its details.
type activityTab struct {
	s        *Settings
	records  []audit.Record // newest first
	shown    []audit.Record // after the filters
	agent    *widget.Select
	decision *widget.Select
	tool     *widget.Entry
	list     *widget.List
	count    *widget.Label
	content  fyne.CanvasObject
	restored string // what the last restore said
}

func newActivityTab(s *Settings) *activityTab {
	t := &activityTab{s: s}
	t.agent = widget.NewSelect([]string{allFilter}, nil)
	t.agent.SetSelected(allFilter)
	t.decision = widget.NewSelect([]string{allFilter, "allow", "deny", "ask"}, nil)
	t.decision.SetSelected(allFilter)
	t.tool = widget.NewEntry()
	t.tool.SetPlaceHolder("tool contains…")
	t.count = widget.NewLabel("")
	t.list = widget.NewList(
		func() int { return len(t.shown) },
		func() fyne.CanvasObject {
			l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(activityRow(t.shown[i])) },
	)
	t.list.OnSelected = func(i widget.ListItemID) {
		t.details(t.shown[i])
		t.list.UnselectAll()
	}
	t.agent.OnChanged = func(string) { t.filter() }
	t.decision.OnChanged = func(string) { t.filter() }
	t.tool.OnChanged = func(string) { t.filter() }
	filters := container.NewHBox(widget.NewLabel("Agent"), t.agent, widget.NewLabel("Decision"), t.decision,
		widget.NewLabel("Tool"), container.NewGridWrap(fyne.NewSize(180, t.tool.MinSize().Height), t.tool),
		widget.NewButton("Refresh", t.load), t.count)
	t.content = container.NewBorder(filters, nil, nil, nil, t.list)
	return t
}

// load reads the audit log off Fyne's goroutine, keeping the newest
// records.
func (t *activityTab) load() {
	path := t.s.d.Paths().AuditLog()
	go func() {
		var recs []audit.Record
		err := audit.Read(path, func(r *audit.Record) error {
			recs = append(recs, *r)
			if len(recs) > 2*activityKeep {
				recs = append(recs[:0], recs[len(recs)-activityKeep:]...)
			}
			return nil
		})
		if len(recs) > activityKeep {
			recs = recs[len(recs)-activityKeep:]
		}
		for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
			recs[i], recs[j] = recs[j], recs[i]
		}
		t.s.do(func() {
			t.records = recs
			if err != nil {
				t.count.SetText("audit log: " + err.Error())
			}
			t.agents()
			t.filter()
		})
	}()
}

// agents offers the agents seen in the log.
func (t *activityTab) agents() {
	seen := map[string]bool{}
	for _, r := range t.records {
		if r.Agent != "" {
			seen[r.Agent] = true
		}
	}
	opts := []string{allFilter}
	for a := range seen {
		opts = append(opts, a)
	}
	sort.Strings(opts[1:])
	t.agent.Options = opts
	t.agent.Refresh()
}

// filter applies the filters.
func (t *activityTab) filter() {
	agent, decision := t.agent.Selected, t.decision.Selected
	tool := strings.ToLower(strings.TrimSpace(t.tool.Text))
	t.shown = t.shown[:0]
	for _, r := range t.records {
		if agent != "" && agent != allFilter && r.Agent != agent {
			continue
		}
		if decision != "" && decision != allFilter && r.Decision != decision {
			continue
		}
		if tool != "" && !strings.Contains(strings.ToLower(r.Tool), tool) {
			continue
		}
		t.shown = append(t.shown, r)
	}
	t.count.SetText(fmt.Sprintf("%d of %d", len(t.shown), len(t.records)))
	t.list.Refresh()
}

// activityRow is one line of the list.
func activityRow(r audit.Record) string {
	kept := ""
	if r.Kept != nil {
		kept = " [kept: agate undo " + r.Kept.ID + "]"
	}
	return fmt.Sprintf("%s  %-5s  %-12s  %-10s  %s  [%s]%s", r.Time.Local().Format("01-02 15:04:05"), r.Decision,
		ellipsis(r.Agent, 12), ellipsis(r.Tool, 10), oneLine(r.Subject), r.Event, kept)
}

// details opens one record.
func (t *activityTab) details(r audit.Record) {
	var b strings.Builder
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-10s %s\n", k+":", v)
		}
	}
	field("time", r.Time.Local().Format("2006-01-02 15:04:05.000"))
	field("event", r.Event)
	field("decision", r.Decision)
	field("by", string(r.By))
	field("via", r.Via)
	field("scope", string(r.Scope))
	field("agent", r.Agent)
	field("session", r.Session)
	field("run", r.Run)
	field("tool", r.Tool)
	field("category", r.Category)
	field("risks", strings.Join(r.Risks, ", "))
	field("subject", r.Subject)
	field("folder", r.Cwd)
	field("layer", r.Layer)
	field("rule", r.Rule)
	field("source", r.Source)
	field("reason", r.Reason)
	field("note", r.Note)
	field("approval", r.ApprovalID)
	if r.Tainted {
		field("tainted", "yes")
	}
	if k := r.Kept; k != nil {
		field("kept", fmt.Sprintf("%s: %d files, %s (%s)", k.ID, k.Files, undo.Size(k.Bytes), strings.Join(k.Paths, ", ")))
	}
	field("seq", fmt.Sprint(r.Seq))
	l := widget.NewLabelWithStyle(b.String(), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Wrapping = fyne.TextWrapBreak
	l.Selectable = true
	sc := container.NewVScroll(l)
	sc.SetMinSize(fyne.NewSize(640, 360))
	if r.Kept == nil || t.s.d.Undo() == nil {
		dialog.ShowCustom("Audit record", "Close", sc, t.s.win)
		return
	}
	id := r.Kept.ID
	dialog.ShowCustomConfirm("Audit record", "Restore", "Close", sc, func(restore bool) {
		if restore {
			t.restore(id)
		}
	}, t.s.win)
}

// restore puts back what agate kept as id (the "Restore" of a row whose
// call destroyed files), off Fyne's goroutine, and says what it did:
// never over a file changed since (the copy goes beside it), never
// deleting anything.
func (t *activityTab) restore(id string) {
	store := t.s.d.Undo()
	go func() {
		res, err := store.Restore(context.Background(), id)
		var msg string
		switch {
		case err != nil:
			msg = "Nothing was put back: " + err.Error()
		default:
			msg = strings.Join(res.Lines(), "\n")
		}
		t.s.do(func() {
			t.restored = msg
			l := widget.NewLabelWithStyle(msg, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			l.Wrapping = fyne.TextWrapBreak
			dialog.ShowCustom("Restore "+id, "Close", l, t.s.win)
		})
	}()
}
