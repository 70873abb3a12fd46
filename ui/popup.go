package ui

import (
	"encoding/json"
	"fmt"
	"image/color"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

// PopupTitle starts the approval popup's title; the end-to-end test finds
// the window by it.
const PopupTitle = "agate: approval needed"

// armDelay is how long the allow buttons stay inactive after new content
// appears under them: a click or keypress meant for another window must
// not allow anything.
const armDelay = 500 * time.Millisecond

// idleRelease is how long the popup stays closed before the memory it
// used is handed back to the system.
const idleRelease = 5 * time.Second

// allowScopes are the allow answers, in the order of their buttons.
var allowScopes = []api.Scope{api.ScopeOnce, api.ScopeRun, api.ScopeSession, api.ScopeSessionAny, api.ScopeAlways}

// allowLabels and allowKeys are each allow button's text and Alt shortcut.
var (
	allowLabels = map[api.Scope]string{
		api.ScopeOnce:       "Allow once",
		api.ScopeRun:        "Allow for this run",
		api.ScopeSession:    "Allow for this session",
		api.ScopeSessionAny: "Any parameters (session, broad)",
		api.ScopeAlways:     "Always allow",
	}
	allowKeys = map[api.Scope]fyne.KeyName{
		api.ScopeOnce:       fyne.KeyO,
		api.ScopeRun:        fyne.KeyR,
		api.ScopeSession:    fyne.KeyS,
		api.ScopeSessionAny: fyne.KeyP,
		api.ScopeAlways:     fyne.KeyA,
	}
)

// remembering are the allow answers that record a grant, in the order of
// their buttons; "once" records nothing and "any parameters" its own broad
// grant.
var remembering = []api.Scope{api.ScopeRun, api.ScopeSession, api.ScopeAlways}

// remembers reports whether an allow at scope records one of the
// approval's Remember grants.
func remembers(scope api.Scope) bool { return slices.Contains(remembering, scope) }

// The popup's sizes: its window at first, the command shown whole up to a
// few lines, the list of waiting calls down to one row.
var (
	popupSize       = fyne.NewSize(900, 760)
	subjectMaxLines = float32(4)
	partMaxHeight   = float32(220)
	partMinWidth    = float32(600)
)

// popup is the approval window: the call in front in detail, the others
// as a list to tick and answer together. Its methods run on Fyne's
// goroutine.
type popup struct {
	p       *Prompter
	win     fyne.Window
	visible bool // shown (test windows do not say)
	manual  bool // opened by the person from the tray: stays when empty

	items   []api.Approval  // as shown, in order
	current string          // the id shown in detail
	ticked  map[string]bool // ticked in the list

	armed       bool // the allow buttons answer
	armGen      int  // which arming the pending timer belongs to
	tick        *time.Timer
	content     *fyne.Container          // the view with calls: middle over bottom
	middle      *fyne.Container          // the list of calls waiting over the call in detail
	bottom      *fyne.Container          // the answers
	bottomTheme *container.ThemeOverride // bottom, drawn compact
	empty       fyne.CanvasObject        // the view with none

	// The call in detail.
	detail             *fyne.Container          // everything below, in its scroll
	detailTheme        *container.ThemeOverride // detail, drawn compact
	doesTheme          *container.ThemeOverride // does, drawn compact
	doesBox            fyne.CanvasObject        // doesTheme, capped and scrolled: the row's cell
	heading, countdown *widget.Label
	headless           *fyne.Container // the banner for a headless run
	headlessText       *widget.Label
	agent, cwd, why    *widget.Label
	subjectKey         *widget.Label
	subject            *widget.Label
	doesKey, impactKey *widget.Label
	does               *fyne.Container // per command (or effect): a mark and what it does
	impact             *widget.RichText
	impactBox          fyne.CanvasObject
	chips              *fyne.Container
	details, args      *widget.Label

	// The answers.
	reason         *reasonEntry
	rememberRow    *fyne.Container
	remember       *widget.Select
	rememberChoice int // index into the current call's Remember; -1 none chosen
	runs           *widget.Select
	runsAsIs       *widget.Label // a shell call agate cannot confine: how it runs
	runsRow        *fyne.Container
	deny           *keyButton
	allow          map[api.Scope]*allowButton
	buttons        *fyne.Container // Deny and Allow once
	rememberBtns   *fyne.Container // the answers that remember

	batch                                  *container.ThemeOverride // the list, drawn compact; hidden when one call waits
	rowsScroll                             *container.Scroll
	batchHeading                           *widget.Label
	rows                                   *fyne.Container
	allowTicked, allowAll                  *allowButton
	denyTicked, denyAll, tickAll, tickNone *keyButton
	rowChecks                              map[string]*tickCheck
}

func newPopup(a fyne.App, p *Prompter) *popup {
	w := &popup{p: p, win: a.NewWindow(PopupTitle), ticked: map[string]bool{}, allow: map[api.Scope]*allowButton{}, rememberChoice: -1}
	w.build()
	w.win.SetContent(w.empty)
	w.win.Resize(popupSize)
	w.win.SetCloseIntercept(w.closeRequested)
	c := w.win.Canvas()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) { w.key(ev) })
	for _, s := range allowScopes {
		scope := s
		c.AddShortcut(&desktop.CustomShortcut{KeyName: allowKeys[s], Modifier: fyne.KeyModifierAlt}, func(fyne.Shortcut) { w.allowCurrent(scope) })
	}
	return w
}

