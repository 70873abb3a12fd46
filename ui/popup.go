package ui

import (
	"encoding/json"
	"fmt"
	"image/color"
	"runtime/debug"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app"
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
var allowScopes = []app.Scope{app.ScopeOnce, app.ScopeRun, app.ScopeSession, app.ScopeSessionAny, app.ScopeAlways}

// allowLabels and allowKeys are each allow button's text and Alt shortcut.
var (
	allowLabels = map[app.Scope]string{
		app.ScopeOnce:       "Allow once",
		app.ScopeRun:        "Allow for this run",
		app.ScopeSession:    "Allow for this session",
		app.ScopeSessionAny: "Any parameters (session)",
		app.ScopeAlways:     "Always allow",
	}
	allowKeys = map[app.Scope]fyne.KeyName{
		app.ScopeOnce:       fyne.KeyO,
		app.ScopeRun:        fyne.KeyR,
		app.ScopeSession:    fyne.KeyS,
		app.ScopeSessionAny: fyne.KeyP,
		app.ScopeAlways:     fyne.KeyA,
	}
)

// popup is the approval window: the call in front in detail, the others
// as a list to tick and answer together. Its methods run on Fyne's
// goroutine.
type popup struct {
	p       *Prompter
	win     fyne.Window
	visible bool // shown (test windows do not say)
	manual  bool // opened by the person from the tray: stays when empty

	items   []app.Approval  // as shown, in order
	current string          // the id shown in detail
	ticked  map[string]bool // ticked in the list

	armed   bool // the allow buttons answer
	armGen  int  // which arming the pending timer belongs to
	tick    *time.Timer
	content fyne.CanvasObject // the view with calls
	empty   fyne.CanvasObject // the view with none

	heading, countdown                *widget.Label
	agent, tool, cwd, why, subjectKey *widget.Label
	subject, args                     *widget.Label
	chips                             *fyne.Container
	reason                            *reasonEntry
	deny                              *keyButton
	allow                             map[app.Scope]*allowButton
	buttons                           *fyne.Container

	batch                                  *fyne.Container
	batchHeading                           *widget.Label
	rows                                   *fyne.Container
	allowTicked, allowAll                  *allowButton
	denyTicked, denyAll, tickAll, tickNone *keyButton
	rowChecks                              map[string]*tickCheck
}

func newPopup(a fyne.App, p *Prompter) *popup {
	w := &popup{p: p, win: a.NewWindow(PopupTitle), ticked: map[string]bool{}, allow: map[app.Scope]*allowButton{}}
	w.build()
	w.win.SetContent(w.empty)
	w.win.Resize(fyne.NewSize(780, 620))
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
	w.heading = widget.NewLabelWithStyle("", fyne.TextAlignLeading, bold)
	w.heading.Wrapping = fyne.TextWrapWord
	w.countdown = widget.NewLabelWithStyle("", fyne.TextAlignTrailing, bold)
	w.agent = widget.NewLabel("")
	w.tool = widget.NewLabel("")
	w.cwd = widget.NewLabel("")
	w.cwd.Wrapping = fyne.TextWrapBreak
	w.why = widget.NewLabel("")
	w.why.Wrapping = fyne.TextWrapWord
	w.subjectKey = widget.NewLabelWithStyle("Command", fyne.TextAlignLeading, bold)
	// The subject in full: wrapped and scrolled, never cut.
	w.subject = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	w.subject.Wrapping = fyne.TextWrapBreak
	w.subject.Selectable = true
	subjectScroll := container.NewVScroll(w.subject)
	subjectScroll.SetMinSize(fyne.NewSize(560, 96))
	w.args = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	w.args.Wrapping = fyne.TextWrapBreak
	w.args.Selectable = true
	argsScroll := container.NewVScroll(w.args)
	argsScroll.SetMinSize(fyne.NewSize(560, 120))
	argsBox := widget.NewAccordion(widget.NewAccordionItem("All arguments", argsScroll))
	w.chips = container.NewHBox()

	key := func(s string) *widget.Label { return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, bold) }
	form := container.New(layout.NewFormLayout(),
		key("Agent"), w.agent,
		key("Tool"), w.tool,
		w.subjectKey, subjectScroll,
		key("Folder"), w.cwd,
		key("Risks"), w.chips,
		key("Why"), w.why,
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
	w.buttons = container.NewGridWithColumns(1)
	hint := widget.NewLabelWithStyle("Enter or Escape denies. Allow: click, or Alt+O once, Alt+R run, Alt+S session, Alt+P any parameters, Alt+A always.",
		fyne.TextAlignLeading, fyne.TextStyle{})
	hint.Wrapping = fyne.TextWrapWord
	// Each text style costs Fyne a few MB of parsed fonts: the popup keeps
	// to regular, bold and monospace.
	hint.Importance = widget.LowImportance

	// The list of every call waiting, when there are several.
	w.batchHeading = widget.NewLabelWithStyle("", fyne.TextAlignLeading, bold)
	w.rows = container.NewVBox()
	rowsScroll := container.NewVScroll(w.rows)
	rowsScroll.SetMinSize(fyne.NewSize(560, 130))
	w.allowTicked = newAllowButton("Allow ticked (once)", func() { w.answerBatch(true, false) }, w.key)
	w.allowAll = newAllowButton("Allow all (once)", func() { w.answerBatch(true, true) }, w.key)
	w.denyTicked = newKeyButton("Deny ticked", func() { w.answerBatch(false, false) }, w.key)
	w.denyAll = newKeyButton("Deny all", func() { w.answerBatch(false, true) }, w.key)
	w.tickAll = newKeyButton("Tick all", func() { w.setTicks(true) }, w.key)
	w.tickNone = newKeyButton("Tick none", func() { w.setTicks(false) }, w.key)
	for _, b := range []*keyButton{w.tickAll, w.tickNone} {
		b.Importance = widget.LowImportance
	}
	w.batch = container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(w.tickAll, w.tickNone), w.batchHeading),
		rowsScroll,
		container.NewGridWithColumns(4, w.denyAll, w.denyTicked, w.allowTicked, w.allowAll),
		widget.NewSeparator(),
	)

	top := container.NewVBox(
		w.batch,
		container.NewBorder(nil, nil, nil, w.countdown, w.heading),
		form,
		argsBox,
	)
	bottom := container.NewVBox(widget.NewSeparator(), w.reason, hint, w.buttons)
	w.content = container.NewBorder(nil, bottom, nil, nil, container.NewVScroll(top))

	settings := widget.NewButton("Close", func() { w.hide() })
	w.empty = container.NewCenter(container.NewVBox(
		widget.NewLabelWithStyle("No calls are waiting for you.", fyne.TextAlignCenter, bold),
		widget.NewLabel("agate shows a call here when an agent's call needs your answer."),
		container.NewCenter(settings),
	))
}

