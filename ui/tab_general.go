package ui

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/policy"
)

// modeOptions are the General tab's modes, as labels and config values.
var modeOptions = []struct{ label, mode string }{
	{"Ask", "ask"}, {"Accept edits", "accept_edits"}, {"Plan", "plan"}, {"YOLO", "yolo"}, {"Manual", "manual"},
}

// agateCategories are the categories agate reasons about (the rest of
// policy.Categories are eVi's other toggles).
var agateCategories = policy.Categories[:11]

// generalTab edits the mode, the auto-approved categories, the approval
// timeout and what hooks do when the daemon is down.
type generalTab struct {
	s            *Settings
	mode         *widget.Select
	autoApprove  map[string]*widget.Check
	allowYolo    *widget.Check
	timeout      *widget.Entry
	timeoutCheck *widget.Label
	onDown       *widget.RadioGroup
	content      fyne.CanvasObject
}

func newGeneralTab(s *Settings) *generalTab {
	t := &generalTab{s: s}
	t.mode = widget.NewSelect(nil, t.onMode)
	t.autoApprove = map[string]*widget.Check{}
	checks := container.NewGridWithColumns(6)
	for _, c := range agateCategories {
		t.autoApprove[c] = widget.NewCheck(c, func(bool) { t.onAutoApprove() })
		checks.Add(t.autoApprove[c])
	}
	t.allowYolo = widget.NewCheck("YOLO mode may be chosen ([approvals] allow_yolo)", t.onAllowYolo)
	t.timeout = widget.NewEntry()
	t.timeout.OnChanged = t.checkTimeout
	t.timeout.OnSubmitted = func(string) { t.saveTimeout() }
	t.timeoutCheck = widget.NewLabel("")
	t.onDown = widget.NewRadioGroup([]string{"deny", "ask"}, t.onDaemonDown)
	t.onDown.Horizontal = true

	help := func(s string) *widget.Label {
		l := widget.NewLabel(s)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.LowImportance
		return l
	}
	form := widget.NewForm(
		widget.NewFormItem("Mode", container.NewVBox(t.mode, help("Ask: anything not pre-approved asks. Accept edits: file edits in the project allow. Plan: every call that acts is denied. YOLO: everything allows (hard deny and guardrails still hold). Manual: every call that acts asks."))),
		widget.NewFormItem("", t.allowYolo),
		widget.NewFormItem("Auto-approve", container.NewVBox(checks, help("Categories that run without asking. Shell, web, subagent and computer are left out by default."))),
		widget.NewFormItem("Approval timeout", container.NewVBox(
			container.NewBorder(nil, nil, nil, widget.NewButton("Save", t.saveTimeout), t.timeout),
			t.timeoutCheck,
			help("How long a question waits for you; then the call is denied."))),
		widget.NewFormItem("Daemon down", container.NewVBox(t.onDown, help("When an agent's hook cannot reach agate: deny blocks the call, ask hands it to the agent's own prompt. Never allow."))),
	)
	t.content = container.NewVScroll(container.NewPadded(form))
	return t
}

func (t *generalTab) load(cfg *policy.Config) {
	var opts []string
	for _, m := range modeOptions {
		if m.mode == "yolo" && !cfg.Approvals.AllowYolo {
			continue
		}
		opts = append(opts, m.label)
	}
	t.mode.Options = opts
	mode := cfg.Auto.Mode
	if m, err := policy.ParseMode(mode); err == nil {
		mode = m.String()
	}
	for _, m := range modeOptions {
		if m.mode == mode {
			t.mode.SetSelected(m.label)
		}
	}
	on := map[string]bool{}
	for _, c := range cfg.Auto.AutoApprove {
		on[c] = true
	}
	for c, box := range t.autoApprove {
		box.SetChecked(on[c])
	}
	t.allowYolo.SetChecked(cfg.Approvals.AllowYolo)
	t.timeout.SetText(cfg.ApprovalTimeout().String())
	t.timeoutCheck.SetText("")
	t.onDown.SetSelected(cfg.Hooks.OnDaemonDown)
	// What the managed policy holds is shown as it is in force, and
	// locked.
	m := cfg.ManagedLayer()
	lock := func(w fyne.Disableable, key string) {
		if m.Locked(key) {
			w.Disable()
		} else {
			w.Enable()
		}
	}
	lock(t.mode, "auto.mode")
	lock(t.allowYolo, "approvals.allow_yolo")
	lock(t.timeout, "approvals.timeout")
	lock(t.onDown, "hooks.on_daemon_down")
	for _, box := range t.autoApprove {
		lock(box, "auto.auto_approve")
	}
}

func (t *generalTab) onMode(label string) {
	for _, m := range modeOptions {
		if m.label == label {
			if t.s.edit(config.SetKey("auto", "mode", m.mode)) == nil && !t.s.loading {
				config.ForgetPause(t.s.d.Paths())
			}
		}
	}
}

func (t *generalTab) onAutoApprove() {
	if t.s.loading {
		return
	}
	// In the categories' order, keeping any of eVi's categories the file
	// lists (they have no box here).
	in := map[string]bool{}
	for _, c := range t.s.config().Auto.AutoApprove {
		in[c] = true
	}
	for c, box := range t.autoApprove {
		in[c] = box.Checked
	}
	var list []string
	for _, c := range policy.Categories {
		if in[c] {
			list = append(list, c)
		}
	}
	if list == nil {
		list = []string{}
	}
	t.s.edit(config.SetKey("auto", "auto_approve", list))
}

func (t *generalTab) onAllowYolo(on bool) { t.s.edit(config.SetKey("approvals", "allow_yolo", on)) }

func (t *generalTab) onDaemonDown(v string) {
	if v != "" {
		t.s.edit(config.SetKey("hooks", "on_daemon_down", v))
	}
}

// parseTimeout reads the timeout as the config does: "90s", "2m", or a
// number of seconds.
func parseTimeout(s string) (time.Duration, error) {
	var secs int
	if _, err := fmt.Sscanf(s, "%d", &secs); err == nil && fmt.Sprint(secs) == s {
		return time.Duration(secs) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (write e.g. 90s or 2m)", s)
	}
	return d, nil
}

func (t *generalTab) checkTimeout(s string) {
	if t.s.loading {
		return
	}
	d, err := parseTimeout(s)
	switch {
	case err != nil:
		t.timeoutCheck.SetText(err.Error())
	case d <= 0 || d > 24*time.Hour:
		t.timeoutCheck.SetText("out of range: more than 0s, at most 24h")
	default:
		t.timeoutCheck.SetText("calls wait " + d.String() + " (press Enter or Save)")
	}
}

func (t *generalTab) saveTimeout() {
	d, err := parseTimeout(t.timeout.Text)
	if err != nil {
		t.timeoutCheck.SetText(err.Error())
		return
	}
	t.s.edit(config.SetKey("approvals", "timeout", d))
}