func (w *popup) build() {
	bold := fyne.TextStyle{Bold: true}
	mono := fyne.TextStyle{Monospace: true}
	wrapped := func(style fyne.TextStyle) *widget.Label {
		l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, style)
		l.Wrapping = fyne.TextWrapWord
		return l
	}
	w.heading = wrapped(bold)
	w.countdown = widget.NewLabelWithStyle("", fyne.TextAlignTrailing, bold)
	w.chips = container.NewHBox()
	w.headlessText = wrapped(bold)
	w.headless = container.NewStack(canvas.NewRectangle(color.NRGBA{214, 140, 0, 90}), w.headlessText)
	w.agent = wrapped(fyne.TextStyle{})
	w.cwd = widget.NewLabel("")
	w.cwd.Wrapping = fyne.TextWrapBreak
	w.why = wrapped(fyne.TextStyle{})
	w.subjectKey = widget.NewLabelWithStyle("Command", fyne.TextAlignLeading, bold)
	// The subject in full: wrapped, and scrolled past a few lines, never cut.
	w.subject = widget.NewLabelWithStyle("", fyne.TextAlignLeading, mono)
	w.subject.Wrapping = fyne.TextWrapBreak
	w.subject.Selectable = true
	line := fyne.MeasureText("M", theme.TextSize(), mono).Height + theme.LineSpacing()
	subjectBox := newCappedScroll(w.subject, partMinWidth, subjectMaxLines*line+2*theme.InnerPadding())
	w.doesKey = widget.NewLabelWithStyle("Commands", fyne.TextAlignLeading, bold)
	w.does = container.New(layout.NewFormLayout())
	// Its rows are made per call: its own theme override gives them the
	// detail's compact theme without refreshing the rest of the detail.
	w.doesTheme = container.NewThemeOverride(w.does, compactTheme{})
	w.doesBox = newCappedScroll(w.doesTheme, partMinWidth, partMaxHeight)
	w.impactKey = widget.NewLabelWithStyle("Impact", fyne.TextAlignLeading, bold)
	w.impact = widget.NewRichText()
	w.impact.Wrapping = fyne.TextWrapWord
	w.impactBox = newCappedScroll(w.impact, partMinWidth, partMaxHeight/2)

	w.details = wrapped(fyne.TextStyle{})
	w.args = widget.NewLabelWithStyle("", fyne.TextAlignLeading, mono)
	w.args.Wrapping = fyne.TextWrapBreak
	w.args.Selectable = true
	detailsBox := widget.NewAccordion(widget.NewAccordionItem("Details: layer, rule, all arguments",
		container.NewVBox(w.details, newCappedScroll(w.args, partMinWidth, partMaxHeight))))

	key := func(s string) *widget.Label { return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, bold) }
	form := container.New(layout.NewFormLayout(),
		key("From"), w.agent,
		w.subjectKey, subjectBox,
		w.doesKey, w.doesBox,
		w.impactKey, w.impactBox,
		key("Folder"), w.cwd,
		key("Why"), w.why,
	)
	w.detail = container.NewVBox(
		container.NewBorder(nil, nil, nil, w.countdown, container.NewBorder(nil, nil, nil, w.chips, w.heading)),
		w.headless,
		form,
		detailsBox,
	)

	w.reason = newReasonEntry(w)
	w.reason.SetPlaceHolder("Reason (optional): told to the agent and kept in the log")
	w.deny = newKeyButton("Deny", w.denyCurrent, w.key)
	w.deny.Importance = widget.HighImportance
	w.deny.SetIcon(theme.CancelIcon())
	for _, s := range allowScopes {
		scope := s
		w.allow[s] = newAllowButton(allowLabels[s], func() { w.allowCurrent(scope) }, w.key)
	}
	w.buttons = container.NewGridWithColumns(2, w.deny, w.allow[api.ScopeOnce])
	w.remember = widget.NewSelect(nil, w.onRemember)
	w.remember.PlaceHolder = "Choose what to remember"
	w.rememberRow = container.NewBorder(nil, nil, key("Remember"), nil, w.remember)
	// How an allowed call runs: confined to what it was judged to need,
	// or not; the approval's first choice unless the person picks another.
	w.runs = widget.NewSelect(nil, nil)
	w.runsAsIs = wrapped(fyne.TextStyle{})
	w.runsRow = container.NewBorder(nil, nil, key("Runs"), nil, container.NewStack(w.runs, w.runsAsIs))
	w.rememberBtns = container.New(fillRow{}, w.allow[api.ScopeRun], w.allow[api.ScopeSession], w.allow[api.ScopeAlways], w.allow[api.ScopeSessionAny])
	hint := widget.NewLabelWithStyle("Enter or Escape denies. Allow: click, or Alt+O once, Alt+R run, Alt+S session, Alt+P any parameters, Alt+A always.",
		fyne.TextAlignLeading, fyne.TextStyle{})
	hint.Wrapping = fyne.TextWrapWord
	// Each text style costs Fyne a few MB of parsed fonts: the popup keeps
	// to regular, bold and monospace.
	hint.Importance = widget.LowImportance

	// The list of every call waiting, when there are several.
	w.batchHeading = widget.NewLabelWithStyle("", fyne.TextAlignLeading, bold)
	w.batchHeading.Wrapping = fyne.TextWrapWord
	w.rows = container.NewVBox()
	w.rowsScroll = container.NewVScroll(w.rows)
	w.allowTicked = newAllowButton("Allow ticked (once)", func() { w.answerBatch(true, false) }, w.key)
	w.allowAll = newAllowButton("Allow all (once)", func() { w.answerBatch(true, true) }, w.key)
	w.denyTicked = newKeyButton("Deny ticked", func() { w.answerBatch(false, false) }, w.key)
	w.denyAll = newKeyButton("Deny all", func() { w.answerBatch(false, true) }, w.key)
	w.tickAll = newKeyButton("Tick all", func() { w.setTicks(true) }, w.key)
	w.tickNone = newKeyButton("Tick none", func() { w.setTicks(false) }, w.key)
	for _, b := range []*keyButton{w.tickAll, w.tickNone} {
		b.Importance = widget.LowImportance
	}
	// The rows take the height the list is given; the rest is fixed.
	w.batch = container.NewThemeOverride(container.NewBorder(
		container.NewBorder(nil, nil, nil, container.NewHBox(w.tickAll, w.tickNone), w.batchHeading),
		container.NewVBox(
			container.NewGridWithColumns(4, w.denyAll, w.denyTicked, w.allowTicked, w.allowAll),
			widget.NewSeparator()),
		nil, nil,
		w.rowsScroll,
	), compactTheme{})

	w.detailTheme = container.NewThemeOverride(w.detail, compactTheme{})
	w.middle = container.New(&listDetailLayout{rows: w.rowsScroll, rowsContent: w.rows, detail: w.detailTheme},
		w.batch, container.NewVScroll(w.detailTheme))
	w.bottom = container.NewVBox(widget.NewSeparator(), w.reason, w.runsRow, w.rememberRow, w.rememberBtns, hint, w.buttons)
	w.bottomTheme = container.NewThemeOverride(w.bottom, compactTheme{})
	w.content = container.NewBorder(nil, w.bottomTheme, nil, nil, w.middle)

	settings := widget.NewButton("Close", func() { w.hide() })
	w.empty = container.NewCenter(container.NewVBox(
		widget.NewLabelWithStyle("No calls are waiting for you.", fyne.TextAlignCenter, bold),
		widget.NewLabel("agate shows a call here when an agent's call needs your answer."),
		container.NewCenter(settings),
	))
}

