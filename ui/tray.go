package ui

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"

	"github.com/agatehq/agate/app/daemon"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/assets"
	"github.com/agatehq/agate/policy"
)

// trayModes are the modes the tray offers, with their menu labels.
var trayModes = []struct{ mode, label string }{
	{"ask", "Ask"},
	{"accept_edits", "Accept edits"},
	{"plan", "Plan"},
	{"yolo", "YOLO"},
}

// trayInput is everything the tray shows, read off Fyne's goroutine.
type trayInput struct {
	mode      string // [auto] mode, normalised ("auto" is "ask")
	allowYolo bool
	configErr string
	pending   int
	paused    bool
	pausedWas string // the mode Resume goes back to
	leaks     int    // secrets pasted into a chat, not rotated since
	leak      string // the latest of them, as agate names it (no value)
}

// readTray reads the tray's state from the daemon and the pause file.
func readTray(d *daemon.Daemon) trayInput {
	cfg, err := d.Config()
	in := trayInput{mode: cfg.Auto.Mode, allowYolo: cfg.Approvals.AllowYolo, pending: len(d.Pending())}
	if m, perr := policy.ParseMode(cfg.Auto.Mode); perr == nil {
		in.mode = m.String()
	}
	if err != nil {
		in.configErr = err.Error()
	}
	if st, paused, perr := config.Paused(d.Paths()); perr == nil && paused {
		in.paused, in.pausedWas = true, st.Auto
	}
	if ls, lerr := d.Leaks(); lerr == nil && len(ls) > 0 {
		in.leaks, in.leak = len(ls), ls[0].Label()
	}
	return in
}

// iconState is the tray icon for a state: waiting calls first (they need
// the person now), then a broken config, then the warning for yolo, then
// plan.
func iconState(in trayInput) assets.TrayState {
	switch {
	case in.pending > 0:
		return assets.TrayPending
	case in.configErr != "":
		return assets.TrayError
	case in.mode == "yolo":
		return assets.TrayYolo
	case in.mode == "plan":
		return assets.TrayPlan
	}
	return assets.TrayIdle
}

// trayActions are what the tray's menu items do.
type trayActions struct {
	setMode  func(mode string)
	pending  func()
	settings func()
	activity func()
	pause    func()
	resume   func()
	quit     func()
}

// trayMenu builds the tray menu for a state.
func trayMenu(in trayInput, act trayActions) *fyne.Menu {
	var items []*fyne.MenuItem
	for _, m := range trayModes {
		if m.mode == "yolo" && !in.allowYolo {
			continue // [approvals] allow_yolo = false
		}
		mode := m.mode
		label := m.label
		if mode == "yolo" {
			label += " (allow everything)"
		}
		it := fyne.NewMenuItem(label, func() { act.setMode(mode) })
		it.Checked = in.mode == mode
		items = append(items, it)
	}
	if in.mode == "manual" {
		it := fyne.NewMenuItem("Manual (set in config.toml)", nil)
		it.Checked, it.Disabled = true, true
		items = append(items, it)
	}
	items = append(items, fyne.NewMenuItemSeparator())
	pend := fyne.NewMenuItem(fmt.Sprintf("Pending approvals (%d)", in.pending), act.pending)
	pend.Disabled = in.pending == 0
	items = append(items, pend,
		fyne.NewMenuItem("Settings...", act.settings),
		fyne.NewMenuItem("Activity...", act.activity))
	if in.paused {
		was := in.pausedWas
		if was == "" {
			was = "ask"
		}
		items = append(items, fyne.NewMenuItem("Resume agents (back to "+modeLabel(was)+")", act.resume))
	} else {
		items = append(items, fyne.NewMenuItem("Pause all agents", act.pause))
	}
	if in.configErr != "" {
		bad := fyne.NewMenuItem("Config error: see Settings", act.settings)
		items = append(items, bad)
	}
	if in.leaks > 0 {
		items = append(items, fyne.NewMenuItem(leakSummary(in)+": rotate (agate doctor)", act.activity))
	}
	items = append(items, fyne.NewMenuItemSeparator())
	quit := fyne.NewMenuItem("Quit", act.quit)
	quit.IsQuit = true
	items = append(items, quit)
	return fyne.NewMenu("agate", items...)
}

// trayItem is the tray item's title, tooltip and status for a state: the
// tooltip says what waits, or else a secret pasted into a chat, or else the
// mode; the status asks for attention while calls wait.
func trayItem(in trayInput) (title, tooltip, status string) {
	title, status = "agate", "Active"
	switch {
	case in.pending > 0:
		status = "NeedsAttention"
		tooltip = fmt.Sprintf("agate: %d calls waiting for your answer", in.pending)
		if in.pending == 1 {
			tooltip = "agate: 1 call waiting for your answer"
		}
	case in.leaks > 0:
		tooltip = "agate: " + leakSummary(in) + ", the latest " + in.leak + ": rotate it (agate doctor says how)"
	case in.configErr != "":
		tooltip = "agate: config.toml has an error (see Settings); the last good settings hold"
	case in.paused:
		tooltip = "agate: agents paused (plan mode): every call that acts is denied"
	default:
		tooltip = "agate: nothing waiting; mode " + modeLabel(in.mode)
	}
	return title, tooltip, status
}

// leakSummary says how many secrets were pasted into a chat.
func leakSummary(in trayInput) string {
	if in.leaks == 1 {
		return "1 secret pasted into a chat"
	}
	return fmt.Sprintf("%d secrets pasted into a chat", in.leaks)
}

func modeLabel(mode string) string {
	for _, m := range trayModes {
		if m.mode == mode {
			return m.label
		}
	}
	return mode
}

// setMode writes [auto] mode to config.toml through the comment-keeping
// editor, ends a pause (the person chose), and reloads at once so the
// tray and the next call see it without waiting for the watcher's
// debounce; the watcher then applies the same file again, a no-op.
func setMode(d *daemon.Daemon, mode string) error {
	if err := config.EditFile(d.Paths().Config, config.SetKey("auto", "mode", mode)); err != nil {
		return err
	}
	if err := config.ForgetPause(d.Paths()); err != nil {
		return err
	}
	return d.Reload()
}

// pause puts every agent in plan mode until resume.
func pause(d *daemon.Daemon) error {
	if err := config.Pause(d.Paths(), time.Now()); err != nil {
		return err
	}
	return d.Reload()
}

// resume goes back to the modes in force before pause.
func resume(d *daemon.Daemon) error {
	if _, err := config.Resume(d.Paths()); err != nil {
		return err
	}
	return d.Reload()
}
