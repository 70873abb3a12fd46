package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/daemon"
	"github.com/agatehq/agate/app/files/managed"
	"github.com/agatehq/agate/assets"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

// handConfig is a config a person wrote: the settings panel must keep
// every comment of it.
const handConfig = `# My agate config. Do not lose this line.
[auto]
# I mostly want to be asked.
mode = "ask" # the default
auto_approve = ["fs", "code"]
rules = [
  # shell first
  "deny shell rm*", # never rm
  "allow web",
]
trusted_domains = []

[approvals]
timeout = "120s" # two minutes
`

func readConfig(t *testing.T, d *daemon.Daemon) string {
	t.Helper()
	data, err := os.ReadFile(d.Paths().Config)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func wantComments(t *testing.T, text string) {
	t.Helper()
	for _, c := range []string{"# My agate config. Do not lose this line.", "# I mostly want to be asked.", "# the default",
		"# shell first", "# never rm", "# two minutes"} {
		if !strings.Contains(text, c) {
			t.Errorf("comment %q lost:\n%s", c, text)
		}
	}
}

func TestSettingsGeneralWritesKeys(t *testing.T) {
	d := newTestDaemon(t, handConfig)
	fa := test.NewTempApp(t)
	s := NewSettings(fa, d, t.Logf)
	g := s.general

	g.mode.SetSelected("Plan")
	g.autoApprove["git"].SetChecked(true)
	g.timeout.SetText("90s")
	g.saveTimeout()
	g.onDown.SetSelected("ask")

	text := readConfig(t, d)
	for _, want := range []string{`mode = "plan" # the default`, `auto_approve = ["fs", "code", "git"]`,
		`timeout = "1m30s" # two minutes`, "[hooks]\non_daemon_down = \"ask\""} {
		if !strings.Contains(text, want) {
			t.Errorf("config lacks %q:\n%s", want, text)
		}
	}
	wantComments(t, text)
	// In force at once.
	if cfg, _ := d.Config(); cfg.Auto.Mode != "plan" || cfg.Hooks.OnDaemonDown != "ask" || cfg.ApprovalTimeout() != 90*time.Second {
		t.Errorf("in force: %+v %+v %v", cfg.Auto, cfg.Hooks, cfg.ApprovalTimeout())
	}
	// A bad timeout is refused, and the file is left alone.
	before := readConfig(t, d)
	g.timeout.SetText("soon")
	g.saveTimeout()
	if readConfig(t, d) != before || !strings.Contains(g.timeoutCheck.Text, "not a duration") {
		t.Errorf("a bad timeout: check %q", g.timeoutCheck.Text)
	}
	// YOLO is offered only while allowed.
	g.allowYolo.SetChecked(false)
	for _, o := range g.mode.Options {
		if o == "YOLO" {
			t.Error("YOLO offered with allow_yolo = false")
		}
	}
}

func TestSettingsRulesCheckAsTypedAndKeepComments(t *testing.T) {
	d := newTestDaemon(t, handConfig)
	fa := test.NewTempApp(t)
	s := NewSettings(fa, d, t.Logf)
	r := s.rules.rules

	if strings.Join(r.items, "|") != "deny shell rm*|allow web" {
		t.Fatalf("rules shown: %q", r.items)
	}
	test.Type(r.entry, "permit shell ls")
	if !strings.Contains(r.check.Text, "✗") || !strings.Contains(r.check.Text, "auto.rules[2]") {
		t.Errorf("a bad rule as typed: %q", r.check.Text)
	}
	before := readConfig(t, d)
	r.onAdd()
	if readConfig(t, d) != before {
		t.Error("a bad rule was written")
	}
	r.entry.SetText("ask shell *sudo*")
	if r.check.Text != "✓ parses" {
		t.Errorf("a good rule as typed: %q", r.check.Text)
	}
	r.onAdd()
	// Move the new rule to the top: first match wins.
	r.list.Select(2)
	r.move(-1)
	r.move(-1)
	cfg, _ := d.Config()
	if got := strings.Join(cfg.Auto.Rules, "|"); got != "ask shell *sudo*|deny shell rm*|allow web" {
		t.Errorf("rules in force: %s", got)
	}
	text := readConfig(t, d)
	wantComments(t, text)
	if !strings.Contains(text, `"deny shell rm*", # never rm`) {
		t.Errorf("the rule lost its comment:\n%s", text)
	}
	// Remove.
	r.list.Select(0)
	r.onRemove()
	if cfg, _ := d.Config(); len(cfg.Auto.Rules) != 2 {
		t.Errorf("after remove: %q", cfg.Auto.Rules)
	}

	// Hard deny and protected paths edit their own keys.
	s.rules.hardDeny.entry.SetText("shell *mkfs*")
	s.rules.hardDeny.onAdd()
	s.rules.prot.entry.SetText("secrets/")
	s.rules.prot.onAdd()
	cfg, _ = d.Config()
	if strings.Join(cfg.Auto.HardDeny, ",") != "shell *mkfs*" || strings.Join(cfg.Auto.ProtectedPaths, ",") != "secrets/" {
		t.Errorf("hard deny %q, protected %q", cfg.Auto.HardDeny, cfg.Auto.ProtectedPaths)
	}
}

func TestSettingsTryACall(t *testing.T) {
	d := newTestDaemon(t, handConfig)
	got := tryCall(d.Policy(), "Bash", `{"command": "rm -rf build"}`, "/home/me/project")
	if !strings.HasPrefix(got, "deny\n") || !strings.Contains(got, `deny shell rm*`) {
		t.Errorf("rm: %s", got)
	}
	got = tryCall(d.Policy(), "Bash", `{"command": "git push"}`, "/home/me/project")
	if !strings.HasPrefix(got, "ask\n") || !strings.Contains(got, "network") {
		t.Errorf("git push: %s", got)
	}
	if got := tryCall(d.Policy(), "Bash", `{"command":`, "/x"); !strings.Contains(got, "not a JSON object") {
		t.Errorf("bad JSON: %s", got)
	}
}

func TestSettingsTrustedAndSandbox(t *testing.T) {
	d := newTestDaemon(t, handConfig)
	fa := test.NewTempApp(t)
	s := NewSettings(fa, d, t.Logf)
	s.trusted.domains.entry.SetText("https://docs.python.org/")
	if !strings.Contains(s.trusted.domains.check.Text, "not a host name") {
		t.Errorf("a URL as a domain: %q", s.trusted.domains.check.Text)
	}
	s.trusted.domains.entry.SetText("docs.python.org")
	s.trusted.domains.onAdd()
	s.trusted.dirs.entry.SetText("~/projects/agate")
	s.trusted.dirs.onAdd()
	s.sandbox.enabled.SetChecked(true)
	s.sandbox.failClosed.SetChecked(false)
	text := readConfig(t, d)
	for _, want := range []string{`trusted_domains = ["docs.python.org"]`, `trusted_dirs = ["~/projects/agate"]`,
		"[tools]\nsandbox = true", "[sandbox]\nfail_closed = false"} {
		if !strings.Contains(text, want) {
			t.Errorf("config lacks %q:\n%s", want, text)
		}
	}
	wantComments(t, text)
}

func TestSettingsBrokenConfigIsShownNotOverwritten(t *testing.T) {
	d := newTestDaemon(t, handConfig)
	fa := test.NewTempApp(t)
	s := NewSettings(fa, d, t.Logf)
	broken := strings.Replace(handConfig, "trusted_domains = []", "trusted_domians = []", 1)
	if err := os.WriteFile(d.Paths().Config, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.Reload(); err == nil {
		t.Fatal("the broken config loaded")
	}
	s.reload()
	want := d.Paths().Config + ":11: auto.trusted_domians: unknown key"
	if s.bannerBox.Hidden || !strings.Contains(s.banner.Text, want) {
		t.Fatalf("banner hidden %v: %q, want it to name %q", s.bannerBox.Hidden, s.banner.Text, want)
	}
	s.general.mode.SetSelected("Plan")
	if readConfig(t, d) != broken {
		t.Error("the panel overwrote the broken file")
	}
	if !strings.Contains(s.status.Text, "Not saved") || !strings.Contains(s.status.Text, "auto.trusted_domians") {
		t.Errorf("status = %q", s.status.Text)
	}
	// The tray says so too, and refuses a mode change.
	in := readTray(d)
	if iconState(in) != assets.TrayError || setMode(d, "plan") == nil || readConfig(t, d) != broken {
		t.Errorf("tray with a broken config: %+v", in)
	}
}

func TestSettingsGrantsRevoke(t *testing.T) {
	d := newTestDaemon(t, "")
	if err := os.WriteFile(d.Paths().Grants, []byte("[agents.claude-code]\ngrants = [\"bash:none\", \"write_file:writes\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.ReloadGrants(); err != nil {
		t.Fatal(err)
	}
	fa := test.NewTempApp(t)
	s := NewSettings(fa, d, t.Logf)
	s.grants.load()
	if n := len(s.grants.saved.Objects); n != 3 { // the agent's row, then a row per grant
		t.Fatalf("%d rows of saved grants", n)
	}
	s.grants.revoke("claude-code", "bash", "")
	if got := d.SavedGrants()["claude-code"]; strings.Join(got, ",") != "write_file:writes" {
		t.Errorf("after revoking bash: %v", got)
	}
}

// TestSettingsGrantsFlagBroad: Pepe's broad grants (a risk set, any
// parameters, "*") are flagged with what they let through, the narrow
// ones are not; revoking a broad one leaves the narrow grants of its tool.
func TestSettingsGrantsFlagBroad(t *testing.T) {
	d := newTestDaemon(t, "")
	grants := `[agents.claude-code]
grants = ["bash:none", "bash:network", "bash(git status)", "read_file", "*"]
`
	if err := os.WriteFile(d.Paths().Grants, []byte(grants), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.ReloadGrants(); err != nil {
		t.Fatal(err)
	}
	fa := test.NewTempApp(t)
	s := NewSettings(fa, d, t.Logf)
	s.grants.load()
	flagged := map[string]string{}
	for _, o := range s.grants.saved.Objects[1:] {
		var texts []string
		for _, s := range labelsIn(o) {
			if s = strings.TrimSpace(s); s != "Revoke" {
				texts = append(texts, s)
			}
		}
		flagged[texts[0]] = strings.Join(texts[1:], " | ")
	}
	for grant, want := range map[string]string{
		"bash:none":        "broad | lets through bash calls in which agate sees no risk: any program it does not flag.",
		"bash:network":     "broad | lets through bash calls whose risks are all among network, whatever they touch.",
		"read_file":        "broad | lets through read_file, with any parameters.",
		"*":                "broad | lets through every tool, with any parameters.",
		"bash(git status)": "",
	} {
		if got, ok := flagged[grant]; !ok || got != want {
			t.Errorf("%s: %q, want %q", grant, got, want)
		}
	}
	s.grants.revoke("claude-code", "", "bash:none")
	if got := d.SavedGrants()["claude-code"]; strings.Join(got, ",") != "bash:network,bash(git status),read_file,*" {
		t.Errorf("after revoking bash:none: %v", got)
	}
}

// labelsIn are the texts of the labels, chips and buttons in o, in order.
func labelsIn(o fyne.CanvasObject) []string {
	switch v := o.(type) {
	case *widget.Label:
		return []string{v.Text}
	case *widget.Button:
		return []string{v.Text}
	case *fyne.Container:
		var out []string
		for _, c := range v.Objects {
			out = append(out, labelsIn(c)...)
		}
		return out
	}
	return textsIn(o)
}

func TestSettingsActivity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newTestDaemon(t, handConfig)
		cwd := t.TempDir()
		for _, c := range []string{"rm -rf build", "ls", "git push"} {
			if _, err := d.Decide(t.Context(), &api.DecideRequest{Tool: "Bash", Args: map[string]any{"command": c},
				Agent: "claude-code", Session: "s", Cwd: cwd}); err != nil {
				t.Fatal(err)
			}
		}
		fa := test.NewTempApp(t)
		s := NewSettings(fa, d, t.Logf)
		a := s.activity
		a.load()
		synctest.Wait()
		s.uiLocker.Lock()
		defer s.uiLocker.Unlock()
		if len(a.records) != 3 || a.records[0].Subject != "git push" {
			t.Fatalf("records newest first: %+v", a.records)
		}
		a.decision.SetSelected("deny")
		for _, r := range a.shown {
			if r.Decision != "deny" {
				t.Errorf("filter deny shows %+v", r)
			}
		}
		if len(a.shown) != 2 { // unattended: every ask is a deny; ls runs unasked
			t.Errorf("%d denies shown", len(a.shown))
		}
		a.decision.SetSelected(allFilter)
		a.tool.SetText("nope")
		if len(a.shown) != 0 {
			t.Errorf("tool filter: %d shown", len(a.shown))
		}
		d.Close()
	})
}

func TestTrayMenuAndIcon(t *testing.T) {
	for _, tt := range []struct {
		in   trayInput
		icon assets.TrayState
	}{
		{trayInput{mode: "ask", allowYolo: true}, assets.TrayIdle},
		{trayInput{mode: "ask", pending: 2}, assets.TrayPending},
		{trayInput{mode: "plan", paused: true, pausedWas: "accept_edits"}, assets.TrayPlan},
		{trayInput{mode: "yolo", allowYolo: true}, assets.TrayYolo},
		{trayInput{mode: "ask", configErr: "x"}, assets.TrayError},
		{trayInput{mode: "yolo", configErr: "x", pending: 1}, assets.TrayPending},
	} {
		if got := iconState(tt.in); got != tt.icon {
			t.Errorf("iconState(%+v) = %v, want %v", tt.in, got, tt.icon)
		}
	}
	labels := func(in trayInput) []string {
		var out []string
		for _, it := range trayMenu(in, trayActions{}).Items {
			l := it.Label
			if it.Checked {
				l += "*"
			}
			out = append(out, l)
		}
		return out
	}
	got := strings.Join(labels(trayInput{mode: "accept_edits", allowYolo: true, pending: 3}), "|")
	if got != "Ask|Accept edits*|Plan|YOLO (allow everything)||Pending approvals (3)|Settings...|Activity...|Pause all agents||Quit" {
		t.Errorf("menu: %s", got)
	}
	got = strings.Join(labels(trayInput{mode: "plan", paused: true, pausedWas: "accept_edits"}), "|")
	if got != "Ask|Accept edits|Plan*||Pending approvals (0)|Settings...|Activity...|Resume agents (back to Accept edits)||Quit" {
		t.Errorf("menu, paused, yolo forbidden: %s", got)
	}
	got = strings.Join(labels(trayInput{mode: "ask", leaks: 2, leak: "GitHub token 0f4e5fb3374f"}), "|")
	if got != "Ask*|Accept edits|Plan||Pending approvals (0)|Settings...|Activity...|Pause all agents|2 secrets pasted into a chat: rotate (agate doctor)||Quit" {
		t.Errorf("menu, two leaks: %s", got)
	}
	// With nothing waiting "Pending approvals" opens nothing.
	for _, n := range []int{0, 2} {
		for _, it := range trayMenu(trayInput{mode: "ask", pending: n}, trayActions{}).Items {
			if strings.HasPrefix(it.Label, "Pending approvals") && it.Disabled != (n == 0) {
				t.Errorf("%d waiting: %q disabled %v", n, it.Label, it.Disabled)
			}
		}
	}
}

// TestTrayItem: the tray item's title is agate's name, its tooltip says
// what waits (or the mode), and its status asks for attention while calls
// wait.
func TestTrayItem(t *testing.T) {
	for _, tt := range []struct {
		in                    trayInput
		tooltip, wantedStatus string
	}{
		{trayInput{mode: "ask"}, "agate: nothing waiting; mode Ask", "Active"},
		{trayInput{mode: "accept_edits", pending: 1}, "agate: 1 call waiting for your answer", "NeedsAttention"},
		{trayInput{mode: "ask", pending: 3, configErr: "x"}, "agate: 3 calls waiting for your answer", "NeedsAttention"},
		{trayInput{mode: "ask", configErr: "x"}, "agate: config.toml has an error (see Settings); the last good settings hold", "Active"},
		{trayInput{mode: "plan", paused: true}, "agate: agents paused (plan mode): every call that acts is denied", "Active"},
		{trayInput{mode: "ask", leaks: 1, leak: "keystore:openai (OpenAI API key, 2fdc87e8cb41)", configErr: "x"},
			"agate: 1 secret pasted into a chat, the latest keystore:openai (OpenAI API key, 2fdc87e8cb41): rotate it (agate doctor says how)", "Active"},
		{trayInput{mode: "ask", leaks: 2, pending: 1}, "agate: 1 call waiting for your answer", "NeedsAttention"},
	} {
		title, tip, status := trayItem(tt.in)
		if title != "agate" || tip != tt.tooltip || status != tt.wantedStatus {
			t.Errorf("trayItem(%+v) = %q, %q, %q; want agate, %q, %q", tt.in, title, tip, status, tt.tooltip, tt.wantedStatus)
		}
	}
}

// TestTrayTapped: a click on the icon brings the popup forward when calls
// wait, and with none waiting opens the activity, never an empty
// "approval needed" window.
func TestTrayTapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newTestDaemon(t, "")
		fa := test.NewTempApp(t)
		u := NewDesktop(fa, d, DesktopOptions{Logf: t.Logf})
		defer u.Prompter.Close()
		u.tapped()
		synctest.Wait()
		s := u.settings.Load()
		if s == nil {
			t.Fatal("a click with nothing waiting opened no window")
		}
		onUI(u.Prompter, func() {
			if u.Prompter.popup.visible {
				t.Error("a click with nothing waiting opened the popup")
			}
		})
		s.uiLocker.Lock()
		if !s.visible || s.tabs.Selected().Text != TabActivity {
			t.Errorf("settings visible %v on %q, want the activity", s.visible, s.tabs.Selected().Text)
		}
		s.uiLocker.Unlock()

		r := ask(t.Context(), u.Prompter, approval("1", "a", "rm x"))
		synctest.Wait()
		onUI(u.Prompter, func() { u.Prompter.popup.hide() }) // the person put it away
		u.tapped()
		synctest.Wait()
		onUI(u.Prompter, func() {
			if !u.Prompter.popup.visible || u.Prompter.popup.win.Title() != PopupTitle {
				t.Errorf("a click with a call waiting: popup visible %v, title %q", u.Prompter.popup.visible, u.Prompter.popup.win.Title())
			}
			test.Tap(u.Prompter.popup.deny)
		})
		synctest.Wait()
		if !r.finished() {
			t.Error("the call was not answered")
		}
		d.Close()
	})
}