// emptyTitle is the window's title with nothing waiting.
const emptyTitle = "agate: no calls waiting"

// refresh shows the queue as it is now: called after every change.
func (w *popup) refresh() {
	items := w.p.waiting()
	if len(items) == 0 {
		w.items, w.current = nil, ""
		w.ticked = map[string]bool{}
		w.stopTick()
		if w.manual {
			w.showEmpty()
			return
		}
		w.hide()
		return
	}
	w.items = items
	present := map[string]bool{}
	for _, a := range items {
		present[a.ID] = true
	}
	for id := range w.ticked {
		if !present[id] {
			delete(w.ticked, id)
		}
	}
	changed := !present[w.current]
	if changed {
		w.current = items[0].ID
		w.showDetail(items[0])
	}
	w.showList()
	w.updateTimes()
	if !w.visible {
		w.win.SetContent(w.content)
		w.win.Show()
		w.visible = true
		w.win.Canvas().Focus(w.deny)
		changed = true
	} else if w.win.Content() != w.content {
		w.win.SetContent(w.content)
	}
	// Once more now that every part has its width: a wrapped text's
	// height depends on it, and the first layout of a view measures
	// before it (a short command then sat over a gap).
	w.relayout()
	if changed {
		w.arm()
	}
	w.startTick()
}

