//go:build !nogui

package ui

import (
	"context"
	"runtime/debug"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/systray"
	"github.com/gen2brain/beeep"

	"github.com/agatehq/agate/app/daemon"
	"github.com/agatehq/agate/app/version"
	"github.com/agatehq/agate/assets"
)

// AppID is the application's ID, as in FyneApp.toml: Fyne keeps its
// preferences under it and desktops group its windows by it.
const AppID = "dev.agate.agate"

// Run is the desktop app (daemon.Desktop): it makes the Fyne app, puts the
// tray icon up, attaches the approval popup to d as its prompter (answers
// recorded via "tray"), and runs until the person quits or ctx ends. On the
// way out it detaches the prompter and ends the popup's waiting calls,
// which the daemon then denies. d is already serving.
//
// Without a tray host (no StatusNotifier on the session bus) Fyne logs an
// error and the app runs on: the popup still comes up for every call.
func Run(ctx context.Context, d *daemon.Daemon) error {
	beeep.AppName = "agate"
	// The name, not the ID, is what the tray item's title shows.
	fyneapp.SetMetadata(fyne.AppMetadata{ID: AppID, Name: "agate", Version: version.Version, Build: 1})
	fa := fyneapp.NewWithID(AppID)
	fa.SetIcon(fyne.NewStaticResource("agate.png", assets.Icon))
	u := NewDesktop(fa, d, DesktopOptions{Notify: notifyDesktop})

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := make(chan struct{})
	// The tray is set up before the loop runs: Fyne starts the system tray
	// only if it was asked for by then.
	if desk, ok := fa.(desktop.App); ok {
		u.setItem = setTrayItem
		u.showTray(readTray(d))
		// The popup is the tray's window; a click on the icon brings it
		// forward when calls wait, and the activity when none do.
		desk.SetSystemTrayWindow(u.Prompter.popup.win)
		u.Prompter.popup.win.SetCloseIntercept(u.Prompter.popup.closeRequested)
		systray.SetOnTapped(u.tapped)
	}
	fa.Lifecycle().SetOnStarted(func() {
		// The tray item is on the bus now: its status can be set (the
		// library puts it up "Active" whatever was asked before).
		if u.setItem != nil {
			in := readTray(d)
			u.Prompter.do(func() { u.setItem(trayItem(in)) })
		}
		go u.Watch(ctx)
		// Start-up garbage (fonts, themes, windows) goes back to the system
		// once the app idles.
		time.AfterFunc(idleRelease, debug.FreeOSMemory)
	})
	// Attached before the loop runs, so no call that arrives meanwhile is
	// handed back to the agent: the popup shows it once the loop starts.
	d.SetPrompter(u.Prompter, "tray")
	go func() {
		select {
		case <-ctx.Done():
			fyne.Do(u.quit)
		case <-ran:
		}
	}()
	fa.Run()
	close(ran)
	// However the loop ended (Quit, the last window closed), the widgets
	// are left alone now: Close below ends the calls waiting, and their rows
	// must not leave the popup from the daemon's goroutines.
	u.Prompter.endUI()
	d.SetPrompter(nil, "")
	u.Prompter.Close()
	return nil
}
