package ui

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

// probeTimeout bounds one sandbox probe.
const probeTimeout = 60 * time.Second

// sandboxTab shows what the sandbox does here, from a real probe (a tiny
// confined command that must fail to escape), in words and first; then
// edits whether it is on, what runs in it and which launcher it uses; the
// probe's raw fields come last.
type sandboxTab struct {
	s              *Settings
	shown          bool // the tab was opened: what it probes is shown from then on
	prober         sandbox.Prober
	summary        *widget.Label
	checks         *widget.RichText
	fix            *widget.Label
	install        *widget.Label
	probing        *widget.ProgressBarInfinite
	enabled        *widget.Check
	confineProject *widget.Check
	confineNote    *widget.Label
	confineUnasked *widget.Check
	unaskedNote    *widget.Label
	failClosed     *widget.Check
	launcher       *widget.Select
	diag           *widget.Form
	values         map[string]*widget.Label
	content        fyne.CanvasObject
}

var diagFields = []string{"enabled", "platform", "launcher", "available", "version", "network isolation", "fail closed", "reason", "skipped", "probed at"}

// checkWords says each of the probe's checks in words: what holds when it
// passed, and what does not when it failed.
var checkWords = map[string][2]string{
	"write_outside_denied": {"A command cannot write outside its folder.", "A command CAN write outside its folder."},
	"write_work_allowed":   {"A command can write in its own folder.", "A command cannot write in its own folder: most would fail."},
	"protected_read_only":  {"Files that run code or steer an agent (git hooks, .env, shell profiles, agents' settings, agate's config) stay read-only.", "Files that run code or steer an agent can be written."},
	"hidden_invisible":     {"agate's own state, the credential stores, the session bus, the ssh agent and container sockets are out of reach (permission denied).", "agate's state and the paths it hides CAN be seen."},
	"env_scrubbed":         {"Secrets are taken out of the environment.", "Secrets are NOT taken out of the environment."},
	"network_cut":          {"The network is cut (only agate's --net lets a command out).", "The network is NOT cut."},
}

// checkSentence is one check in words, with its detail.
func checkSentence(c sandbox.Check) string {
	w, ok := checkWords[c.Name]
	s := ""
	switch {
	case ok && c.OK:
		s = w[0]
	case ok:
		s = w[1]
	default:
		s = strings.ReplaceAll(c.Name, "_", " ")
	}
	if c.Detail != "" {
		s += " (" + c.Detail + ")"
	}
	return s
}