// relayout lays the view out again after parts were shown, hidden or
// changed: the list gives way to the detail by their new sizes. It lays
// out and refreshes no widget: a refresh measures every text again, and a
// long command takes a second to measure.
func (w *popup) relayout() {
	if w.win.Content() != w.content {
		return // SetContent lays it out, at the window's size
	}
	relayoutTree(w.content)
	w.win.Canvas().Refresh(w.content)
}

// showEmpty shows the view with nothing waiting.
func (w *popup) showEmpty() {
	w.win.SetTitle(emptyTitle)
	w.win.SetContent(w.empty)
}

// bringForward shows the popup in front: the tray's "Pending approvals",
// or a click on the tray icon.
func (w *popup) bringForward() {
	w.manual = true
	if len(w.p.waiting()) == 0 {
		w.showEmpty()
		w.win.Show()
		w.visible = true
	} else {
		w.refresh()
	}
	w.win.RequestFocus()
}

func (w *popup) hide() {
	w.manual = false
	if w.visible {
		w.win.Hide()
		w.visible = false
		// The tray app then idles for hours: give the memory the popup
		// used back to the system once it has stayed closed a while.
		time.AfterFunc(idleRelease, func() {
			w.p.do(func() {
				if !w.visible {
					go debug.FreeOSMemory()
				}
			})
		})
	}
	w.win.SetContent(w.empty)
}

// closeRequested is the window's close button: every call shown is
// denied, as Deny would.
func (w *popup) closeRequested() {
	for _, a := range w.items {
		w.p.answer(a.ID, api.Answer{Decision: policy.Deny, Scope: api.ScopeDeny, Reason: w.reason.Text})
	}
	w.reason.SetText("")
	w.hide()
}

// arm makes the allow buttons inactive, and active again after armDelay
// unless new content came in the meantime.
func (w *popup) arm() {
	w.armGen++
	gen := w.armGen
	w.setArmed(false)
	time.AfterFunc(armDelay, func() {
		w.p.do(func() {
			if gen == w.armGen {
				w.setArmed(true)
			}
		})
	})
}

// setArmed turns the allow buttons on or off. The ones that remember stay
// off, armed or not, while nothing is chosen to remember.
func (w *popup) setArmed(on bool) {
	w.armed = on
	buttons := []*allowButton{w.allowTicked, w.allowAll}
	for _, b := range w.allow {
		buttons = append(buttons, b)
	}
	for _, b := range buttons {
		b.Disable()
	}
	if !on {
		return
	}
	for _, b := range buttons {
		b.Enable()
	}
	if !w.canRemember() {
		for _, s := range remembering {
			w.allow[s].Disable()
		}
	}
}

// canRemember reports whether the call in detail has what a remembering
// answer records: a chosen entry, or no entries (an older daemon, which
// records its Grant).
func (w *popup) canRemember() bool {
	a, ok := w.shown()
	return ok && (len(a.Remember) == 0 || w.rememberChoice >= 0)
}

