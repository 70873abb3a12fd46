package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// The popup's layouts: a part sized to its content up to a bound, the list
// of waiting calls that gives way to the call shown in detail, and a row of
// buttons each as wide as its label.

// newCappedScroll shows content whole when it is at most maxHeight tall,
// and scrolls it past that: no empty space under a short command, no
// window as tall as a long one. It is at least minWidth wide, so that
// wrapped text is never laid out in a sliver (a long command wrapped a
// character a line costs seconds to measure).
func newCappedScroll(content fyne.CanvasObject, minWidth, maxHeight float32) *fyne.Container {
	return container.New(&cappedLayout{content: content, minWidth: minWidth, max: maxHeight}, container.NewVScroll(content))
}

type cappedLayout struct {
	content       fyne.CanvasObject
	minWidth, max float32
}

func (l *cappedLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	m := l.content.MinSize()
	return fyne.NewSize(max(m.Width, l.minWidth), min(m.Height, l.max))
}

func (l *cappedLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
}

// listDetailLayout stacks the list of waiting calls (objects[0]) over the
// scroll holding the call in detail (objects[1]). The detail comes first:
// it gets the height its content needs, the list what is left (all its
// rows, or as few as one, scrolled), and only when even that does not fit
// does the detail scroll.
type listDetailLayout struct {
	rows        *container.Scroll // the list's rows
	rowsContent fyne.CanvasObject // what rows scrolls
	detail      fyne.CanvasObject // the detail's content, inside objects[1]
}

func (l *listDetailLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	list, detail := objs[0], objs[1]
	if !list.Visible() {
		detail.Move(fyne.NewPos(0, 0))
		detail.Resize(size)
		return
	}
	pad := theme.Padding()
	least := list.MinSize().Height
	whole := least - l.rows.MinSize().Height + l.rowsContent.MinSize().Height
	h := size.Height - pad - l.detail.MinSize().Height
	h = min(max(least, min(h, whole)), size.Height)
	list.Move(fyne.NewPos(0, 0))
	list.Resize(fyne.NewSize(size.Width, h))
	detail.Move(fyne.NewPos(0, h+pad))
	detail.Resize(fyne.NewSize(size.Width, max(0, size.Height-h-pad)))
}

func (l *listDetailLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	list, detail := objs[0], objs[1]
	m := detail.MinSize()
	if list.Visible() {
		lm := list.MinSize()
		m = fyne.NewSize(max(m.Width, lm.Width), m.Height+theme.Padding()+lm.Height)
	}
	return m
}

// fillRow lays its visible objects out in a row, each at least as wide as
// it needs, the width left over shared equally: a long label does not make
// every button as wide as itself.
type fillRow struct{}

func (fillRow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w, h float32
	n := 0
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		w += m.Width
		h = max(h, m.Height)
		n++
	}
	if n > 1 {
		w += float32(n-1) * theme.Padding()
	}
	return fyne.NewSize(w, h)
}

func (r fillRow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	m := r.MinSize(objs)
	n := 0
	for _, o := range objs {
		if o.Visible() {
			n++
		}
	}
	if n == 0 {
		return
	}
	extra := max(0, size.Width-m.Width) / float32(n)
	x := float32(0)
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		w := o.MinSize().Width + extra
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(w, size.Height))
		x += w + theme.Padding()
	}
}

// compactTheme is the app's theme with less space around each line: the
// popup's detail reads as a page, not as a stack of form fields, and a
// call with several commands fits above the answers.
type compactTheme struct{}

func (compactTheme) current() fyne.Theme { return fyne.CurrentApp().Settings().Theme() }

func (t compactTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return t.current().Color(n, v)
}

func (t compactTheme) Font(s fyne.TextStyle) fyne.Resource { return t.current().Font(s) }

func (t compactTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return t.current().Icon(n) }

func (t compactTheme) Size(n fyne.ThemeSizeName) float32 {
	// Only the space inside each widget: the space between them is the
	// containers', which lay out with the app's theme.
	if n == theme.SizeNameInnerPadding {
		return 4
	}
	return t.current().Size(n)
}

// relayoutTree lays out o's containers again, parents first, through
// scrolls and theme overrides, without refreshing a widget.
func relayoutTree(o fyne.CanvasObject) {
	switch v := o.(type) {
	case *fyne.Container:
		if v.Layout != nil {
			v.Layout.Layout(v.Objects, v.Size())
		}
		for _, c := range v.Objects {
			relayoutTree(c)
		}
	case *container.Scroll:
		// The scroll's own refresh (its embedded Base) sizes the content
		// to its new minimum and sets the bars; Scroll.Refresh would
		// refresh the content too.
		v.Base.Refresh()
		relayoutTree(v.Content)
	case *container.ThemeOverride:
		relayoutTree(v.Content)
	}
}
