// Package ui is agate's desktop app: the tray icon and menu, the approval
// popup and the settings panel, in Fyne. It is the only package that
// imports a GUI toolkit; it drives a daemon.Daemon running in the same
// process through the daemon's methods and answers its approvals as a
// daemon.Prompter. It reads and edits agate's files through the packages
// that own them (app/files/config, app/files/audit, app/hooks/settings).
//
// Threading: Fyne widgets are touched only on Fyne's goroutine. Anything
// started elsewhere (the daemon calling Ask, the event stream, timers,
// probes and file reads) hands its widget work to fyne.Do. Every wait
// has a context: Ask returns when the person answers, when its context ends
// (the approval expired or was answered elsewhere) or when the app closes,
// so the popup never holds the daemon up.
//
// Keys: Deny is the default. Escape, Enter and closing the popup deny; the
// allow buttons answer only a click or their own Alt shortcut, and only
// after the popup has been on screen for half a second, so a keypress
// meant for another window never allows anything.
package ui
