package ui

import (
	"errors"
	"image/color"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon"
	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/policy"
)

// The settings panel's tabs, by name (Show takes one).
const (
	TabGeneral  = "General"
	TabRules    = "Rules"
	TabTrusted  = "Trusted"
	TabGrants   = "Grants"
	TabSandbox  = "Sandbox"
	TabKeys     = "Keys"
	TabAgents   = "Agents"
	TabActivity = "Activity"
)

// SettingsTitle is the settings window's title.
const SettingsTitle = "agate settings"

// Settings is the settings window: one tab per part of the config, each
// editing config.toml through config.EditFile (comments and unmanaged keys
// kept). A config error from a hand edit shows at the top, with its file,
// line and key; the editor refuses to overwrite the broken file. Its
// methods run on Fyne's goroutine unless they say otherwise.
type Settings struct {
	fa   fyne.App
	d    *daemon.Daemon
	logf func(format string, args ...any)
	win  fyne.Window
	tabs *container.AppTabs

	banner    *widget.Label // the config error
	bannerBox *fyne.Container
	managed   *widget.Label // what the managed policy holds
	status    *widget.Label // the last edit's outcome

	loading bool // filling widgets from the config: their callbacks must not write
	visible bool

	general  *generalTab
	rules    *rulesTab
	trusted  *trustedTab
	grants   *grantsTab
	sandbox  *sandboxTab
	keys     *keysTab
	agents   *agentsTab
	activity *activityTab

	uiLocker *sync.Mutex  // serialises widget work handed over by do (see Prompter.do): settingsMu
	ended    *atomic.Bool // set when Fyne's loop stops: do drops widget work (see Prompter.endUI)

	mu     sync.Mutex // guards actDue
	actDue bool       // an activity reload is scheduled
}

// NewSettings builds the settings window, hidden.
func NewSettings(fa fyne.App, d *daemon.Daemon, logf func(string, ...any)) *Settings {
	// Built under the lock the widget work of every settings window
	// takes: a probe an earlier window started (its goroutine hands a
	// label's text over through do) does not lay out text while this
	// one does. Fyne's text measures share one cache.
	settingsMu.Lock()
	defer settingsMu.Unlock()
	s := &Settings{fa: fa, d: d, logf: logf, win: fa.NewWindow(SettingsTitle), ended: new(atomic.Bool), uiLocker: &settingsMu}
	s.banner = widget.NewLabel("")
	s.banner.Wrapping = fyne.TextWrapWord
	s.banner.TextStyle = fyne.TextStyle{Bold: true}
	bg := canvas.NewRectangle(color.NRGBA{200, 40, 40, 60})
	s.bannerBox = container.NewStack(bg, s.banner)
	s.bannerBox.Hide()
	s.managed = widget.NewLabel("")
	s.managed.Wrapping = fyne.TextWrapWord
	s.managed.Importance = widget.WarningImportance
	s.managed.Hide()
	s.status = widget.NewLabel("")
	s.status.Wrapping = fyne.TextWrapWord

	s.general = newGeneralTab(s)
	s.rules = newRulesTab(s)
	s.trusted = newTrustedTab(s)
	s.grants = newGrantsTab(s)
	s.sandbox = newSandboxTab(s)
	s.keys = newKeysTab(s)
	s.agents = newAgentsTab(s)
	s.activity = newActivityTab(s)
	s.tabs = container.NewAppTabs(
		container.NewTabItem(TabGeneral, s.general.content),
		container.NewTabItem(TabRules, s.rules.content),
		container.NewTabItem(TabTrusted, s.trusted.content),
		container.NewTabItem(TabGrants, s.grants.content),
		container.NewTabItem(TabSandbox, s.sandbox.content),
		container.NewTabItem(TabKeys, s.keys.content),
		container.NewTabItem(TabAgents, s.agents.content),
		container.NewTabItem(TabActivity, s.activity.content),
	)
	s.tabs.OnSelected = func(t *container.TabItem) { s.opened(t.Text) }
	s.win.SetContent(container.NewBorder(container.NewVBox(s.bannerBox, s.managed), s.status, nil, nil, s.tabs))
	s.win.Resize(fyne.NewSize(1100, 700))
	s.win.SetCloseIntercept(func() {
		s.visible = false
		s.win.Hide()
	})
	s.reload()
	return s
}

// Window is the settings window.
func (s *Settings) Window() fyne.Window { return s.win }

