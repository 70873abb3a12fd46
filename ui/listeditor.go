package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/files/config"
)

// listEditor edits one array of strings in config.toml: rules, hard-deny
// entries, paths, domains. What is typed is checked as it is typed, by
// parsing the whole config it would make with the same parser the daemon
// uses; an entry that does not parse cannot be added.
type listEditor struct {
	s          *Settings
	table, key string
	ordered    bool // the order matters (first match): up and down buttons

	items    []string
	selected int // -1: none

	list                          *widget.List
	entry                         *widget.Entry
	check                         *widget.Label
	add, replace, remove, up, dwn *widget.Button
	content                       fyne.CanvasObject
}

func newListEditor(s *Settings, title, help, table, key string, ordered bool, extra ...fyne.CanvasObject) *listEditor {
	e := &listEditor{s: s, table: table, key: key, ordered: ordered, selected: -1}
	e.list = widget.NewList(
		func() int { return len(e.items) },
		func() fyne.CanvasObject {
			l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(e.items[i]) },
	)
	e.list.OnSelected = func(i widget.ListItemID) {
		e.selected = i
		e.entry.SetText(e.items[i])
		e.buttons()
	}
	e.list.OnUnselected = func(widget.ListItemID) {
		e.selected = -1
		e.buttons()
	}
	e.entry = widget.NewEntry()
	e.entry.SetPlaceHolder("type a new entry")
	e.entry.OnChanged = func(string) { e.validate() }
	e.entry.OnSubmitted = func(string) { e.onAdd() }
	e.check = widget.NewLabel("")
	e.check.Wrapping = fyne.TextWrapWord
	e.add = widget.NewButton("Add", e.onAdd)
	e.replace = widget.NewButton("Replace", e.onReplace)
	e.remove = widget.NewButton("Remove", e.onRemove)
	e.up = widget.NewButton("Up", func() { e.move(-1) })
	e.dwn = widget.NewButton("Down", func() { e.move(1) })
	tools := []fyne.CanvasObject{e.add, e.replace, e.remove}
	if ordered {
		tools = append(tools, e.up, e.dwn)
	}
	tools = append(tools, extra...)
	helpLabel := widget.NewLabel(help)
	helpLabel.Wrapping = fyne.TextWrapWord
	helpLabel.Importance = widget.LowImportance
	// The list's height: a widget.List asks for one row only.
	room := canvas.NewRectangle(color.Transparent)
	room.SetMinSize(fyne.NewSize(320, 150))
	listBox := container.NewStack(room, e.list)
	e.content = widget.NewCard(title, "", container.NewVBox(
		helpLabel, listBox, e.entry, e.check, container.NewHBox(tools...)))
	e.buttons()
	return e
}

// load shows the list as the config has it.
func (e *listEditor) load(items []string) {
	e.items = append([]string(nil), items...)
	e.selected = -1
	e.list.UnselectAll()
	e.list.Refresh()
	e.buttons()
}

func (e *listEditor) buttons() {
	sel := e.selected >= 0 && e.selected < len(e.items)
	for _, b := range []*widget.Button{e.replace, e.remove} {
		setEnabled(b, sel)
	}
	setEnabled(e.up, sel && e.selected > 0)
	setEnabled(e.dwn, sel && e.selected < len(e.items)-1)
}

func setEnabled(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

// candidate is the list with what is typed added (or put in place of the
// selected entry).
func (e *listEditor) candidate(replace bool) []string {
	list := append([]string{}, e.items...)
	if replace && e.selected >= 0 && e.selected < len(list) {
		list[e.selected] = e.entry.Text
		return list
	}
	return append(list, e.entry.Text)
}

func (e *listEditor) edit(list []string) config.Edit {
	return config.SetKey(e.table, e.key, list)
}

// validate checks what is typed as it is typed.
func (e *listEditor) validate() {
	if e.entry.Text == "" {
		e.check.SetText("")
		return
	}
	if _, _, err := config.PreviewEdits(e.s.d.Paths().Config, e.edit(e.candidate(false))); err != nil {
		e.check.SetText("✗ " + err.Error())
		return
	}
	e.check.SetText("✓ parses")
}

func (e *listEditor) onAdd() {
	if e.entry.Text == "" {
		return
	}
	if e.save(e.candidate(false)) {
		e.entry.SetText("")
	}
}

func (e *listEditor) onReplace() {
	if e.selected < 0 || e.entry.Text == "" {
		return
	}
	if e.save(e.candidate(true)) {
		e.entry.SetText("")
	}
}

func (e *listEditor) onRemove() {
	if e.selected < 0 || e.selected >= len(e.items) {
		return
	}
	list := append(append([]string{}, e.items[:e.selected]...), e.items[e.selected+1:]...)
	e.save(list)
}

func (e *listEditor) move(by int) {
	i, j := e.selected, e.selected+by
	if i < 0 || j < 0 || j >= len(e.items) {
		return
	}
	list := append([]string{}, e.items...)
	list[i], list[j] = list[j], list[i]
	if e.save(list) {
		e.list.Select(j)
	}
}

// save writes the list; false when it was refused (the reason is shown).
func (e *listEditor) save(list []string) bool {
	if err := e.s.edit(e.edit(list)); err != nil {
		e.check.SetText("✗ " + err.Error())
		return false
	}
	e.check.SetText("")
	return true
}