func TestTrayModeAndPause(t *testing.T) {
	d := newTestDaemon(t, handConfig)
	if err := setMode(d, "accept_edits"); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := d.Config(); cfg.Auto.Mode != "accept_edits" || d.Policy().Mode().String() != "accept_edits" {
		t.Errorf("mode in force: %s", cfg.Auto.Mode)
	}
	wantComments(t, readConfig(t, d))
	if err := pause(d); err != nil {
		t.Fatal(err)
	}
	in := readTray(d)
	if in.mode != "plan" || !in.paused || in.pausedWas != "accept_edits" || iconState(in) != assets.TrayPlan {
		t.Errorf("paused: %+v", in)
	}
	if err := resume(d); err != nil {
		t.Fatal(err)
	}
	if in := readTray(d); in.mode != "accept_edits" || in.paused {
		t.Errorf("resumed: %+v", in)
	}
	wantComments(t, readConfig(t, d))
	if cfg, _ := d.Config(); policy.DefaultConfig().Auto.Mode == cfg.Auto.Mode {
		t.Errorf("mode back to the default instead of the one before the pause")
	}
}

// TestDesktopFollowsEvents: the tray's state follows the daemon's event
// stream (pushed, not polled): a call that asks shows as pending, and the
// answer clears it.
func TestDesktopFollowsEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newTestDaemon(t, "")
		fa := test.NewTempApp(t)
		u := NewDesktop(fa, d, DesktopOptions{Logf: t.Logf})
		d.SetPrompter(u.Prompter, "tray")
		ctx, cancel := context.WithCancel(t.Context())
		watched := make(chan struct{})
		go func() { u.Watch(ctx); close(watched) }()
		synctest.Wait()
		pending := func() int {
			var n int
			onUI(u.Prompter, func() { n = u.last.pending })
			return n
		}
		if pending() != 0 {
			t.Fatalf("pending at start: %d", pending())
		}
		done := make(chan struct{})
		go func() {
			d.Decide(t.Context(), decideReq(t.TempDir(), "curl -fsS https://example.org/x"))
			close(done)
		}()
		synctest.Wait()
		if pending() != 1 {
			t.Fatalf("pending after a call asked: %d", pending())
		}
		onUI(u.Prompter, func() { test.Tap(u.Prompter.popup.deny) })
		<-done
		synctest.Wait()
		if pending() != 0 {
			t.Fatalf("pending after the answer: %d", pending())
		}
		// The settings panel is built on first use, then follows events too.
		if u.settings.Load() != nil {
			t.Error("the settings panel was built before it was opened")
		}
		cancel()
		<-watched
		u.Prompter.Close()
		d.Close()
	})
}

