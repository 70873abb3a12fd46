package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

// probeTimeout bounds one sandbox probe.
const probeTimeout = 60 * time.Second

// sandboxTab shows what the sandbox can do here, from a real probe (a
// tiny confined command that must fail to escape), and edits whether it
// is on and which launcher it uses.
type sandboxTab struct {
	s          *Settings
	prober     sandbox.Prober
	enabled    *widget.Check
	failClosed *widget.Check
	launcher   *widget.Select
	diag       *widget.Form
	values     map[string]*widget.Label
	checks     *widget.Label
	install    *widget.Label
	probing    *widget.ProgressBarInfinite
	content    fyne.CanvasObject
}

var diagFields = []string{"enabled", "platform", "launcher", "available", "version", "network isolation", "fail closed", "reason"}

func newSandboxTab(s *Settings) *sandboxTab {
	t := &sandboxTab{s: s, values: map[string]*widget.Label{}}
	t.enabled = widget.NewCheck("Run agents' commands in the sandbox ([tools] sandbox)", func(on bool) {
		t.s.edit(app.SetConfigKey("tools", "sandbox", on))
	})
	t.failClosed = widget.NewCheck("Refuse to run a command when no sandbox works ([sandbox] fail_closed)", func(on bool) {
		t.s.edit(app.SetConfigKey("sandbox", "fail_closed", on))
	})
	t.launcher = widget.NewSelect(sandbox.LauncherNames, func(l string) {
		if t.s.edit(app.SetConfigKey("sandbox", "launcher", l)) == nil && !t.s.loading {
			t.probe(true)
		}
	})
	t.diag = widget.NewForm()
	for _, f := range diagFields {
		l := widget.NewLabel("…")
		l.Wrapping = fyne.TextWrapWord
		t.values[f] = l
		t.diag.Append(f, l)
	}
	t.checks = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	t.checks.Wrapping = fyne.TextWrapWord
	t.install = widget.NewLabel("")
	t.install.Wrapping = fyne.TextWrapWord
	t.probing = widget.NewProgressBarInfinite()
	t.probing.Stop()
	t.probing.Hide()
	t.content = container.NewVScroll(container.NewVBox(
		widget.NewCard("Settings", "", container.NewVBox(t.enabled, t.failClosed,
			widget.NewForm(widget.NewFormItem("Launcher", t.launcher)))),
		widget.NewCard("Diagnostics", "From a real probe: a confined command that must fail to write outside its folder and to reach the network.",
			container.NewVBox(t.diag, t.checks, t.install, t.probing, widget.NewButton("Probe again", func() { t.probe(true) }))),
	))
	return t
}

func (t *sandboxTab) load(cfg *policy.Config) {
	t.enabled.SetChecked(cfg.SandboxEnabled())
	t.failClosed.SetChecked(cfg.Sandbox.FailClosed)
	t.launcher.SetSelected(cfg.Sandbox.Launcher)
}

// probe runs the probe off Fyne's goroutine (it starts processes) and
// shows its answer; the answer is cached until the options change.
func (t *sandboxTab) probe(again bool) {
	if again {
		t.prober.Invalidate()
	}
	o := app.SandboxOptions(t.s.config(), t.s.d.Paths(), "")
	t.probing.Show()
	t.probing.Start()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		d := t.prober.Get(ctx, o)
		t.s.do(func() { t.show(d) })
	}()
}

// show fills the diagnostics.
func (t *sandboxTab) show(d sandbox.Diagnostics) {
	t.probing.Stop()
	t.probing.Hide()
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	vals := map[string]string{
		"enabled": yes(d.Enabled), "platform": d.Platform, "launcher": d.Launcher, "available": yes(d.Available),
		"version": d.Version, "network isolation": yes(d.NetworkIsolation), "fail closed": yes(d.FailClosed), "reason": d.Reason,
	}
	for f, l := range t.values {
		l.SetText(vals[f])
	}
	var b strings.Builder
	for _, c := range d.Checks {
		mark := "✓"
		if !c.OK {
			mark = "✗"
		}
		fmt.Fprintf(&b, "%s %s %s\n", mark, c.Name, c.Detail)
	}
	for _, s := range d.Skipped {
		fmt.Fprintf(&b, "skipped: %s\n", s)
	}
	fmt.Fprintf(&b, "probed at %s", d.ProbedAt.Format("15:04:05"))
	t.checks.SetText(b.String())
	if d.Install != "" {
		t.install.SetText("To install: " + d.Install)
	} else {
		t.install.SetText("")
	}
}