// shown is the call in detail.
func (w *popup) shown() (api.Approval, bool) {
	for _, a := range w.items {
		if a.ID == w.current {
			return a, true
		}
	}
	return api.Approval{}, false
}

// showDetail fills the detail view with one call, from its fields alone.
func (w *popup) showDetail(a api.Approval) {
	w.heading.SetText(headline(a))
	who := orUnknown(a.Agent)
	if a.Session != "" {
		who += " · session " + a.Session
		if a.Run != "" {
			who += " (run " + a.Run + ")"
		}
	}
	w.agent.SetText(fmt.Sprintf("%s · tool %s (%s)", who, a.Tool, a.Category))
	if a.Headless {
		w.headlessText.SetText(fmt.Sprintf("Headless run: nobody is at %s's own prompt. Your answer here is the only one.", orUnknown(a.Agent)))
		w.headless.Show()
	} else {
		w.headless.Hide()
	}
	w.subjectKey.SetText(subjectKind(a.Category))
	subj := a.Subject
	if subj == "" {
		subj = "(no command, path or URL: see all arguments)"
	}
	w.subject.SetText(subj)
	w.showDoes(a)
	w.impact.Segments = impactSegments(a.Impact)
	w.impact.Refresh()
	if len(w.impact.Segments) > 0 {
		w.impactKey.Show()
		w.impactBox.Show()
	} else {
		w.impactKey.Hide()
		w.impactBox.Hide()
	}
	w.cwd.SetText(a.Cwd)
	w.why.SetText(whySentence(a))
	w.details.SetText(detailsText(a, -1))
	w.args.SetText(argsText(a.Args))

	w.chips.Objects = nil
	for _, r := range a.Risks {
		w.chips.Add(chip(riskLabel(r), riskColor(r)))
	}
	if a.Tainted {
		w.chips.Add(chip("tainted", color.NRGBA{90, 90, 100, 255}))
	}
	w.chips.Refresh()

	offered := map[api.Scope]bool{}
	for _, s := range a.Scopes {
		offered[s] = true
	}
	anyRemembering := false
	for _, s := range allowScopes {
		if s == api.ScopeOnce {
			continue
		}
		if offered[s] {
			w.allow[s].Show()
			anyRemembering = anyRemembering || remembers(s)
		} else {
			w.allow[s].Hide()
		}
	}
	if offered[api.ScopeOnce] {
		w.buttons.Objects = []fyne.CanvasObject{w.deny, w.allow[api.ScopeOnce]}
	} else {
		w.buttons.Objects = []fyne.CanvasObject{w.deny}
	}
	w.buttons.Layout = layout.NewGridLayoutWithColumns(len(w.buttons.Objects))
	w.buttons.Refresh()
	w.rememberBtns.Refresh()
	w.showRemember(a, anyRemembering)
	w.showRuns(a)
}

// showRuns says how the call runs once allowed: the approval's choices,
// the first chosen; for a shell call with none, that it runs as it is.
func (w *popup) showRuns(a api.Approval) {
	switch {
	case len(a.Runs) > 0:
		opts := make([]string, len(a.Runs))
		for i, r := range a.Runs {
			opts[i] = r.Text
		}
		w.runs.SetOptions(opts)
		w.runs.SetSelectedIndex(0)
		w.runsAsIs.Hide()
		w.runs.Show()
		w.runsRow.Show()
	case a.Category == "shell":
		w.runs.SetOptions(nil)
		w.runs.Hide()
		w.runsAsIs.SetText(runsAsIs)
		w.runsAsIs.Show()
		w.runsRow.Show()
	default:
		w.runs.SetOptions(nil)
		w.runsRow.Hide()
	}
}

// runsAsIs is how a shell call agate offers no confinement for runs.
const runsAsIs = "Not confined: with all your rights (agate's sandbox cannot hold it here)"

// runsChoice is the Runs of an allow of a: the choice shown, "" for the
// approval's first.
func (w *popup) runsChoice(a api.Approval) string {
	i := w.runs.SelectedIndex()
	if i <= 0 || i >= len(a.Runs) {
		return ""
	}
	return a.Runs[i].ID
}