func newSandboxTab(s *Settings) *sandboxTab {
	t := &sandboxTab{s: s, values: map[string]*widget.Label{}}
	wrapped := func(style fyne.TextStyle) *widget.Label {
		l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, style)
		l.Wrapping = fyne.TextWrapWord
		return l
	}
	t.summary = wrapped(fyne.TextStyle{Bold: true})
	t.summary.SetText("Probing the sandbox…")
	t.checks = widget.NewRichText()
	t.checks.Wrapping = fyne.TextWrapWord
	t.fix = wrapped(fyne.TextStyle{})
	t.fix.Importance = widget.DangerImportance
	t.install = wrapped(fyne.TextStyle{})
	t.probing = widget.NewProgressBarInfinite()
	t.probing.Stop()
	t.probing.Hide()

	t.enabled = widget.NewCheck("Run agents' commands in the sandbox ([tools] sandbox)", func(on bool) {
		t.s.edit(config.SetKey("tools", "sandbox", on))
	})
	t.confineProject = widget.NewCheck("Run the project's own code (make test, pytest) unasked inside the sandbox, headless too; ask only when it needs more ([sandbox] confine_project)", func(on bool) {
		t.s.edit(config.SetKey("sandbox", "confine_project", on))
	})
	t.confineNote = wrapped(fyne.TextStyle{})
	t.confineNote.Importance = widget.LowImportance
	t.confineUnasked = widget.NewCheck("Run what agate lets through unasked inside the sandbox, cut to what agate judged: read-only, or the project writable; no network, the credential stores hidden ([sandbox] confine_unasked)", func(on bool) {
		t.s.edit(config.SetKey("sandbox", "confine_unasked", on))
	})
	t.unaskedNote = wrapped(fyne.TextStyle{})
	t.unaskedNote.Importance = widget.LowImportance
	t.failClosed = widget.NewCheck("Refuse to run a command when no sandbox works ([sandbox] fail_closed)", func(on bool) {
		t.s.edit(config.SetKey("sandbox", "fail_closed", on))
	})
	t.launcher = widget.NewSelect(sandbox.LauncherNames, func(l string) {
		if t.s.edit(config.SetKey("sandbox", "launcher", l)) == nil && !t.s.loading {
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
	t.content = container.NewVScroll(container.NewVBox(
		widget.NewCard("What the sandbox does here", "From a real probe: a confined command that must fail to escape.",
			container.NewVBox(t.summary, t.checks, t.fix, t.install, t.probing,
				container.NewHBox(widget.NewButton("Probe again", func() { t.probe(true) })))),
		widget.NewCard("Settings", "", container.NewVBox(t.confineUnasked, t.unaskedNote, t.enabled, t.confineProject, t.confineNote, t.failClosed,
			widget.NewForm(widget.NewFormItem("Launcher", t.launcher)))),
		widget.NewCard("Diagnostics", "The probe's findings as `agate sandbox --diagnose` prints them.", t.diag),
	))
	return t
}

func (t *sandboxTab) load(cfg *policy.Config) {
	t.enabled.SetChecked(cfg.SandboxEnabled())
	t.failClosed.SetChecked(cfg.Sandbox.FailClosed)
	t.launcher.SetSelected(cfg.Sandbox.Launcher)
	t.confineUnasked.SetChecked(cfg.Sandbox.ConfineUnasked)
	if t.shown {
		t.showUnasked() // else when the tab is opened, as the probe
	}
	on, known := configBool(cfg.Sandbox, "confine_project")
	t.confineProject.SetChecked(on)
	if known {
		t.confineProject.Enable()
		t.confineNote.SetText("")
		t.confineNote.Hide()
	} else {
		t.confineProject.Disable()
		t.confineNote.SetText("This agate's config does not know [sandbox] confine_project yet.")
		t.confineNote.Show()
	}
}

// showUnasked says, from the daemon's probe of the OS's own sandbox,
// whether confine_unasked holds here, and why not.
func (t *sandboxTab) showUnasked() {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		_, state := t.s.d.ConfineUnasked(ctx)
		t.s.do(func() { t.unaskedNote.SetText(state) })
	}()
}

// configBool reads the bool field of a config section (a struct) whose
// toml key is key; known is false when the section has no such key (a
// config parser older than the key).
func configBool(section any, key string) (on, known bool) {
	v := reflect.ValueOf(section)
	if v.Kind() != reflect.Struct {
		return false, false
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == key && f.Type.Kind() == reflect.Bool {
			return v.Field(i).Bool(), true
		}
	}
	return false, false
}

// probe runs the probe off Fyne's goroutine (it starts processes) and
// shows its answer; the answer is cached until the options change.
func (t *sandboxTab) probe(again bool) {
	if again {
		t.prober.Invalidate()
	}
	o := machine.SandboxOptions(t.s.config(), t.s.d.Paths(), "")
	t.probing.Show()
	t.probing.Start()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		d := t.prober.Get(ctx, o)
		t.s.do(func() { t.show(d) })
	}()
}

// summaryText is the probe's answer in one sentence.
func summaryText(d sandbox.Diagnostics) string {
	var s string
	switch {
	case d.Available:
		s = fmt.Sprintf("%s confines agents' commands here", d.Launcher)
		if d.Version != "" {
			s += " (" + d.Version + ")"
		}
		s += "."
	case d.FailClosed:
		s = "No sandbox works here, so commands that should run in it are refused."
	default:
		s = "No sandbox works here: commands that should run in it run unconfined."
	}
	if !d.Enabled {
		s += " The sandbox is off ([tools] sandbox): agents' commands run as they are."
	}
	return s
}

// show fills what the probe found: in words at the top, the raw fields
// at the bottom.
func (t *sandboxTab) show(d sandbox.Diagnostics) {
	t.probing.Stop()
	t.probing.Hide()
	t.summary.SetText(summaryText(d))
	var segs []widget.RichTextSegment
	for _, c := range d.Checks {
		mark, col := "✓ ", theme.ColorNameSuccess
		if !c.OK {
			mark, col = "✗ ", theme.ColorNameError
		}
		segs = append(segs, colored(mark, col), plain(checkSentence(c)), para())
	}
	if len(d.Checks) == 0 && d.Reason != "" {
		segs = append(segs, plain(d.Reason), para())
	}
	t.checks.Segments = segs
	t.checks.Refresh()
	if d.Fix != "" {
		t.fix.SetText("What to change so that it can run: " + d.Fix)
		t.fix.Show()
	} else {
		t.fix.Hide()
	}
	if d.Install != "" {
		t.install.SetText("To install: " + d.Install)
		t.install.Show()
	} else {
		t.install.Hide()
	}

	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	vals := map[string]string{
		"enabled": yes(d.Enabled), "platform": d.Platform, "launcher": d.Launcher, "available": yes(d.Available),
		"version": d.Version, "network isolation": yes(d.NetworkIsolation), "fail closed": yes(d.FailClosed), "reason": d.Reason,
		"skipped": strings.Join(d.Skipped, "; "), "probed at": d.ProbedAt.Format("15:04:05"),
	}
	for f, l := range t.values {
		l.SetText(vals[f])
	}
	t.content.Refresh()
}