// TestSettingsSandboxInWords: the probe's checks show first, in words,
// each marked; what to change where the sandbox cannot run shows too.
func TestSettingsSandboxInWords(t *testing.T) {
	d := newTestDaemon(t, handConfig)
	fa := test.NewTempApp(t)
	s := NewSettings(fa, d, t.Logf)
	s.sandbox.show(sandbox.Diagnostics{
		Enabled: true, Platform: "linux", Launcher: "auto", FailClosed: true,
		Reason: "bwrap: user namespaces are refused",
		Fix:    "sysctl -w kernel.unprivileged_userns_clone=1",
		Checks: []sandbox.Check{
			{Name: "write_outside_denied", OK: true},
			{Name: "network_cut", OK: false, Detail: "not verified: no bash inside to connect with"},
		},
	})
	got := strings.Join(richLines(s.sandbox.checks), "\n")
	want := "✓ A command cannot write outside its folder.\n✗ The network is NOT cut. (not verified: no bash inside to connect with)"
	if got != want {
		t.Errorf("checks:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "write_outside_denied") {
		t.Error("a check shown as its identifier")
	}
	if s.sandbox.fix.Hidden || !strings.Contains(s.sandbox.fix.Text, "kernel.unprivileged_userns_clone=1") {
		t.Errorf("fix hidden %v: %q", s.sandbox.fix.Hidden, s.sandbox.fix.Text)
	}
	if !strings.Contains(s.sandbox.summary.Text, "No sandbox works here, so commands that should run in it are refused") {
		t.Errorf("summary %q", s.sandbox.summary.Text)
	}
	// Near the top: the first card of the tab.
	box := s.sandbox.content.(*container.Scroll).Content.(*fyne.Container)
	if card := box.Objects[0].(*widget.Card); card.Title != "What the sandbox does here" {
		t.Errorf("first card %q", card.Title)
	}
}

// TestSettingsSandboxConfineProject: the switch for [sandbox]
// confine_project follows the config and writes the key as the other
// switches do; while the config parser does not know the key the switch
// is off, greyed, and says why.
func TestSettingsSandboxConfineProject(t *testing.T) {
	d := newTestDaemon(t, handConfig)
	fa := test.NewTempApp(t)
	s := NewSettings(fa, d, t.Logf)
	cfg, _ := d.Config()
	if _, known := configBool(cfg.Sandbox, "confine_project"); !known {
		if !s.sandbox.confineProject.Disabled() || s.sandbox.confineNote.Hidden {
			t.Errorf("an unknown key: switch disabled %v, note %q", s.sandbox.confineProject.Disabled(), s.sandbox.confineNote.Text)
		}
		t.Log("the config parser does not know [sandbox] confine_project yet: only the greyed switch is checked")
		return
	}
	s.sandbox.confineProject.SetChecked(true)
	if text := readConfig(t, d); !strings.Contains(text, "[sandbox]\nconfine_project = true") {
		t.Errorf("config lacks confine_project:\n%s", text)
	}
	cfg, _ = d.Config()
	if on, _ := configBool(cfg.Sandbox, "confine_project"); !on {
		t.Error("confine_project not in force")
	}
	wantComments(t, readConfig(t, d))
}

func TestConfigBool(t *testing.T) {
	type section struct {
		Launcher       string `toml:"launcher"`
		ConfineProject bool   `toml:"confine_project"`
		Other          bool   `toml:"other,omitempty"`
	}
	if on, known := configBool(section{ConfineProject: true}, "confine_project"); !on || !known {
		t.Errorf("confine_project: %v %v", on, known)
	}
	if _, known := configBool(section{}, "launcher"); known {
		t.Error("a string key read as a bool")
	}
	if on, known := configBool(section{Other: true}, "other"); !on || !known {
		t.Errorf("other: %v %v", on, known)
	}
	if _, known := configBool(section{}, "nope"); known {
		t.Error("a key that is not there")
	}
}

// TestTrayLeaks: a secret on the daemon's leak record shows in the tray's
// state, named as agate names it.
func TestTrayLeaks(t *testing.T) {
	d := newTestDaemon(t, "")
	if in := readTray(d); in.leaks != 0 {
		t.Fatalf("no record, %d leaks", in.leaks)
	}
	rec := `{"version":1,"leaks":[{"fingerprint":"0f4e5fb3374f","kind":"GitHub token","where":"pasted into gemini's chat",` +
		`"first":"2026-12-01T12:00:00Z","last":"2026-12-01T12:00:00Z","count":1}]}`
	if err := os.MkdirAll(d.Paths().State, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Paths().State, "leaks.json"), []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	in := readTray(d)
	if in.leaks != 1 || in.leak != "GitHub token 0f4e5fb3374f" {
		t.Errorf("tray state %+v", in)
	}
	if _, tip, _ := trayItem(in); !strings.Contains(tip, "1 secret pasted into a chat, the latest GitHub token 0f4e5fb3374f") {
		t.Errorf("tooltip %q", tip)
	}
}

// TestSettingsSandboxSaysWhetherConfined: opened, the Sandbox tab says
// whether what agate lets through on its own judgment runs confined here,
// and why not, from the daemon's probe; before, it probes nothing.
func TestSettingsSandboxSaysWhetherConfined(t *testing.T) {
	d := newTestDaemon(t, "")
	s := NewSettings(test.NewTempApp(t), d, t.Logf)
	note := func() string {
		s.uiLocker.Lock()
		defer s.uiLocker.Unlock()
		return s.sandbox.unaskedNote.Text
	}
	if n := note(); n != "" {
		t.Fatalf("before the tab is opened: %q", n)
	}
	s.uiLocker.Lock()
	s.opened(TabSandbox)
	s.uiLocker.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for note() == "" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := note(); !strings.HasPrefix(n, "on") && !strings.HasPrefix(n, "off") {
		t.Errorf("the note says %q", n)
	}
}

// TestSettingsShowsManagedLocked: under a managed policy an administrator
// installed, the settings show the values in force (the managed ones),
// say they are set by the organization, and lock their controls.
func TestSettingsShowsManagedLocked(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the managed file must be root's to be trusted")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	file := filepath.Join(dir, "managed.toml")
	if err := os.WriteFile(file, []byte("[approvals]\nallow_yolo = false\ntimeout = \"30s\"\n[hooks]\non_daemon_down = \"deny\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	was := managed.Path
	managed.Path = file
	t.Cleanup(func() { managed.Path = was })
	d := newTestDaemon(t, "[approvals]\nallow_yolo = true\ntimeout = \"10m\"\n[auto]\nmode = \"yolo\"\n[hooks]\non_daemon_down = \"ask\"\n")
	s := NewSettings(test.NewTempApp(t), d, t.Logf)
	g := s.general
	if !s.managed.Visible() || !strings.Contains(s.managed.Text, "Set by your organization ("+file+")") || !strings.Contains(s.managed.Text, "approvals.timeout") {
		t.Errorf("the managed note: %v %q", s.managed.Visible(), s.managed.Text)
	}
	if !g.allowYolo.Disabled() || !g.timeout.Disabled() || !g.onDown.Disabled() || g.mode.Disabled() {
		t.Errorf("locked: yolo %v timeout %v on-down %v mode %v", g.allowYolo.Disabled(), g.timeout.Disabled(), g.onDown.Disabled(), g.mode.Disabled())
	}
	if g.allowYolo.Checked || g.timeout.Text != "30s" || g.onDown.Selected != "deny" || g.mode.Selected == "YOLO" {
		t.Errorf("shown: yolo %v timeout %q on-down %q mode %q", g.allowYolo.Checked, g.timeout.Text, g.onDown.Selected, g.mode.Selected)
	}
}