// refresh shows the queue as it is now: called after every change.
func (w *popup) refresh() {
	items := w.p.waiting()
	if len(items) == 0 {
		w.items, w.current = nil, ""
		w.ticked = map[string]bool{}
		w.stopTick()
		if w.manual {
			w.win.SetContent(w.empty)
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
	if changed {
		w.arm()
	}
	w.startTick()
}

// bringForward shows the popup in front: the tray's "Pending approvals",
// or a click on the tray icon.
func (w *popup) bringForward() {
	w.manual = true
	if len(w.p.waiting()) == 0 {
		w.win.SetContent(w.empty)
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
		w.p.answer(a.ID, app.Answer{Verdict: policy.Deny, Scope: app.ScopeDeny, Reason: w.reason.Text})
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

func (w *popup) setArmed(on bool) {
	w.armed = on
	buttons := []*allowButton{w.allowTicked, w.allowAll}
	for _, b := range w.allow {
		buttons = append(buttons, b)
	}
	for _, b := range buttons {
		if on {
			b.Enable()
		} else {
			b.Disable()
		}
	}
}

// showDetail fills the detail view with one call.
func (w *popup) showDetail(a app.Approval) {
	w.heading.SetText(headline(a))
	who := orUnknown(a.Agent)
	if a.Session != "" {
		who += " · session " + a.Session
		if a.Run != "" {
			who += " (run " + a.Run + ")"
		}
	}
	w.agent.SetText(who)
	w.tool.SetText(fmt.Sprintf("%s (%s)", a.Tool, a.Category))
	w.subjectKey.SetText(subjectKind(a.Category))
	subj := a.Subject
	if subj == "" {
		subj = "(no command, path or URL: see all arguments)"
	}
	w.subject.SetText(subj)
	w.cwd.SetText(a.Cwd)
	w.why.SetText(whyText(a))
	w.args.SetText(argsText(a.Args))

	w.chips.Objects = nil
	for _, r := range a.Risks {
		w.chips.Add(chip(riskLabel(r), riskColor(r)))
	}
	if a.Tainted {
		w.chips.Add(chip("tainted", color.NRGBA{90, 90, 100, 255}))
	}
	if len(w.chips.Objects) == 0 {
		w.chips.Add(widget.NewLabel("none seen"))
	}
	w.chips.Refresh()

	offered := map[app.Scope]bool{}
	for _, s := range a.Scopes {
		offered[s] = true
	}
	objs := []fyne.CanvasObject{w.deny}
	for _, s := range allowScopes {
		if offered[s] {
			objs = append(objs, w.allow[s])
		}
	}
	w.buttons.Objects = objs
	w.buttons.Layout = layout.NewGridLayoutWithColumns(len(objs))
	w.buttons.Refresh()
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
	w.rows.Refresh()
	w.batch.Show()
}

// pick shows another call in detail.
func (w *popup) pick(id string) {
	for _, a := range w.items {
		if a.ID == id && id != w.current {
			w.current = id
			w.showDetail(a)
			w.showList()
			w.updateTimes()
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
	w.p.answer(id, app.Answer{Verdict: policy.Deny, Scope: app.ScopeDeny, Reason: w.takeReason()})
}

// allowCurrent allows the call shown in detail at scope: only when armed
// and the call offers that scope.
func (w *popup) allowCurrent(scope app.Scope) {
	if !w.armed || w.current == "" {
		return
	}
	for _, a := range w.items {
		if a.ID != w.current {
			continue
		}
		for _, s := range a.Scopes {
			if s == scope {
				w.p.answer(a.ID, app.Answer{Verdict: policy.Allow, Scope: scope, Reason: w.takeReason()})
				return
			}
		}
	}
}

// answerBatch answers the ticked calls (or all) at once; allowing is once.
func (w *popup) answerBatch(allow, all bool) {
	if allow && !w.armed {
		return
	}
	ans := app.Answer{Verdict: policy.Deny, Scope: app.ScopeDeny}
	if allow {
		ans = app.Answer{Verdict: policy.Allow, Scope: app.ScopeOnce}
	}
	ans.Reason = w.takeReason()
	for _, a := range append([]app.Approval(nil), w.items...) {
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
func headline(a app.Approval) string {
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

// whyText says which layer asked, by which rule, and why.
func whyText(a app.Approval) string {
	var b strings.Builder
	b.WriteString(a.Reason)
	b.WriteString("\n(layer: " + a.Layer)
	if a.Rule != "" {
		fmt.Fprintf(&b, "; rule %q", a.Rule)
		if a.Source != "" {
			b.WriteString(" from " + a.Source)
		}
	}
	if a.Grant != "" {
		b.WriteString("; a session or always answer records " + a.Grant)
	}
	b.WriteString(")")
	return b.String()
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

func rowText(a app.Approval) string {
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