// showDoes fills "Commands" (a shell call's simple commands, each marked
// as asking, free or granted, with what it does) or "Does" (the effects of
// another call); hidden when the approval carries neither.
func (w *popup) showDoes(a api.Approval) {
	w.does.Objects = nil
	switch {
	case len(a.Commands) > 0:
		w.doesKey.SetText("Commands")
		for _, c := range a.Commands {
			mark, col := commandMark(c)
			rt := widget.NewRichText(commandSegments(c)...)
			rt.Wrapping = fyne.TextWrapWord
			w.does.Add(container.NewVBox(chip(mark, col)))
			w.does.Add(rt)
		}
	case len(a.Effects) > 0:
		w.doesKey.SetText("Does")
		rt := widget.NewRichText(effectsSegments(a.Effects)...)
		rt.Wrapping = fyne.TextWrapWord
		w.does.Add(layout.NewSpacer()) // no mark: the effects are the call's own
		w.does.Add(rt)
	}
	w.doesTheme.Refresh() // the compact theme for the new rows
	if len(w.does.Objects) > 0 {
		w.doesKey.Show()
		w.doesBox.Show()
	} else {
		w.doesKey.Hide()
		w.doesBox.Hide()
	}
}

// showRemember offers what a remembering answer records: the approval's
// Remember entries in order, the narrowest that is not broad chosen. With
// no remembering answer offered, or no entries (an older daemon), the row
// is hidden.
func (w *popup) showRemember(a api.Approval, offered bool) {
	w.rememberChoice = -1
	if !offered || len(a.Remember) == 0 {
		w.rememberRow.Hide()
		w.remember.SetOptions(nil)
		return
	}
	w.remember.SetOptions(rememberOptions(a.Remember))
	if i := defaultRemember(a.Remember); i >= 0 {
		w.remember.SetSelectedIndex(i) // calls onRemember
	} else {
		w.remember.ClearSelected() // every entry is broad: the person chooses
		w.details.SetText(detailsText(a, -1))
	}
	w.rememberRow.Show()
}

// onRemember is a choice in the Remember select.
func (w *popup) onRemember(string) {
	a, ok := w.shown()
	i := w.remember.SelectedIndex()
	if !ok || i < 0 || i >= len(a.Remember) {
		w.rememberChoice = -1
		return
	}
	w.rememberChoice = i
	w.details.SetText(detailsText(a, i))
	if w.armed {
		w.setArmed(true)
	}
}

// showList fills the list of waiting calls; hidden when only one waits.
func (w *popup) showList() {
	if len(w.items) < 2 {
		w.batch.Hide()
		w.win.SetTitle(PopupTitle)
		return
	}
	w.win.SetTitle(fmt.Sprintf("%s (%d waiting)", PopupTitle, len(w.items)))
	w.batchHeading.SetText(fmt.Sprintf("%d calls are waiting: tick some and answer them together, or pick one to see it below", len(w.items)))
	w.rowChecks = map[string]*tickCheck{}
	objs := make([]fyne.CanvasObject, 0, len(w.items))
	for _, a := range w.items {
		id := a.ID
		check := newTickCheck(func(on bool) { w.ticked[id] = on }, w.key)
		check.SetChecked(w.ticked[id])
		w.rowChecks[id] = check
		pick := newKeyButton(rowText(a), func() { w.pick(id) }, w.key)
		pick.Alignment = widget.ButtonAlignLeading
		pick.Importance = widget.LowImportance
		if id == w.current {
			pick.Importance = widget.MediumImportance
		}
		objs = append(objs, container.NewBorder(nil, nil, check, nil, pick))
	}
	w.rows.Objects = objs
	w.batch.Show()
	w.batch.Refresh() // the compact theme for the new rows
	// The list scrolls down to one row when the detail needs the room.
	w.rowsScroll.SetMinSize(fyne.NewSize(560, objs[0].MinSize().Height))
}

// pick shows another call in detail.
func (w *popup) pick(id string) {
	for _, a := range w.items {
		if a.ID == id && id != w.current {
			w.current = id
			w.showDetail(a)
			w.showList()
			w.updateTimes()
			w.relayout()
			w.arm()
			return
		}
	}
}

func (w *popup) setTicks(on bool) {
	for _, a := range w.items {
		w.ticked[a.ID] = on
		if c := w.rowChecks[a.ID]; c != nil {
			c.SetChecked(on)
		}
	}
}

// denyCurrent denies the call shown in detail.
func (w *popup) denyCurrent() {
	if w.current == "" {
		return
	}
	id := w.current
	w.p.answer(id, api.Answer{Decision: policy.Deny, Scope: api.ScopeDeny, Reason: w.takeReason()})
}