// Show opens the window, on tab if it names one. It may be called from
// any goroutine.
func (s *Settings) Show(tab string) {
	s.do(func() {
		s.reload()
		for _, t := range s.tabs.Items {
			if t.Text == tab {
				s.tabs.Select(t)
			}
		}
		s.opened(s.tabs.Selected().Text)
		s.win.Show()
		s.visible = true
		s.win.RequestFocus()
	})
}

// ShowError opens the window with err in the status line (a tray action
// that failed). It may be called from any goroutine.
func (s *Settings) ShowError(err error) {
	s.Show("")
	s.do(func() { s.setStatus(err) })
}

// do runs widget work on Fyne's goroutine, serially under the test driver,
// and not at all once the loop has ended.
func (s *Settings) do(fn func()) { doOnUI(s.ended, s.uiLocker, fn) }

// settingsMu is the lock of every settings window's widget work.
var settingsMu sync.Mutex

// opened loads what a tab shows that is not in the config (probes, files).
func (s *Settings) opened(tab string) {
	switch tab {
	case TabGrants:
		s.grants.load()
	case TabSandbox:
		s.sandbox.shown = true
		s.sandbox.probe(false)
		s.sandbox.showUnasked()
	case TabKeys:
		s.keys.load()
	case TabAgents:
		s.agents.load()
	case TabActivity:
		s.activity.load()
	}
}

// event takes the daemon's events (off Fyne's goroutine): a config change
// reloads the tabs, answers refresh the grants, decisions the activity.
func (s *Settings) event(ev api.Event) {
	switch ev.Type {
	case "config":
		s.do(s.reload)
	case "approval.granted":
		s.do(func() {
			if s.visible && s.tabs.Selected().Text == TabGrants {
				s.grants.load()
			}
		})
	case "decision":
		s.mu.Lock()
		due := s.actDue
		s.actDue = true
		s.mu.Unlock()
		if !due {
			// At most one reload a second, however busy the agents are.
			time.AfterFunc(time.Second, func() {
				s.mu.Lock()
				s.actDue = false
				s.mu.Unlock()
				s.do(func() {
					if s.visible && s.tabs.Selected().Text == TabActivity {
						s.activity.load()
					}
				})
			})
		}
	}
}

// reload fills every tab from the config in force and shows the config
// error, if the file on disk is broken.
func (s *Settings) reload() {
	cfg, err := s.d.Config()
	if err != nil {
		s.banner.SetText("config.toml has an error, so agate keeps the last good settings and will not change the file until it is fixed by hand:\n" + err.Error())
		s.bannerBox.Show()
	} else {
		s.bannerBox.Hide()
	}
	s.showManaged(cfg)
	s.loading = true
	defer func() { s.loading = false }()
	s.general.load(cfg)
	s.rules.load(cfg)
	s.trusted.load(cfg)
	s.sandbox.load(cfg)
}

// showManaged says which settings the managed policy an administrator
// installed holds: those are locked here, whatever config.toml says.
func (s *Settings) showManaged(cfg *policy.Config) {
	m := cfg.ManagedLayer()
	switch {
	case m == nil:
		s.managed.Hide()
		return
	case m.Failed() != nil:
		s.managed.SetText("Your organization's policy (" + m.Source + ") cannot be used, so agate asks before every call that acts and YOLO is off: " + m.Failed().Error())
	default:
		s.managed.SetText("Set by your organization (" + m.Source + "), locked here: " + strings.Join(m.LockedKeys(), ", ") + ".")
	}
	s.managed.Show()
}

// edit applies edits to config.toml and puts them in force at once (the
// watcher then sees the same file). A refused edit is shown, and the tabs
// go back to what is in force.
func (s *Settings) edit(edits ...config.Edit) error {
	if s.loading {
		return nil
	}
	err := config.EditFile(s.d.Paths().Config, edits...)
	if err == nil {
		err = s.d.Reload()
	}
	s.setStatus(err)
	if err != nil {
		s.reload()
		return err
	}
	s.reload()
	return nil
}

// setStatus shows the outcome of the last change.
func (s *Settings) setStatus(err error) {
	switch {
	case err == nil:
		s.status.SetText("Saved to " + s.d.Paths().Config + " at " + time.Now().Format("15:04:05") + " (comments kept).")
	case errors.Is(err, config.ErrBroken):
		s.status.SetText("Not saved, the file was left as it is: " + err.Error())
	default:
		s.status.SetText("Not saved: " + err.Error())
	}
}

// config is the config in force.
func (s *Settings) config() *policy.Config {
	cfg, _ := s.d.Config()
	return cfg
}
