package ui

import (
	"context"
	"fmt"
	"log"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon"
	"github.com/agatehq/agate/app/files/undo"
	"github.com/agatehq/agate/assets"
)

// Desktop is the tray app around a daemon: the tray icon and menu, the
// approval popup (its Prompter) and the settings panel. Run builds one on
// the real Fyne app; tests build one on Fyne's test app.
type Desktop struct {
	fa       fyne.App
	d        *daemon.Daemon
	Prompter *Prompter
	settings atomic.Pointer[Settings] // made on first use: most runs never open it
	logf     func(format string, args ...any)

	// setItem sets the tray item's title, tooltip and status (Run sets it;
	// nil under the test driver, which has no tray).
	setItem func(title, tooltip, status string)

	// Fyne's goroutine only:
	last     *trayInput
	lastIcon string
}

// DesktopOptions tune a Desktop.
type DesktopOptions struct {
	// Notify shows a desktop notification per new approval; nil shows none.
	Notify func(title, body string) error
	// Logf logs; nil logs to the standard logger.
	Logf func(format string, args ...any)
}

// NewDesktop builds the tray app's windows (hidden) around d. It does not
// attach the prompter: Run does, once the app runs.
func NewDesktop(fa fyne.App, d *daemon.Daemon, o DesktopOptions) *Desktop {
	u := &Desktop{fa: fa, d: d, logf: o.Logf}
	if u.logf == nil {
		u.logf = log.Printf
	}
	u.Prompter = NewPrompter(fa, PrompterOptions{Notify: o.Notify, Order: d.Pending, Logf: u.logf})
	return u
}

// Settings returns the settings panel, building it the first time. It
// runs on Fyne's goroutine.
func (u *Desktop) Settings() *Settings {
	if s := u.settings.Load(); s != nil {
		return s
	}
	s := NewSettings(u.fa, u.d, u.logf)
	s.ended = &u.Prompter.ended // one loop: when it ends, both windows are left alone
	u.settings.Store(s)
	return s
}

// Watch keeps the tray and the open panel up to date from the daemon's
// events until ctx ends: pushed, not polled. A stream the daemon dropped
// (it fell behind) is opened again.
func (u *Desktop) Watch(ctx context.Context) {
	for ctx.Err() == nil {
		ch, stop := u.d.Subscribe("")
		u.refreshTray()
		u.drain(ctx, ch)
		stop()
	}
}

func (u *Desktop) drain(ctx context.Context, ch <-chan api.Event) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-ch:
			if !ok {
				return
			}
			switch ev.Type {
			case "config", "approval.requested", "approval.granted", "approval.denied", "approval.expired", "secret.leaked", "secret.rotated":
				u.refreshTray()
			case "decision":
				if title, body, ok := keptNotice(ev); ok && u.Prompter.notify != nil {
					go func() {
						if err := u.Prompter.notify(title, body); err != nil {
							u.logf("notification: %v", err)
						}
					}()
				}
			}
			if s := u.settings.Load(); s != nil {
				s.event(ev)
			}
		}
	}
}

// refreshTray reads the state here and shows it on Fyne's goroutine.
func (u *Desktop) refreshTray() {
	in := readTray(u.d)
	u.Prompter.do(func() { u.showTray(in) })
}

// showTray sets the tray's icon and menu when what they show changed.
func (u *Desktop) showTray(in trayInput) {
	if u.last != nil && *u.last == in {
		return
	}
	u.last = &in
	desk, ok := u.fa.(desktop.App)
	if !ok {
		return // no system tray (the test driver, a mobile build)
	}
	name, png := assets.Tray(iconState(in), in.pending)
	if name != u.lastIcon {
		desk.SetSystemTrayIcon(fyne.NewStaticResource(name, png))
		u.lastIcon = name
	}
	desk.SetSystemTrayMenu(trayMenu(in, u.actions()))
	if u.setItem != nil {
		u.setItem(trayItem(in))
	}
}

// tapped is a click on the tray icon: the popup when calls wait, else the
// activity (what agate decided lately). It runs on the tray's goroutine.
func (u *Desktop) tapped() {
	if u.Prompter.Len() > 0 {
		u.Prompter.Show()
		return
	}
	u.Prompter.do(func() { u.Settings().Show(TabActivity) })
}

// TrayMenu is the tray menu as it is now (for tests and the screenshot).
func (u *Desktop) TrayMenu() *fyne.Menu { return trayMenu(readTray(u.d), u.actions()) }

func (u *Desktop) actions() trayActions {
	return trayActions{
		setMode:  func(m string) { u.report(setMode(u.d, m)) },
		pending:  u.Prompter.Show,
		settings: func() { u.Settings().Show("") },
		activity: func() { u.Settings().Show(TabActivity) },
		pause:    func() { u.report(pause(u.d)) },
		resume:   func() { u.report(resume(u.d)) },
		quit:     u.quit,
	}
}

// quit ends the app. The widgets are left alone from here on: Fyne would
// run what is handed to it after its loop, off its thread.
func (u *Desktop) quit() {
	u.Prompter.endUI()
	u.fa.Quit()
}

// report shows an error from a tray action in the settings panel, where
// the config error (if that is what it is) is explained.
func (u *Desktop) report(err error) {
	if err == nil {
		u.refreshTray()
		return
	}
	u.logf("%v", err)
	u.Settings().ShowError(err)
}

// A delete this large that ran unasked is told in a notification: the
// person may want to know where it went.
const (
	largeKeepBytes = 64 << 20
	largeKeepFiles = 1000
)

// keptNotice is the notification for a decision that let a large delete
// or overwrite run unasked, with a copy kept: what, and how to undo it.
func keptNotice(ev api.Event) (title, body string, ok bool) {
	d := ev.Decision
	if d == nil || d.Kept == nil || d.By == api.ByPerson || d.Kept.Bytes < largeKeepBytes && d.Kept.Files < largeKeepFiles {
		return "", "", false
	}
	k := d.Kept
	title = fmt.Sprintf("agate: %s deleted or overwrote %d files (%s)", orUnknown(ev.Agent), k.Files, undo.Size(k.Bytes))
	body = fmt.Sprintf("%s\nA copy is kept: agate undo %s, or Restore in Activity.", ellipsis(ev.Subject, 160), k.ID)
	return title, body, true
}