// allowCurrent allows the call shown in detail at scope: only when armed
// and the call offers that scope. A run, session or always answer carries
// the grant chosen in the Remember select.
func (w *popup) allowCurrent(scope api.Scope) {
	if !w.armed || w.current == "" {
		return
	}
	for _, a := range w.items {
		if a.ID != w.current {
			continue
		}
		for _, s := range a.Scopes {
			if s != scope {
				continue
			}
			ans := api.Answer{Decision: policy.Allow, Scope: scope, Runs: w.runsChoice(a)}
			if remembers(scope) && len(a.Remember) > 0 {
				if w.rememberChoice < 0 || w.rememberChoice >= len(a.Remember) {
					return // nothing chosen to remember
				}
				ans.Remember = a.Remember[w.rememberChoice].Grant
			}
			ans.Reason = w.takeReason()
			w.p.answer(a.ID, ans)
			return
		}
	}
}

// answerBatch answers the ticked calls (or all) at once; allowing is once.
func (w *popup) answerBatch(allow, all bool) {
	if allow && !w.armed {
		return
	}
	ans := api.Answer{Decision: policy.Deny, Scope: api.ScopeDeny}
	if allow {
		ans = api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}
	}
	ans.Reason = w.takeReason()
	for _, a := range append([]api.Approval(nil), w.items...) {
		if all || w.ticked[a.ID] {
			w.p.answer(a.ID, ans)
		}
	}
}

func (w *popup) takeReason() string {
	r := strings.TrimSpace(w.reason.Text)
	w.reason.SetText("")
	return r
}

// key handles the keys that deny, wherever the focus is: Escape, Enter.
func (w *popup) key(ev *fyne.KeyEvent) bool {
	switch ev.Name {
	case fyne.KeyEscape, fyne.KeyReturn, fyne.KeyEnter:
		w.denyCurrent()
		return true
	}
	return false
}

// runShortcut runs one of the popup's Alt shortcuts (for a focused entry
// that would otherwise swallow it).
func (w *popup) runShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok || cs.Modifier != fyne.KeyModifierAlt {
		return false
	}
	for scope, k := range allowKeys {
		if cs.KeyName == k {
			w.allowCurrent(scope)
			return true
		}
	}
	return false
}

// updateTimes refreshes the countdowns.
func (w *popup) updateTimes() {
	now := time.Now()
	for _, a := range w.items {
		if a.ID == w.current {
			w.countdown.SetText(countdownText(a.Expires, now))
		}
	}
	if len(w.items) > 1 {
		for i, a := range w.items {
			if i < len(w.rows.Objects) {
				if row, ok := w.rows.Objects[i].(*fyne.Container); ok {
					for _, o := range row.Objects {
						if b, ok := o.(*keyButton); ok {
							b.SetText(rowText(a))
						}
					}
				}
			}
		}
	}
}

func (w *popup) startTick() {
	if w.tick != nil {
		return
	}
	w.tick = time.AfterFunc(time.Second, func() { w.p.do(w.onTick) })
}

func (w *popup) onTick() {
	w.tick = nil
	if len(w.items) == 0 {
		return
	}
	w.updateTimes()
	w.startTick()
}

func (w *popup) stopTick() {
	if w.tick != nil {
		w.tick.Stop()
		w.tick = nil
	}
}

// headline is the popup's first line: who wants to do what.
func headline(a api.Approval) string {
	what := map[string]string{
		"shell": "run a command", "fs": "touch a file", "code": "edit code", "web": "reach the web",
		"mcp": "call an MCP tool", "subagent": "start a sub-agent", "computer": "use the computer",
		"git": "run git", "memory": "write memory", "skills": "change a skill", "image": "make an image",
	}[a.Category]
	if what == "" {
		what = "use " + a.Tool
	}
	return fmt.Sprintf("%s wants to %s", orUnknown(a.Agent), what)
}

func subjectKind(category string) string {
	switch category {
	case "shell", "git":
		return "Command"
	case "web":
		return "URL"
	case "fs", "code":
		return "Path"
	}
	return "Subject"
}

func argsText(args any) string {
	if args == nil {
		return "(none)"
	}
	data, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		return fmt.Sprint(args)
	}
	return string(data)
}

func rowText(a api.Approval) string {
	return fmt.Sprintf("%s · %s · %s · %s", orUnknown(a.Agent), a.Tool, ellipsis(oneLine(a.Subject), 70), shortCountdown(a.Expires, time.Now()))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// countdownText says how long until the call is denied.
func countdownText(expires, now time.Time) string {
	if expires.IsZero() {
		return ""
	}
	left := expires.Sub(now)
	if left <= 0 {
		return "expired: denied"
	}
	return "denied in " + clock(left)
}

func shortCountdown(expires, now time.Time) string {
	if expires.IsZero() {
		return ""
	}
	left := expires.Sub(now)
	if left <= 0 {
		return "expired"
	}
	return clock(left)
}

func clock(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func riskLabel(r string) string { return strings.ReplaceAll(r, "_", " ") }

func riskColor(r string) color.Color {
	switch r {
	case "deletes", "secret":
		return color.NRGBA{190, 30, 30, 255}
	case "network":
		return color.NRGBA{30, 90, 180, 255}
	case "elevated":
		return color.NRGBA{120, 50, 160, 255}
	case "inline_code":
		return color.NRGBA{200, 100, 0, 255}
	case "writes":
		return color.NRGBA{150, 110, 0, 255}
	}
	return color.NRGBA{90, 90, 100, 255}
}

// chip is a small coloured label for a risk.
func chip(text string, c color.Color) fyne.CanvasObject {
	bg := canvas.NewRectangle(c)
	bg.CornerRadius = 8
	t := canvas.NewText(text, color.White)
	t.TextStyle = fyne.TextStyle{Bold: true}
	t.TextSize = theme.CaptionTextSize() + 1
	return container.NewStack(bg, container.New(layout.NewCustomPaddedLayout(3, 3, 8, 8), t))
}

// keyButton is a button that also hands the deny keys to the popup.
type keyButton struct {
	widget.Button
	onKey func(*fyne.KeyEvent) bool
}

func newKeyButton(label string, tapped func(), onKey func(*fyne.KeyEvent) bool) *keyButton {
	b := &keyButton{onKey: onKey}
	b.Text, b.OnTapped = label, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey hands Escape and Enter to the popup, the rest to the button.
func (b *keyButton) TypedKey(ev *fyne.KeyEvent) {
	if b.onKey != nil && b.onKey(ev) {
		return
	}
	b.Button.TypedKey(ev)
}

// allowButton is an allow button: it answers a click and nothing typed
// (a focused button would otherwise answer Space).
type allowButton struct {
	widget.Button
	onKey func(*fyne.KeyEvent) bool
}

func newAllowButton(label string, tapped func(), onKey func(*fyne.KeyEvent) bool) *allowButton {
	b := &allowButton{onKey: onKey}
	b.Text, b.OnTapped = label, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey never taps: only the deny keys do anything.
func (b *allowButton) TypedKey(ev *fyne.KeyEvent) {
	if b.onKey != nil {
		b.onKey(ev)
	}
}

// TypedRune ignores typing.
func (b *allowButton) TypedRune(rune) {}

// tickCheck is a list row's tick box; Escape and Enter still deny.
type tickCheck struct {
	widget.Check
	onKey func(*fyne.KeyEvent) bool
}

func newTickCheck(changed func(bool), onKey func(*fyne.KeyEvent) bool) *tickCheck {
	c := &tickCheck{onKey: onKey}
	c.OnChanged = changed
	c.ExtendBaseWidget(c)
	return c
}

// TypedKey hands the deny keys to the popup.
func (c *tickCheck) TypedKey(ev *fyne.KeyEvent) {
	if c.onKey != nil && c.onKey(ev) {
		return
	}
	c.Check.TypedKey(ev)
}

// reasonEntry is the optional reason: Enter submits it with Deny (the
// default), Escape denies, and the Alt shortcuts still reach the popup.
type reasonEntry struct {
	widget.Entry
	w *popup
}

func newReasonEntry(w *popup) *reasonEntry {
	e := &reasonEntry{w: w}
	e.OnSubmitted = func(string) { w.denyCurrent() }
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey denies on Escape; the rest is typing.
func (e *reasonEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		e.w.denyCurrent()
		return
	}
	e.Entry.TypedKey(ev)
}

// TypedShortcut lets the popup's Alt shortcuts through.
func (e *reasonEntry) TypedShortcut(s fyne.Shortcut) {
	if e.w.runShortcut(s) {
		return
	}
	e.Entry.TypedShortcut(s)
}
